/* fp.c: the fingerprints' data: decisions and games per family and
 * replication, their bootstrap units, the estimates and the replicates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../common/rng.h"
#include "../json/json.h"
#include "../protocol/decision.h"
#include "../store/cas.h"
#include "internal.h"

void
fp_opts_init(struct fp_opts *o)
{
	memset(o, 0, sizeof *o);
	o->replicates = -1;
	o->split = -1;
}

int
fp_split_of(const char *name)
{
	if (strcmp(name, "all") == 0)
		return -1;
	for (int i = 0; i < 3; i++)
		if (strcmp(name, cand_split_names[i]) == 0)
			return i;
	return -2;
}

/* The split of an opening of the manifest: the one split all its
 * positions lie in; -1 when it has none (the manifest does not name it)
 * or its positions lie in two. */
static int
opening_split(const struct candidates *c, const char *open)
{
	int s = -1;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->p[i].opening, open) == 0) {
			if (s >= 0 && s != (int)c->p[i].split)
				return -1;
			s = (int)c->p[i].split;
		}
	return s;
}

long
fp_run_replicates(const struct fp_run *r)
{
	return r->replicates;
}

/* FNV-1a of family, a NUL and replication: a fingerprint's streams
 * depend on its names alone, not on the others in the document. */
static uint64_t
label_of(const char *fam, const char *rep)
{
	uint64_t h = hash_fnv(HASH_FNV_BASIS, fam, strlen(fam) + 1); /* its NUL too */

	return hash_fnv(h, rep, strlen(rep));
}

static int
add_feat(struct fp_run *r, enum fp_base b, int idx, const char *suffix, size_t *cap)
{
	struct fp_feat *ft;

	if (mem_grow((void **)&r->feat, cap, r->nfeat + 1, sizeof *r->feat) < 0)
		return -1;
	ft = &r->feat[r->nfeat++];
	ft->base = b;
	ft->idx = idx;
	if (suffix == NULL)
		snprintf(ft->name, sizeof ft->name, "%s", fp_defs[b].name);
	else
		snprintf(ft->name, sizeof ft->name, "%s[%s]", fp_defs[b].name, suffix);
	return 0;
}

