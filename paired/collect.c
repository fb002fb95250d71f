/* collect.c: a freeze's decisions summed per cell and opening (collect.h). */
#define _GNU_SOURCE /* qsort_r */
#include "collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/hash.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "../json/rec.h"
#include "../store/cas.h"

/* One decision's place among the order seeds of its position. */
struct paired_ord {
	size_t pos;
	int history;
	long long seed;
	int move;      /* from * 512 + to * 8 + promotion, or -1 for no move */
	double regret; /* NAN when not exact */
	int best;      /* the move is the best candidate */
};

double
paired_ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

void
paired_sums_add(struct paired_sums *t, const struct paired_sums *s)
{
	double *a = (double *)t;
	const double *b = (const double *)s;

	/* every member is a double: add them as an array */
	for (size_t i = 0; i < sizeof *t / sizeof(double); i++)
		a[i] += b[i];
}

void
paired_cell_total(const struct paired_data *d, const struct paired_cell *c, struct paired_sums *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < d->nopen; i++)
		paired_sums_add(t, &c->by_open[i]);
}

static int
openings(struct paired_data *r, int by_position, struct err *e)
{
	r->open = calloc(r->cand.n + 1, sizeof *r->open);
	r->open_of = calloc(r->cand.n + 1, sizeof *r->open_of);
	if (r->open == NULL || r->open_of == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; by_position && i < r->cand.n; i++) {
		r->open[i] = r->cand.p[i].id;
		r->open_of[i] = i;
	}
	if (by_position)
		r->nopen = r->cand.n;
	for (size_t i = 0; !by_position && i < r->cand.n; i++) {
		size_t k;
		for (k = 0; k < r->nopen && strcmp(r->open[k], r->cand.p[i].opening) != 0; k++)
			;
		if (k == r->nopen)
			r->open[r->nopen++] = r->cand.p[i].opening;
		r->open_of[i] = k;
	}
	return 0;
}

/* What one decision adds to its cell, worked out on any thread (the record
 * read, checked and scored), then added in the freeze's order, so that
 * every sum takes its terms in the same order on any number of threads. */
struct prep {
	size_t pi;                 /* its position in the manifest */
	size_t key, keylen;        /* its cell's key in its chunk's keys */
	int fam, has_budget;
	struct decision_cond dc;
	int status, failure, history;
	double tok, ctok, lat, retries;
	long long seed;
	int move;                  /* as struct paired_ord's */
	int scored;                /* 0 no regret, 1 a lower bound, 2 exact */
	double regret;             /* the bound or the exact regret */
	int rank;                  /* an exact one's rank among the candidates, or -1 */
	int nomate, recall;
	int shortlist;             /* 0 none, 1 coverage, 2 coverage and value loss */
	int cov;
	double vl;
};

/* The cells by key: open addressing, slots hold a cell's index + 1. */
struct cell_tab {
	size_t *slot, cap, n;
};

static uint64_t
key_hash(const char *k, size_t n)
{
	return hash_fnv(HASH_FNV_BASIS, k, n);
}

