/* collect.c: a freeze's decisions summed per cell and opening (collect.h). */
#define _GNU_SOURCE /* qsort_r */
#include "collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
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
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc;
	void *q;

	if (need <= *cap)
		return 0;
	for (nc = *cap ? *cap * 2 : 16; nc < need; nc *= 2)
		;
	if ((q = realloc(*p, nc * size)) == NULL)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
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

static struct paired_cell *
cell_of(struct paired_data *r, const struct decision *d, struct err *e)
{
	char key[1024];
	int n = snprintf(key, sizeof key, "%.250s%c%.250s%c%.250s%c%.250s", d->family, 0,
	    d->replication, 0, d->condition, 0, d->budget ? d->budget : "");
	struct paired_cell *c;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].keylen == (size_t)n + 1 &&
		    memcmp(r->cells[i].key, key, (size_t)n + 1) == 0)
			return &r->cells[i];
	if (grow((void **)&r->cells, &r->ccells, r->ncells + 1, sizeof *r->cells) < 0)
		goto nomem;
	c = &r->cells[r->ncells];
	memset(c, 0, sizeof *c);
	c->key = malloc((size_t)n + 1);
	c->by_open = calloc(r->nopen + 1, sizeof *c->by_open);
	if (c->key == NULL || c->by_open == NULL) {
		free(c->key);
		free(c->by_open);
		goto nomem;
	}
	memcpy(c->key, key, (size_t)n + 1);
	c->keylen = (size_t)n + 1;
	c->fam = (int)spec_family(&r->sp, d->family, strlen(d->family));
	c->rep = c->key + strlen(c->key) + 1;
	c->cond = c->rep + strlen(c->rep) + 1;
	c->budget = d->budget ? c->cond + strlen(c->cond) + 1 : NULL;
	c->dc = d->cond;
	c->first = r->ncells;
	r->ncells++;
	return c;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}

static int
same_move(struct chess_move a, struct chess_move b)
{
	return a.from == b.from && a.to == b.to && a.promo == b.promo;
}