/* The registered features, expanded per width, phase or label. */
static int
expand(struct fp_run *r, struct err *e)
{
	size_t cap = 0, nw = r->nwidths;
	char k[24];
	int rc = 0;

	for (int b = 0; b < FB_N && rc == 0; b++) {
		if (!prereg_has_feature(r->pr, fp_defs[b].name))
			continue;
		switch (fp_defs[b].index) {
		case FX_ONE: rc = add_feat(r, b, -1, NULL, &cap); break;
		case FX_PHASE:
			for (int i = 0; i < 3 && rc == 0; i++)
				rc = add_feat(r, b, i, cand_phase_names[i], &cap);
			break;
		case FX_LABEL:
			for (int i = 0; i < DF_N && rc == 0; i++)
				rc = add_feat(r, b, i, decision_failure_names[i], &cap);
			break;
		default:
			for (size_t i = 0; i < nw && rc == 0; i++) {
				enum fp_index x = fp_defs[b].index;
				if ((x == FX_NONZERO && r->widths[i] == 0) || (x == FX_FROM1 && i == 0) ||
				    (x == FX_INNER && (i == 0 || i + 1 >= nw)))
					continue;
				snprintf(k, sizeof k, "%d", r->widths[i]);
				rc = add_feat(r, b, (int)i, k, &cap);
			}
		}
	}
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* The fingerprint of (family, replication), made when new; it must come
 * from one freeze. */
static struct fp_fam *
fam_of(struct fp_run *r, const char *fam, const char *rep, size_t in, struct err *e)
{
	struct fp_fam *f;

	for (size_t i = 0; i < r->nfam; i++)
		if (strcmp(r->fam[i].family, fam) == 0 && strcmp(r->fam[i].replication, rep) == 0) {
			if (r->fam[i].in == in)
				return &r->fam[i];
			err_set(e, ERR_INPUT, "family %.100s replication %.100s is in two freezes: %s and "
			    "%s", fam, rep, r->in[r->fam[i].in].name, r->in[in].name);
			return NULL;
		}
	if (mem_grow((void **)&r->fam, &r->cfam, r->nfam + 1, sizeof *r->fam) < 0)
		goto nomem;
	f = &r->fam[r->nfam];
	memset(f, 0, sizeof *f);
	if ((f->family = strdup(fam)) == NULL || (f->replication = strdup(rep)) == NULL) {
		free(f->family);
		goto nomem;
	}
	f->in = in;
	f->what = label_of(fam, rep);
	r->nfam++;
	return f;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}

/* A unit of f (named name, with decision block dblock), found by name
 * when find, else new; its index, or -1 out of memory. */
static long
unit_of(struct fp_fam *f, const char *name, long dblock, int find)
{
	for (size_t u = 0; find && u < f->nunits; u++)
		if (strcmp(f->unit[u], name) == 0)
			return (long)u;
	if (mem_grow((void **)&f->unit, &f->cunits, f->nunits + 1, sizeof *f->unit) < 0 ||
	    mem_grow((void **)&f->dblock, &f->cdblock, f->nunits + 1, sizeof *f->dblock) < 0 ||
	    (f->unit[f->nunits] = strdup(name)) == NULL)
		return -1;
	f->dblock[f->nunits] = dblock;
	return (long)f->nunits++;
}

/* Every cell of input in's decisions into its fingerprint, and the
 * blocks with decisions as units. */
static int
add_decisions(struct fp_run *r, size_t in, struct err *e)
{
	struct paired_data *d = &r->pd[in];

	for (size_t c = 0; c < d->ncells; c++) {
		struct paired_cell *cell = &d->cells[c];
		struct fp_fam *f = fam_of(r, d->sp.families[cell->fam], cell->rep, in, e);
		struct paired_sums t;
		if (f == NULL)
			return -1;
		if (mem_grow((void **)&f->cells, &f->ccells, f->ncells + 1, sizeof *f->cells) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		f->cells[f->ncells++] = c;
		paired_cell_total(d, cell, &t);
		f->ndec += (long)t.n;
	}
	for (size_t i = 0; i < r->nfam; i++) {
		struct fp_fam *f = &r->fam[i];
		for (size_t o = 0; f->in == in && o < d->nopen; o++) {
			int any = 0;
			for (size_t c = 0; c < f->ncells && !any; c++)
				any = d->cells[f->cells[c]].by_open[o].n > 0;
			if (any && unit_of(f, d->open[o], (long)o, 0) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
		}
	}
	return 0;
}

/* One game as read, before the units' sums are laid out. */
struct game {
	size_t fam, unit;
	long key;   /* its (width, anchor, colour), -1 outside the widths */
	long width; /* index, -1 outside the widths */
	int result; /* 0 win, 1 draw, 2 loss */
	double tok, wall, hours;
};

struct games {
	struct game *g;
	size_t n, cap;
};

static long
key_of(struct fp_fam *f, long width, double anchor, int black)
{
	for (size_t k = 0; k < f->nkeys; k++)
		if (f->kwidth[k] == width && f->kanchor[k] == anchor && f->kblack[k] == black)
			return (long)k;
	size_t c1 = f->ckeys, c2 = f->ckeys;
	if (mem_grow((void **)&f->kwidth, &f->ckeys, f->nkeys + 1, sizeof *f->kwidth) < 0 ||
	    mem_grow((void **)&f->kblack, &c1, f->nkeys + 1, sizeof *f->kblack) < 0 ||
	    mem_grow((void **)&f->kanchor, &c2, f->nkeys + 1, sizeof *f->kanchor) < 0)
		return -1;
	f->kwidth[f->nkeys] = (int)width;
	f->kblack[f->nkeys] = black;
	f->kanchor[f->nkeys] = anchor;
	return (long)f->nkeys++;
}

/* The replication of a game without one: its family's only one among
 * the freeze's decisions. */
static const char *
only_replication(const struct fp_run *r, size_t in, const char *fam)
{
	const char *rep = NULL;

	for (size_t i = 0; i < r->nfam; i++)
		if (r->fam[i].in == in && strcmp(r->fam[i].family, fam) == 0) {
			if (rep != NULL)
				return NULL;
			rep = r->fam[i].replication;
		}
	return rep;
}

static double
num(const cJSON *o, const char *k)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* One game of the freeze (entry) and its stored record (rec). */
static int
add_game(struct fp_run *r, size_t in, const cJSON *entry, const cJSON *rec, struct games *G,
    struct err *e)
{
	const char *fam, *cond, *color, *result, *gid, *open = NULL, *rep = NULL;
	struct decision_cond dc;
	double anchor;
	struct game g = { 0 };
	struct fp_fam *f;
	long u;

	if (json_get_string(entry, "family", 1, &fam, e) < 0 ||
	    json_get_string(entry, "condition", 1, &cond, e) < 0 ||
	    json_get_string(entry, "color", 1, &color, e) < 0 ||
	    json_get_string(entry, "result", 1, &result, e) < 0 ||
	    json_get_string(entry, "game_id", 1, &gid, e) < 0 ||
	    json_get_number(entry, "anchor", 1, &anchor, e) < 0 ||
	    json_get_string(rec, "opening", 1, &open, e) < 0 ||
	    json_get_string(rec, "replication", 0, &rep, e) < 0)
		return err_prefix(e, "%s: game %.80s", r->in[in].name, cJSON_IsString(json_get(entry,
		    "game_id")) ? json_get(entry, "game_id")->valuestring : "?");
	/* a split's games: those of an opening whose positions lie in it */
	if (r->o->split >= 0 && (!r->has_dec[in] || opening_split(&r->pd[in].cand, open) !=
	    r->o->split)) {
		r->games_outside++;
		return 0;
	}
	if (rep == NULL && (rep = only_replication(r, in, fam)) == NULL)
		return err_set(e, ERR_INPUT, "%s: game %.80s: no \"replication\", and family %.80s has "
		    "not exactly one replication among the freeze's decisions", r->in[in].name, gid, fam);
	if ((f = fam_of(r, fam, rep, in, e)) == NULL)
		return -1;
	g.fam = (size_t)(f - r->fam);
	g.width = -1;
	if (decision_cond_parse(cond, &dc) == 0 && (dc.kind == DK_NONE || dc.kind == DK_TOP))
		for (size_t w = 0; w < r->nwidths; w++)
			if (r->widths[w] == (dc.kind == DK_NONE ? 0 : dc.k))
				g.width = (long)w;
	g.key = g.width < 0 ? -1 : key_of(f, g.width, anchor, strcmp(color, "black") == 0);
	g.result = result[0] == 'w' ? 0 : result[0] == 'd' ? 1 : 2;
	const cJSON *tok = json_get(rec, "tokens");
	g.tok = num(tok, "input") + num(tok, "output") + num(tok, "reasoning");
	g.wall = num(rec, "wall_s");
	g.hours = num(rec, "worker_hours");
	u = r->by_position ? unit_of(f, gid, -1, 0) : unit_of(f, open, -1, 1);
	if (u < 0 || (g.width >= 0 && g.key < 0) ||
	    mem_grow((void **)&G->g, &G->cap, G->n + 1, sizeof *G->g) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	g.unit = (size_t)u;
	G->g[G->n++] = g;
	f->ngames++;
	return 0;
}

static int
read_games(struct fp_run *r, size_t in, struct games *G, struct err *e)
{
	struct cas *store = NULL;
	const cJSON *entry;
	int rc = 0;

	if (json_get(r->in[in].freeze, "games") == NULL)
		return 0;
	if (cas_open(r->in[in].store_dir, 0, &store, e) < 0)
		return err_prefix(e, "%s", r->in[in].name);
	cJSON_ArrayForEach(entry, json_get(r->in[in].freeze, "games")) {
		const char *idtext, *p;
		uint8_t dg[HASH_LEN];
		size_t n;
		cJSON *rec;
		if (json_get_string(entry, "id", 1, &idtext, e) < 0 || hash_id_parse(idtext, dg) < 0) {
			rc = err_set(e, ERR_INPUT, "%s: \"games\": an entry without an identity",
			    r->in[in].name);
			break;
		}
		if ((rc = cas_get(store, dg, &p, &n, e)) != 0) {
			if (rc > 0)
				err_set(e, ERR_INPUT, "%s: game record %s is not in the store %s",
				    r->in[in].name, idtext, r->in[in].store_dir);
			rc = -1;
			break;
		}
		if ((rec = json_parse(p, n, "stored game", 1, e)) == NULL) {
			rc = -1;
			break;
		}
		rc = add_game(r, in, entry, rec, G, e);
		cJSON_Delete(rec);
		if (rc < 0)
			break;
	}
	cas_free(store);
	return rc;
}

/* The games' sums laid out per unit. */
static int
lay_out_games(struct fp_run *r, const struct games *G, struct err *e)
{
	size_t nw = r->nwidths;

	for (size_t i = 0; i < r->nfam; i++) {
		struct fp_fam *f = &r->fam[i];
		f->gk = calloc(f->nunits * f->nkeys * 3 + 1, sizeof *f->gk);
		f->gw = calloc(f->nunits * (nw + 1) * 4 + 1, sizeof *f->gw);
		if (f->gk == NULL || f->gw == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < G->n; i++) {
		const struct game *g = &G->g[i];
		struct fp_fam *f = &r->fam[g->fam];
		double *w = &f->gw[g->unit * (nw + 1) * 4];
		if (g->key >= 0)
			f->gk[(g->unit * f->nkeys + (size_t)g->key) * 3 + (size_t)g->result]++;
		if (g->width >= 0) {
			w[4 * g->width]++;
			w[4 * g->width + 1] += g->tok;
		}
		w[4 * nw]++;
		w[4 * nw + 1] += g->tok;
		w[4 * nw + 2] += g->wall;
		w[4 * nw + 3] += g->hours;
	}
	return 0;
}

static void
fam_release(struct fp_fam *f)
{
	for (size_t u = 0; u < f->nunits; u++)
		free(f->unit[u]);
	free(f->unit);
	free(f->dblock);
	free(f->family);
	free(f->replication);
	free(f->cells);
	free(f->gk);
	free(f->gw);
	free(f->pack);
	free(f->kwidth);
	free(f->kblack);
	free(f->kanchor);
}

void
fp_run_free(struct fp_run *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nin; i++)
		paired_data_release(&r->pd[i]);
	for (size_t i = 0; i < r->nfam; i++)
		fam_release(&r->fam[i]);
	free(r->pd);
	free(r->has_dec);
	free(r->ids);
	free(r->fam);
	free(r->feat);
	free(r->est);
	free(r->why);
	free(r->rows);
	free(r);
}

static int
cmp_fam(const void *a, const void *b)
{
	const struct fp_fam *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	return c ? c : strcmp(x->replication, y->replication);
}

/* The penalty of each fingerprint's games: its freeze's spec's. */
static int
penalties(struct fp_run *r, struct err *e)
{
	for (size_t i = 0; i < r->nin; i++) {
		struct spec sp = SPEC_INIT;
		if (spec_read(json_get(r->in[i].freeze, "spec"), &sp, e) < 0)
			return err_prefix(e, "%s: \"spec\"", r->in[i].name);
		for (size_t f = 0; f < r->nfam; f++)
			if (r->fam[f].in == i)
				r->fam[f].penalty = sp.black_penalty;
		spec_release(&sp);
	}
	return 0;
}

static int
estimates(struct fp_run *r, struct err *e)
{
	size_t nu = 0;
	uint32_t *m;

	for (size_t f = 0; f < r->nfam; f++)
		nu = nu > r->fam[f].nunits ? nu : r->fam[f].nunits;
	r->est = calloc(r->nfam * r->nfeat + 1, sizeof *r->est);
	r->why = calloc(r->nfam * r->nfeat + 1, sizeof *r->why);
	m = malloc((nu + 1) * sizeof *m);
	if (r->est == NULL || r->why == NULL || m == NULL) {
		free(m);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t u = 0; u < nu; u++)
		m[u] = 1;
	for (size_t f = 0; f < r->nfam; f++)
		if (fp_values(r, f, m, &r->est[f * r->nfeat], &r->why[f * r->nfeat], e) < 0) {
			free(m);
			return -1;
		}
	free(m);
	return 0;
}

static int
read_all(struct fp_run *r, struct err *e)
{
	struct games G = { 0 };
	int rc = 0;

	for (size_t i = 0; i < r->nin && rc == 0; i++) {
		r->has_dec[i] = json_get(r->in[i].freeze, "decisions") != NULL;
		if (r->has_dec[i] && paired_collect_ids(r->in[i].freeze, r->in[i].ids,
		    r->in[i].store_dir, r->in[i].name, r->pr->blunder_cp, r->by_position, r->o->jobs,
		    r->o->split, &r->pd[i], e) < 0)
			rc = -1;
		if (rc == 0)
			rc = add_decisions(r, i, e);
	}
	for (size_t i = 0; i < r->nin && rc == 0; i++)
		rc = read_games(r, i, &G, e);
	if (rc == 0)
		rc = lay_out_games(r, &G, e);
	free(G.g);
	if (rc == 0 && r->nfam == 0)
		rc = err_set(e, ERR_INPUT, "%s: no decisions and no games: nothing to fingerprint",
		    r->in[0].name);
	if (rc == 0) {
		qsort(r->fam, r->nfam, sizeof *r->fam, cmp_fam);
		rc = penalties(r, e);
	}
	for (size_t f = 0; rc == 0 && f < r->nfam; f++)
		if (r->has_dec[r->fam[f].in])
			rc = fp_pack_units(r, &r->fam[f], e);
	return rc;
}

int
fp_run_new(const struct fp_input *in, size_t nin, const struct fp_opts *o, struct fp_run **out,
    struct err *e)
{
	struct fp_run *r = calloc(1, sizeof *r);

	*out = NULL;
	if (r == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	r->o = o;
	r->pr = o->pr;
	r->in = in;
	r->nin = nin;
	r->replicates = o->replicates >= 0 ? o->replicates : o->pr->replicates;
	r->seed = o->have_seed ? o->seed : o->pr->seed;
	r->by_position = strcmp(o->pr->unit, "position") == 0;
	r->widths = o->pr->widths;
	r->nwidths = o->pr->nwidths;
	r->pd = calloc(nin + 1, sizeof *r->pd);
	r->has_dec = calloc(nin + 1, sizeof *r->has_dec);
	r->ids = calloc(nin + 1, sizeof *r->ids);
	if (r->pd == NULL || r->has_dec == NULL || r->ids == NULL) {
		fp_run_free(r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < nin; i++)
		if (in[i].id != NULL)
			snprintf(r->ids[i], sizeof r->ids[i], "%s", in[i].id);
		else if (canon_id(in[i].freeze, r->ids[i], e) < 0) {
			fp_run_free(r);
			return -1;
		}
	if (nin == 0 || r->replicates > 1000000 || expand(r, e) < 0 || read_all(r, e) < 0 ||
	    estimates(r, e) < 0) {
		if (nin == 0)
			err_set(e, ERR_USAGE, "no freeze given");
		else if (r->replicates > 1000000)
			err_set(e, ERR_USAGE, "replicates: expected 0 to 1000000");
		fp_run_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* One replicate's rows: each fingerprint draws its units with
 * replacement from its own stream, replicate rep. */
struct rep_job {
	struct fp_run *r;
	int *failed;
};

static void
rep_one(void *arg, size_t i, int worker)
{
	struct rep_job *j = arg;
	struct fp_run *r = j->r;
	long rep = r->r0 + (long)i, span = r->r1 - r->r0;
	size_t nu = 1;
	struct err e = ERR_INIT;
	uint32_t *m;
	double *v = malloc((r->nfeat + 1) * sizeof *v);

	for (size_t f = 0; f < r->nfam; f++)
		nu = nu > r->fam[f].nunits ? nu : r->fam[f].nunits;
	m = malloc(nu * sizeof *m);
	if (m == NULL || v == NULL) {
		j->failed[i] = 1;
		goto done;
	}
	for (size_t f = 0; f < r->nfam; f++) {
		const struct fp_fam *fm = &r->fam[f];
		struct rng g = rng_stream(r->seed, fm->what, (uint64_t)rep);
		double *row = &r->rows[(f * (size_t)span + i) * r->nfeat];
		memset(m, 0, nu * sizeof *m);
		for (size_t k = 0; k < fm->nunits; k++)
			m[rng_below(&g, (uint32_t)fm->nunits)]++;
		if (fp_values(r, f, m, v, NULL, &e) < 0) {
			j->failed[i] = 1;
			goto done;
		}
		for (size_t k = 0; k < r->nfeat; k++)
			row[k] = isnan(v[k]) ? NAN : json_round(v[k], fp_defs[r->feat[k].base].step);
	}
done:
	free(m);
	free(v);
}

/* Replicates [r0, r1) into r->rows, on the pool's threads. */
int
fp_run_replicate(struct fp_run *r, long r0, long r1, struct err *e)
{
	size_t span = (size_t)(r1 - r0);
	int *failed = calloc(span + 1, sizeof *failed), threads;
	struct rep_job j = { r, failed };
	struct pool *p;

	free(r->rows);
	r->rows = malloc((r->nfam * span * r->nfeat + 1) * sizeof *r->rows);
	r->r0 = r0;
	r->r1 = r1;
	threads = (r->o->jobs > 0 ? r->o->jobs : pool_cpus()) - 1;
	if (failed == NULL || r->rows == NULL || (p = pool_new(threads < 0 ? 0 : threads)) == NULL) {
		free(failed);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	pool_run(p, span, rep_one, &j);
	pool_free(p);
	for (size_t i = 0; i < span; i++)
		if (failed[i]) {
			free(failed);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
	free(failed);
	return 0;
}