static int
tab_grow(struct cell_tab *t, const struct paired_data *r)
{
	size_t cap = t->cap ? 2 * t->cap : 64, *slot = calloc(cap, sizeof *slot);

	if (slot == NULL)
		return -1;
	for (size_t i = 0; i < r->ncells; i++) {
		size_t j = key_hash(r->cells[i].key, r->cells[i].keylen) & (cap - 1);
		while (slot[j] != 0)
			j = (j + 1) & (cap - 1);
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* The cell of key (n bytes, its last NUL included), made when first met. */
static struct paired_cell *
cell_of(struct paired_data *r, struct cell_tab *t, const char *key, size_t n,
    const struct prep *q, struct err *e)
{
	struct paired_cell *c;
	size_t j;

	if (2 * (r->ncells + 1) > t->cap && tab_grow(t, r) < 0)
		goto nomem;
	for (j = key_hash(key, n) & (t->cap - 1); t->slot[j] != 0; j = (j + 1) & (t->cap - 1)) {
		c = &r->cells[t->slot[j] - 1];
		if (c->keylen == n && memcmp(c->key, key, n) == 0)
			return c;
	}
	if (mem_grow((void **)&r->cells, &r->ccells, r->ncells + 1, sizeof *r->cells) < 0)
		goto nomem;
	c = &r->cells[r->ncells];
	memset(c, 0, sizeof *c);
	c->key = malloc(n);
	c->by_open = calloc(r->nopen + 1, sizeof *c->by_open);
	if (c->key == NULL || c->by_open == NULL) {
		free(c->key);
		free(c->by_open);
		goto nomem;
	}
	memcpy(c->key, key, n);
	c->keylen = n;
	c->fam = q->fam;
	c->rep = c->key + strlen(c->key) + 1;
	c->cond = c->rep + strlen(c->rep) + 1;
	c->budget = q->has_budget ? c->cond + strlen(c->cond) + 1 : NULL;
	c->dc = q->dc;
	c->first = r->ncells;
	t->slot[j] = ++r->ncells;
	return c;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}


static int
has(const struct chess_move *ms, size_t n, struct chess_move m)
{
	for (size_t i = 0; i < n; i++)
		if (chess_move_same(ms[i], m))
			return 1;
	return 0;
}

/* The best value among moves (all scored in p), or NAN. */
static double
best_of(const struct cand_position *p, const struct chess_move *ms, size_t n)
{
	double best = NAN;
	int rank;

	for (size_t i = 0; i < n; i++) {
		const struct cand_move *s = cand_score_of(p, ms[i], &rank);
		if (s == NULL)
			return NAN;
		if (isnan(best) || (double)cand_value(s) > best)
			best = (double)cand_value(s);
	}
	return best;
}

/* The chosen move's regret: exact, or a lower bound kept apart. */
static void
prep_regret(struct prep *q, const struct cand_position *p, const struct decision_moves *m)
{
	int rank;
	const struct cand_move *ch = cand_score_of(p, m->chosen, &rank);
	double best = (double)cand_value(&p->cand[0]);

	q->recall = chess_move_same(m->chosen, p->cand[0].m);
	if (ch == NULL) {
		q->scored = 1;
		q->regret = best - (double)cand_value(&p->cand[p->ncand - 1]);
		return;
	}
	q->scored = 2;
	q->regret = best - (double)cand_value(ch);
	q->rank = rank;
	q->nomate = !ch->mate && !p->cand[0].mate;
}

/* Coverage and value loss: the shortlist a condition gives. */
static void
prep_shortlist(struct prep *q, const struct cand_position *p, const struct decision *d,
    const struct decision_moves *m)
{
	int prop = d->cond.kind == DK_PROPOSE || d->cond.kind == DK_ENGINE_SELECTS;
	const struct chess_move *list = prop ? m->proposed : m->shown;
	size_t nl = prop ? m->nproposed : m->nshown;
	double bs;

	if (d->cond.kind == DK_NONE)
		return;
	q->shortlist = 1;
	q->cov = has(list, nl, p->cand[0].m);
	if (q->scored != 2 || isnan(bs = best_of(p, list, nl)))
		return;
	q->shortlist = 2;
	q->vl = bs - ((double)cand_value(&p->cand[0]) - q->regret);
}

/* d (at position pi of the manifest) as a struct prep, its cell's key
 * appended to keys. */
static int
prep_decision(const struct paired_data *r, const struct decision *d, size_t pi,
    struct prep *q, struct buf *keys, struct err *e)
{
	const struct cand_position *p = &r->cand.p[pi];
	struct decision_moves m;
	const char *why = "";
	char key[1024];
	int n = snprintf(key, sizeof key, "%.250s%c%.250s%c%.250s%c%.250s", d->family, 0,
	    d->replication, 0, d->condition, 0, d->budget ? d->budget : "");

	if (decision_check(d, p, &m, &why) != 0)
		return err_set(e, ERR_INPUT, "decision %.80s: %s (the freeze should have left it out)",
		    d->decision_id, why);
	memset(q, 0, sizeof *q);
	q->pi = pi;
	q->key = keys->len;
	q->keylen = (size_t)n + 1;
	if (buf_add(keys, key, q->keylen) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	q->fam = (int)spec_family(&r->sp, d->family, strlen(d->family));
	q->has_budget = d->budget != NULL;
	q->dc = d->cond;
	q->status = (int)d->status;
	q->failure = (int)d->failure;
	q->history = d->history;
	q->tok = (double)(d->tok[0] + d->tok[1] + d->tok[2]);
	q->ctok = (double)(d->tok[1] + d->tok[2]);
	q->lat = d->latency_ms;
	q->retries = (double)d->retries;
	q->seed = d->order_seed;
	q->move = m.have_chosen ? m.chosen.from * 512 + m.chosen.to * 8 + m.chosen.promo : -1;
	q->regret = NAN;
	if (p->ncand > 0 && m.have_chosen)
		prep_regret(q, p, &m);
	if (p->ncand > 0)
		prep_shortlist(q, p, d, &m);
	return 0;
}

/* The regret's part of q in its cell c and opening's sums s. */
static int
add_regret(struct paired_cell *c, struct paired_sums *s, const struct cand_position *p,
    const struct prep *q, double blunder_cp)
{
	s->recall += q->recall;
	s->blunder_n[p->phase]++;
	if (q->scored == 1) {
		s->nbound++;
		s->outside++;
		s->blunder_k[p->phase] += q->regret >= blunder_cp;
		return 0;
	}
	if (q->rank >= 0) {
		s->nrank++;
		s->rank += q->rank + 1;
	} else {
		s->outside++;
	}
	s->nreg++;
	s->reg += q->regret;
	s->ctx_n[q->history]++;
	s->ctx_reg[q->history] += q->regret;
	if (q->nomate) {
		s->nomate++;
		s->reg_nomate += q->regret;
	}
	s->blunder_k[p->phase] += q->regret >= blunder_cp;
	if (mem_grow((void **)&c->regrets, &c->cregrets, c->nregrets + 1, sizeof *c->regrets) < 0)
		return -1;
	c->regrets[c->nregrets++] = q->regret;
	return 0;
}

static int
add_decision(struct paired_data *r, struct cell_tab *t, const struct prep *q, const char *keys,
    double blunder_cp, struct err *e)
{
	const struct cand_position *p = &r->cand.p[q->pi];
	struct paired_cell *c = cell_of(r, t, keys + q->key, q->keylen, q, e);
	struct paired_sums *s;

	if (c == NULL)
		return -1;
	s = &c->by_open[r->open_of[q->pi]];
	s->n++;
	if (q->status != DS_PROVIDER_ERROR)
		s->status[q->status]++;
	if (q->failure != DF_NONE)
		s->failures[q->failure]++;
	s->tok += q->tok;
	s->ctok += q->ctok;
	s->lat += q->lat;
	s->retries += q->retries;
	if (q->scored && add_regret(c, s, p, q, blunder_cp) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (q->shortlist) {
		s->ncov++;
		s->cov += q->cov;
	}
	if (q->shortlist == 2) {
		s->nvl++;
		s->vl += q->vl;
	}
	if (mem_grow((void **)&c->ord, &c->cord, c->nord + 1, sizeof *c->ord) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	c->ord[c->nord++] = (struct paired_ord){ q->pi, q->history, q->seed, q->move,
		q->scored == 2 ? q->regret : NAN, q->recall };
	return 0;
}
static int
cmp_ord(const void *a, const void *b)
{
	const struct paired_ord *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->history != y->history)
		return x->history - y->history;
	return (x->seed > y->seed) - (x->seed < y->seed);
}

/* Order stability, per position and context, into its opening's sums:
 * every pair of decisions from two order seeds, and the sample variance
 * of exact regret across the seeds (Welford). */
static void
order_stats(struct paired_data *r, struct paired_cell *c)
{
	qsort(c->ord, c->nord, sizeof *c->ord, cmp_ord);
	for (size_t i = 0; i < c->nord;) {
		size_t j = i;
		double m = 0, q = 0;
		long k = 0;
		struct paired_sums *s = &c->by_open[r->open_of[c->ord[i].pos]];
		while (j < c->nord && c->ord[j].pos == c->ord[i].pos &&
		    c->ord[j].history == c->ord[i].history)
			j++;
		for (size_t a = i; a < j; a++) {
			for (size_t b = a + 1; b < j; b++)
				if (c->ord[a].seed != c->ord[b].seed) {
					s->pairs++;
					s->differ += c->ord[a].move != c->ord[b].move;
				}
			if (!isnan(c->ord[a].regret)) {
				double dlt = c->ord[a].regret - m;
				m += dlt / (double)++k;
				q += dlt * (c->ord[a].regret - m);
			}
		}
		if (c->ord[i].seed != c->ord[j - 1].seed) {
			s->groups++;
			if (k >= 2) {
				s->var += q / (double)(k - 1);
				s->nvar++;
			}
		}
		i = j;
	}
}

/* Decisions are read in windows of chunks: the chunks of a window on the
 * pool's threads (each record fetched, parsed, checked and scored), then
 * added to their cells in order on the caller. */
#define CHUNK 1024
#define WINDOW 64

struct chunk {
	struct prep q[CHUNK];
	size_t n;                  /* preps made */
	struct buf keys;
	int rc;                    /* -1: e holds the error after the n made */
	struct err e;
};

struct reader {
	struct paired_data *r;
	const cJSON **entry;
	size_t nentry, base;       /* base: the window's first entry */
	struct cas *store;
	const char *name, *store_dir;
	struct chunk *ch;          /* WINDOW of them */
	struct decision_flat *w;   /* one a pool worker: its flat reader */
	int nw;
	const struct paired_ids *ids; /* the entries' identities, read without a tree, or NULL */
};

/* A stored record, which is canonical, into d: the flat way when it can
 * (rec_check), else its tree into *tree. */
static int
read_record(struct decision_flat *w, const char *p, size_t n, struct decision *d, cJSON **tree,
    struct err *e)
{
	int rc = rec_check(w->rs, p, n) == REC_OK ? decision_read_flat(w, w->rs, d) : 1;

	*tree = NULL;
	if (rc <= 0)
		return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	if ((*tree = json_parse(p, n, "stored decision", 1, e)) == NULL)
		return -1;
	return decision_read(*tree, d, e);
}

/* One record into q (1: of another split than the one kept, left out);
 * the error as read_decisions always worded it. */
static int
read_one(const struct reader *x, struct decision_flat *w, size_t i, struct prep *q,
    struct buf *keys, struct err *e)
{
	const char *p, *idtext = NULL;
	char shown[HASH_ID_LEN + 1];
	uint8_t dg[HASH_LEN];
	size_t n;
	struct decision d;
	const struct cand_position *pos;
	cJSON *rec;
	int rc;

	if (x->ids != NULL)
		memcpy(dg, x->ids->d[i], HASH_LEN);
	else if (json_get_string(x->entry[i], "id", 1, &idtext, e) < 0 ||
	    hash_id_parse(idtext, dg) < 0)
		return err_set(e, ERR_INPUT, "%s: \"decisions\": an entry without an identity",
		    x->name);
	if ((rc = cas_get(x->store, dg, &p, &n, e)) != 0) {
		if (rc < 0)
			return -1;
		/* the entry's text as written, or the identity read without it */
		if (idtext == NULL)
			hash_id_format(dg, shown);
		return err_set(e, ERR_INPUT, "%s: decision record %s is not in the store %s",
		    x->name, idtext ? idtext : shown, x->store_dir);
	}
	rc = read_record(w, p, n, &d, &rec, e);
	if (rc < 0 && rec == NULL)
		return -1;
	pos = rc == 0 ? cand_find(&x->r->cand, d.position_id) : NULL;
	if (rc == 0 && pos == NULL)
		rc = err_set(e, ERR_INPUT, "decision %.80s: position %.80s is not in the manifest",
		    d.decision_id, d.position_id);
	/* a split's decisions only: another split's is read and left out (1) */
	if (rc == 0 && x->r->only && (int)pos->split != x->r->only - 1) {
		cJSON_Delete(rec);
		return 1;
	}
	if (rc == 0)
		rc = prep_decision(x->r, &d, (size_t)(pos - x->r->cand.p), q, keys, e);
	cJSON_Delete(rec);
	return rc < 0 ? err_prefix(e, "%s", x->name) : 0;
}

static void
read_chunk(void *arg, size_t k, int worker)
{
	const struct reader *x = arg;
	struct chunk *c = &x->ch[k];
	size_t lo = x->base + k * CHUNK, hi = lo + CHUNK < x->nentry ? lo + CHUNK : x->nentry;

	buf_reset(&c->keys);
	c->n = 0;
	c->rc = 0;
	for (size_t i = lo; i < hi; i++) {
		int rc = read_one(x, &x->w[worker], i, &c->q[c->n], &c->keys, &c->e);
		if (rc < 0) {
			c->rc = -1;
			return;
		}
		c->n += rc == 0;
	}
}

static int
read_windows(struct reader *x, struct pool *pool, double blunder_cp, struct err *e)
{
	struct cell_tab t = { NULL, 0, 0 };
	int rc = 0;

	for (x->base = 0; rc == 0 && x->base < x->nentry; x->base += (size_t)CHUNK * WINDOW) {
		size_t left = x->nentry - x->base, nch = (left + CHUNK - 1) / CHUNK;
		pool_run(pool, nch < WINDOW ? nch : WINDOW, read_chunk, x);
		for (size_t k = 0; rc == 0 && k < WINDOW && k < nch; k++) {
			struct chunk *c = &x->ch[k];
			for (size_t i = 0; rc == 0 && i < c->n; i++)
				rc = add_decision(x->r, &t, &c->q[i], c->keys.p, blunder_cp, e);
			if (rc == 0 && c->rc < 0) {
				*e = c->e;
				rc = -1;
			}
		}
	}
	free(t.slot);
	return rc;
}

static int
workers_new(struct reader *x, int n)
{
	if ((x->w = calloc((size_t)n, sizeof *x->w)) == NULL)
		return -1;
	for (x->nw = 0; x->nw < n; x->nw++)
		if (decision_flat_init(&x->w[x->nw]) < 0) {
			x->nw++;
			return -1;
		}
	return 0;
}

static void
workers_free(struct reader *x)
{
	for (int i = 0; i < x->nw; i++)
		decision_flat_release(&x->w[i]);
	free(x->w);
}

static int
read_decisions(struct paired_data *r, const cJSON *sec, const struct paired_ids *ids,
    struct cas *store, const char *name, const char *store_dir, double blunder_cp, int jobs,
    struct err *e)
{
	struct reader x = { r, NULL, 0, 0, store, name, store_dir, NULL, NULL, 0, ids };
	const cJSON *inc = json_get(sec, "included"), *entry;
	struct pool *pool = NULL;
	int rc = -1, threads = (jobs > 0 ? jobs : pool_cpus()) - 1;

	x.nentry = ids ? 0 : (size_t)cJSON_GetArraySize(inc);
	x.entry = malloc((x.nentry + 1) * sizeof *x.entry);
	x.ch = calloc(WINDOW, sizeof *x.ch);
	if (x.entry == NULL || x.ch == NULL ||
	    (pool = pool_new(threads < 0 ? 0 : threads)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (workers_new(&x, pool_workers(pool)) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	x.nentry = 0;
	if (ids == NULL)
		cJSON_ArrayForEach(entry, inc)
			x.entry[x.nentry++] = entry;
	else
		x.nentry = ids->n;
	rc = read_windows(&x, pool, blunder_cp, e);
done:
	pool_free(pool);
	workers_free(&x);
	for (size_t k = 0; x.ch != NULL && k < WINDOW; k++)
		buf_release(&x.ch[k].keys);
	free(x.ch);
	free(x.entry);
	return rc;
}
/* The freeze's spec, its decisions section and candidate manifest. */
static int
read_inputs(struct paired_data *r, const cJSON *freeze, struct cas *store, const char *name,
    const char *store_dir, int by_position, const cJSON **sec, struct err *e)
{
	const char *cid, *p;
	uint8_t d[HASH_LEN];
	size_t n;
	int rc;

	if (spec_read(json_get(freeze, "spec"), &r->sp, e) < 0)
		return err_prefix(e, "%s: \"spec\"", name);
	if ((*sec = json_get(freeze, "decisions")) == NULL)
		return err_set(e, ERR_INPUT, "%s: the freeze holds no decisions (freeze with "
		    "--candidates and --decisions)", name);
	if (json_get_string(*sec, "candidates", 1, &cid, e) < 0 || hash_id_parse(cid, d) < 0)
		return err_set(e, ERR_INPUT, "%s: \"decisions\": \"candidates\": expected an identity",
		    name);
	if ((rc = cas_get(store, d, &p, &n, e)) != 0)
		return rc < 0 ? -1 : err_set(e, ERR_INPUT, "%s: the candidate manifest %s is not in the "
		    "store %s", name, cid, store_dir);
	if (cand_read_bytes(p, n, "stored candidate manifest", &r->cand, e) < 0)
		return -1;
	if (strcmp(r->cand.id, cid) != 0)
		return err_set(e, ERR_INPUT, "%s: the stored candidate manifest is not %s", name, cid);
	/* the file another tool wrote, by its own SHA-256, as the freeze
	 * recorded it (a prereg may name the manifest so) */
	if (json_get_string(*sec, "candidates_file", 0, &cid, e) < 0 || (cid != NULL &&
	    (hash_id_parse(cid, d) < 0 || strlen(cid) >= sizeof r->cand.file_id)))
		return err_set(e, ERR_INPUT, "%s: \"decisions\": \"candidates_file\": expected an "
		    "identity", name);
	if (cid != NULL)
		memcpy(r->cand.file_id, cid, strlen(cid) + 1);
	return openings(r, by_position, e);
}

int
paired_collect(const cJSON *freeze, const char *store_dir, const char *name, double blunder_cp,
    struct paired_data *out, struct err *e)
{
	return paired_collect_jobs(freeze, store_dir, name, blunder_cp, 0, 0, out, e);
}

int
paired_collect_by(const cJSON *freeze, const char *store_dir, const char *name, double blunder_cp,
    int by_position, struct paired_data *out, struct err *e)
{
	return paired_collect_jobs(freeze, store_dir, name, blunder_cp, by_position, 0, out, e);
}

int
paired_collect_jobs(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, int jobs, struct paired_data *out, struct err *e)
{
	return paired_collect_split(freeze, store_dir, name, blunder_cp, by_position, jobs, -1, out,
	    e);
}

static int
collect(const cJSON *freeze, const struct paired_ids *ids, const char *store_dir,
    const char *name, double blunder_cp, int by_position, int jobs, int split,
    struct paired_data *out, struct err *e)
{
	struct cas *store = NULL;
	const cJSON *sec = NULL;
	int rc = -1;

	paired_data_release(out);
	out->only = split + 1;
	if (cas_open(store_dir, 0, &store, e) < 0)
		return -1;
	if (read_inputs(out, freeze, store, name, store_dir, by_position, &sec, e) == 0 &&
	    read_decisions(out, sec, ids, store, name, store_dir, blunder_cp, jobs, e) == 0) {
		for (size_t i = 0; i < out->ncells; i++)
			order_stats(out, &out->cells[i]);
		rc = 0;
	}
	cas_free(store);
	if (rc < 0)
		paired_data_release(out);
	return rc;
}

int
paired_collect_split(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, int jobs, int split, struct paired_data *out,
    struct err *e)
{
	return collect(freeze, NULL, store_dir, name, blunder_cp, by_position, jobs, split, out, e);
}

int
paired_collect_ids(const cJSON *freeze, const struct paired_ids *ids, const char *store_dir,
    const char *name, double blunder_cp, int by_position, int jobs, int split,
    struct paired_data *out, struct err *e)
{
	return collect(freeze, ids, store_dir, name, blunder_cp, by_position, jobs, split, out, e);
}

/* ---- a freeze read without its included decisions' tree ---- */

void
paired_ids_release(struct paired_ids *ids)
{
	free(ids->d);
	*ids = (struct paired_ids)PAIRED_IDS_INIT;
}

struct ids_rd {
	struct paired_ids *ids;
	const char *name;
	int want, have; /* the next value is an "id"; the element had one */
};

static int
no_id(const struct ids_rd *s, struct err *e)
{
	return err_set(e, ERR_INPUT, "%s: \"decisions\": an entry without an identity", s->name);
}

/* An element of "included": an object whose "id" is an identity. */
static int
ids_tok(void *arg, const struct json_tok *t, int depth, struct err *e)
{
	struct ids_rd *s = arg;
	struct paired_ids *ids = s->ids;
	char text[HASH_ID_LEN + 1];

	if (depth == 1) {
		if (t->type == JSON_OBJECT)
			return s->have = 0, 0;
		return t->type == JSON_OBJECT_END && s->have ? 0 : no_id(s, e);
	}
	if (depth != 2)
		return 0;
	if (t->type == JSON_KEY)
		return s->want = t->len == 2 && memcmp(t->s, "id", 2) == 0, 0;
	if (!s->want)
		return 0;
	s->want = 0;
	if (t->type != JSON_STRING || t->len != HASH_ID_LEN)
		return no_id(s, e);
	memcpy(text, t->s, HASH_ID_LEN);
	text[HASH_ID_LEN] = '\0';
	if (ids->n == ids->cap && mem_grow((void **)&ids->d, &ids->cap, ids->n + 1, sizeof *ids->d) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (hash_id_parse(text, ids->d[ids->n]) < 0)
		return no_id(s, e);
	ids->n++;
	s->have = 1;
	return 0;
}

cJSON *
paired_freeze_read(const char *path, struct paired_ids *ids, char id[HASH_ID_LEN + 1], int jobs,
    struct err *e)
{
	struct ids_rd s = { ids, io_name(path), 0, 0 };
	const struct json_skip skip = { { "decisions", "included" }, ids_tok, &s, 1, NULL, NULL };
	cJSON *tree;
	const cJSON *inc;

	paired_ids_release(ids);
	if ((tree = json_parse_file_id(path, &skip, id, jobs != 1, e)) == NULL)
		return NULL;
	/* an "included" of another type was built, and holds no identities */
	inc = json_get(json_get(tree, "decisions"), "included");
	if (inc != NULL && !cJSON_IsArray(inc)) {
		err_set(e, ERR_INPUT, "%s: \"decisions\": \"included\": expected an array", s.name);
		cJSON_Delete(tree);
		return NULL;
	}
	return tree;
}

void
paired_data_release(struct paired_data *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->ncells; i++) {
		free(d->cells[i].key);
		free(d->cells[i].regrets);
		free(d->cells[i].by_open);
		free(d->cells[i].ord);
	}
	free(d->cells);
	free(d->open);
	free(d->open_of);
	cand_release(&d->cand);
	spec_release(&d->sp);
	memset(d, 0, sizeof *d);
}

static int
cmp_seed(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The level of a factor a decision falls in, as PL_* with the seed's
 * place among seeds[0..ns) for the order. */
static size_t
seed_level(const long long *seeds, size_t ns, long long s)
{
	const long long *at = bsearch(&s, seeds, ns, sizeof *seeds, cmp_seed);

	return PL_SEED + (size_t)(at - seeds);
}

static void
level_add(struct paired_level *l, const struct paired_ord *o)
{
	l->n++;
	l->recall += o->best;
	if (!isnan(o->regret)) {
		l->nreg++;
		l->reg += o->regret;
	}
}

/* Decisions i..j-1 of c->ord (sorted by position, context and seed, as
 * order_stats leaves them) are one position and context: *j set; 1 when
 * they span two order seeds or more. */
static int
group_of(const struct paired_cell *c, size_t i, size_t *j)
{
	size_t k = i;

	while (k < c->nord && c->ord[k].pos == c->ord[i].pos && c->ord[k].history == c->ord[i].history)
		k++;
	*j = k;
	return c->ord[i].seed != c->ord[k - 1].seed;
}

int
paired_cell_levels(const struct paired_data *d, const struct paired_cell *c,
    struct paired_levels *out)
{
	long long *s = malloc((c->nord + 1) * sizeof *s);
	size_t ns = 0, nl, j;

	memset(out, 0, sizeof *out);
	if (s == NULL)
		return -1;
	/* the order's levels: the seeds of the positions and contexts shown
	 * under two seeds or more, so that the levels differ by order alone */
	for (size_t i = 0; i < c->nord; i = j)
		if (group_of(c, i, &j))
			for (size_t k = i; k < j; k++)
				s[ns++] = c->ord[k].seed;
	qsort(s, ns, sizeof *s, cmp_seed);
	nl = ns;
	ns = 0;
	for (size_t i = 0; i < nl; i++)
		if (ns == 0 || s[ns - 1] != s[i])
			s[ns++] = s[i];
	nl = PL_SEED + ns;
	out->seeds = s;
	out->nseeds = ns;
	out->nlevels = nl;
	if ((out->by_open = calloc(d->nopen * nl + 1, sizeof *out->by_open)) == NULL) {
		paired_levels_release(out);
		return -1;
	}
	for (size_t i = 0; i < c->nord; i = j) {
		int multi = group_of(c, i, &j);
		for (size_t k = i; k < j; k++) {
			const struct paired_ord *o = &c->ord[k];
			const struct cand_position *p = &d->cand.p[o->pos];
			struct paired_level *row = out->by_open + d->open_of[o->pos] * nl;
			level_add(&row[p->pos.side == CHESS_WHITE ? PL_WHITE : PL_BLACK], o);
			level_add(&row[PL_PHASE + (size_t)p->phase], o);
			level_add(&row[PL_KIND + (size_t)p->kind], o);
			if (multi)
				level_add(&row[seed_level(s, ns, o->seed)], o);
		}
	}
	return 0;
}

void
paired_levels_release(struct paired_levels *l)
{
	free(l->seeds);
	free(l->by_open);
	memset(l, 0, sizeof *l);
}