static int
has(const struct chess_move *ms, size_t n, struct chess_move m)
{
	for (size_t i = 0; i < n; i++)
		if (same_move(ms[i], m))
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
static int
add_regret(struct paired_cell *c, struct paired_sums *s, const struct cand_position *p,
    const struct decision *d, const struct decision_moves *m, double blunder_cp, double *exact)
{
	int rank;
	const struct cand_move *ch = cand_score_of(p, m->chosen, &rank);
	double best = (double)cand_value(&p->cand[0]);

	*exact = NAN;
	s->blunder_n[p->phase]++;
	if (ch == NULL) {
		double bound = best - (double)cand_value(&p->cand[p->ncand - 1]);
		s->nbound++;
		s->outside++;
		s->blunder_k[p->phase] += bound >= blunder_cp;
		return 0;
	}
	*exact = best - (double)cand_value(ch);
	if (rank >= 0) {
		s->nrank++;
		s->rank += rank + 1;
	} else {
		s->outside++;
	}
	s->nreg++;
	s->reg += *exact;
	s->ctx_n[d->history]++;
	s->ctx_reg[d->history] += *exact;
	if (!ch->mate && !p->cand[0].mate) {
		s->nomate++;
		s->reg_nomate += *exact;
	}
	s->blunder_k[p->phase] += *exact >= blunder_cp;
	if (grow((void **)&c->regrets, &c->cregrets, c->nregrets + 1, sizeof *c->regrets) < 0)
		return -1;
	c->regrets[c->nregrets++] = *exact;
	return 0;
}

/* Coverage and value loss: the shortlist a condition gives. */
static void
add_shortlist(struct paired_sums *s, const struct cand_position *p, const struct decision *d,
    const struct decision_moves *m, double exact)
{
	int prop = d->cond.kind == DK_PROPOSE || d->cond.kind == DK_ENGINE_SELECTS;
	const struct chess_move *list = prop ? m->proposed : m->shown;
	size_t nl = prop ? m->nproposed : m->nshown;
	double bs;

	if (d->cond.kind == DK_NONE)
		return;
	s->ncov++;
	s->cov += has(list, nl, p->cand[0].m);
	if (isnan(exact) || isnan(bs = best_of(p, list, nl)))
		return;
	s->nvl++;
	s->vl += bs - ((double)cand_value(&p->cand[0]) - exact);
}

static int
add_decision(struct paired_data *r, const struct decision *d, size_t pi, double blunder_cp,
    struct err *e)
{
	const struct cand_position *p = &r->cand.p[pi];
	struct decision_moves m;
	const char *why = "";
	struct paired_cell *c = cell_of(r, d, e);
	struct paired_sums *s;
	double exact = NAN;

	if (c == NULL)
		return -1;
	if (decision_check(d, p, &m, &why) != 0)
		return err_set(e, ERR_INPUT, "decision %.80s: %s (the freeze should have left it out)",
		    d->decision_id, why);
	s = &c->by_open[r->open_of[pi]];
	s->n++;
	if (d->status != DS_PROVIDER_ERROR)
		s->status[d->status]++;
	if (d->failure != DF_NONE)
		s->failures[d->failure]++;
	s->tok += (double)(d->tok[0] + d->tok[1] + d->tok[2]);
	s->ctok += (double)(d->tok[1] + d->tok[2]);
	s->lat += d->latency_ms;
	s->retries += (double)d->retries;
	if (p->ncand > 0 && m.have_chosen) {
		s->recall += same_move(m.chosen, p->cand[0].m);
		if (add_regret(c, s, p, d, &m, blunder_cp, &exact) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (p->ncand > 0)
		add_shortlist(s, p, d, &m, exact);
	if (grow((void **)&c->ord, &c->cord, c->nord + 1, sizeof *c->ord) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	c->ord[c->nord++] = (struct paired_ord){ pi, d->history, d->order_seed,
		m.have_chosen ? m.chosen.from * 512 + m.chosen.to * 8 + m.chosen.promo : -1, exact,
		p->ncand > 0 && m.have_chosen && same_move(m.chosen, p->cand[0].m) };
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

static int
read_decisions(struct paired_data *r, const cJSON *sec, struct cas *store, const char *name,
    const char *store_dir, double blunder_cp, struct err *e)
{
	const cJSON *entry;

	cJSON_ArrayForEach(entry, json_get(sec, "included")) {
		const char *idtext, *p;
		uint8_t dg[HASH_LEN];
		size_t n;
		struct decision d;
		const struct cand_position *pos;
		cJSON *rec;
		int rc;

		if (json_get_string(entry, "id", 1, &idtext, e) < 0 || hash_id_parse(idtext, dg) < 0)
			return err_set(e, ERR_INPUT, "%s: \"decisions\": an entry without an identity", name);
		if ((rc = cas_get(store, dg, &p, &n, e)) != 0)
			return rc < 0 ? -1 : err_set(e, ERR_INPUT, "%s: decision record %s is not in the "
			    "store %s", name, idtext, store_dir);
		if ((rec = json_parse(p, n, "stored decision", 1, e)) == NULL)
			return -1;
		rc = decision_read(rec, &d, e);
		pos = rc == 0 ? cand_find(&r->cand, d.position_id) : NULL;
		if (rc == 0 && pos == NULL)
			rc = err_set(e, ERR_INPUT, "decision %.80s: position %.80s is not in the manifest",
			    d.decision_id, d.position_id);
		if (rc == 0 && r->only && (int)pos->split != r->only - 1) {
			cJSON_Delete(rec);
			continue;
		}
		if (rc == 0)
			rc = add_decision(r, &d, (size_t)(pos - r->cand.p), blunder_cp, e);
		cJSON_Delete(rec);
		if (rc < 0)
			return err_prefix(e, "%s", name);
	}
	return 0;
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
	return openings(r, by_position, e);
}

int
paired_collect(const cJSON *freeze, const char *store_dir, const char *name, double blunder_cp,
    struct paired_data *out, struct err *e)
{
	return paired_collect_by(freeze, store_dir, name, blunder_cp, 0, out, e);
}

int
paired_collect_by(const cJSON *freeze, const char *store_dir, const char *name, double blunder_cp,
    int by_position, struct paired_data *out, struct err *e)
{
	return paired_collect_split(freeze, store_dir, name, blunder_cp, by_position, -1, out, e);
}

int
paired_collect_split(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, int split, struct paired_data *out, struct err *e)
{
	struct cas *store = NULL;
	const cJSON *sec = NULL;
	int rc = -1;

	paired_data_release(out);
	out->only = split + 1;
	if (cas_open(store_dir, 0, &store, e) < 0)
		return -1;
	if (read_inputs(out, freeze, store, name, store_dir, by_position, &sec, e) == 0 &&
	    read_decisions(out, sec, store, name, store_dir, blunder_cp, e) == 0) {
		for (size_t i = 0; i < out->ncells; i++)
			order_stats(out, &out->cells[i]);
		rc = 0;
	}
	cas_free(store);
	if (rc < 0)
		paired_data_release(out);
	return rc;
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
