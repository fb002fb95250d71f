/* paired.c: cohort.paired/1 from a freeze's decisions (paired.h). */
#define _GNU_SOURCE /* qsort_r */
#include "paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "../json/json.h"
#include "../protocol/candidates.h"
#include "../protocol/decision.h"
#include "../protocol/spec.h"
#include "../store/cas.h"

/* What the bootstrap resamples: a cell's sums over one opening's
 * decisions. */
struct sums {
	double n, recall;   /* decisions, best-move picks */
	double ncov, cov;   /* decisions with a shortlist, best move in it */
	double nreg, reg;   /* exact regrets and their sum */
	double nvl, vl;     /* value losses and their sum */
};

/* One decision's place among the order seeds. */
struct ord {
	size_t pos;
	int history;
	long long seed;
	int move;        /* from * 64 + to, with the promotion, or -1 */
	double regret;   /* NAN when not exact */
};

struct cell {
	char *key;                 /* family, replication, condition, budget, NUL-separated */
	int fam;                   /* the spec's index */
	const char *rep, *cond, *budget;
	struct decision_cond dc;
	long n, status[3], failures[DF_N];
	long nrank, outside, nbound, nomate;
	double rank, reg_nomate, tok, lat, retries;
	long blunder_n[3], blunder_k[3];
	double *regrets;           /* exact ones, for the median */
	size_t nregrets, cregrets;
	struct sums *by_open;      /* per opening of the manifest */
	struct ord *ord;
	size_t nord, cord;
};

struct run {
	const struct paired_opts *o;
	struct spec sp;
	struct candidates cand;
	size_t nopen;
	const char **open;         /* the manifest's openings, in order of first position */
	size_t *open_of;           /* per position */
	struct cell *cells;
	size_t ncells, ccells;
};

void
paired_opts_init(struct paired_opts *o)
{
	memset(o, 0, sizeof *o);
	o->replicates = PAIRED_DEFAULT_REPLICATES;
	o->seed = 1;
	o->level = 0.95;
	o->blunder_cp = PAIRED_DEFAULT_BLUNDER_CP;
}

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static int
openings(struct run *r, struct err *e)
{
	r->open = calloc(r->cand.n + 1, sizeof *r->open);
	r->open_of = calloc(r->cand.n + 1, sizeof *r->open_of);
	if (r->open == NULL || r->open_of == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < r->cand.n; i++) {
		size_t k;
		for (k = 0; k < r->nopen && strcmp(r->open[k], r->cand.p[i].opening) != 0; k++)
			;
		if (k == r->nopen)
			r->open[r->nopen++] = r->cand.p[i].opening;
		r->open_of[i] = k;
	}
	return 0;
}

static struct cell *
cell_of(struct run *r, const struct decision *d, struct err *e)
{
	char key[1024];
	int n = snprintf(key, sizeof key, "%s%c%s%c%s%c%s", d->family, 0, d->replication, 0,
	    d->condition, 0, d->budget ? d->budget : "");
	struct cell *c;

	for (size_t i = 0; i < r->ncells; i++)
		if (memcmp(r->cells[i].key, key, (size_t)n + 1) == 0)
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
	c->fam = (int)spec_family(&r->sp, d->family, strlen(d->family));
	c->rep = c->key + strlen(d->family) + 1;
	c->cond = c->rep + strlen(d->replication) + 1;
	c->budget = d->budget ? c->cond + strlen(d->condition) + 1 : NULL;
	c->dc = d->cond;
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
		if (isnan(best) || cand_value(s) > best)
			best = (double)cand_value(s);
	}
	return best;
}

/* What one decision adds to its cell. */
static int
add_regret(struct run *r, struct cell *c, struct sums *s, const struct cand_position *p,
    const struct decision_moves *m, double *exact)
{
	const struct cand_move *ch;
	int rank;
	double best = (double)cand_value(&p->cand[0]);

	*exact = NAN;
	ch = cand_score_of(p, m->chosen, &rank);
	if (ch == NULL) {
		/* unscored: a lower bound, kept apart */
		double bound = best - (double)cand_value(&p->cand[p->ncand - 1]);
		c->nbound++;
		c->outside++;
		c->blunder_n[p->phase]++;
		c->blunder_k[p->phase] += bound >= r->o->blunder_cp;
		return 0;
	}
	*exact = best - (double)cand_value(ch);
	if (rank >= 0) {
		c->nrank++;
		c->rank += rank + 1;
	} else {
		c->outside++;
	}
	s->nreg++;
	s->reg += *exact;
	if (!ch->mate && !p->cand[0].mate) {
		c->nomate++;
		c->reg_nomate += *exact;
	}
	c->blunder_n[p->phase]++;
	c->blunder_k[p->phase] += *exact >= r->o->blunder_cp;
	if (grow((void **)&c->regrets, &c->cregrets, c->nregrets + 1, sizeof *c->regrets) < 0)
		return -1;
	c->regrets[c->nregrets++] = *exact;
	return 0;
}

static int
add_decision(struct run *r, const struct decision *d, size_t pi, struct err *e)
{
	const struct cand_position *p = &r->cand.p[pi];
	struct decision_moves m;
	const char *why = "";
	struct cell *c = cell_of(r, d, e);
	struct sums *s;
	double exact = NAN;

	if (c == NULL)
		return -1;
	if (decision_check(d, p, &m, &why) != 0)
		return err_set(e, ERR_INPUT, "decision %.80s: %s (the freeze should have left it out)",
		    d->decision_id, why);
	s = &c->by_open[r->open_of[pi]];
	c->n++;
	s->n++;
	if (d->status != DS_PROVIDER_ERROR)
		c->status[d->status]++;
	if (d->failure != DF_NONE)
		c->failures[d->failure]++;
	c->tok += (double)(d->tok[0] + d->tok[1] + d->tok[2]);
	c->lat += d->latency_ms;
	c->retries += (double)d->retries;
	if (p->ncand > 0 && (d->cond.kind != DK_NONE)) {
		const struct chess_move *list = d->cond.kind == DK_PROPOSE ||
		    d->cond.kind == DK_ENGINE_SELECTS ? m.proposed : m.shown;
		size_t nl = list == m.proposed ? m.nproposed : m.nshown;
		s->ncov++;
		s->cov += has(list, nl, p->cand[0].m);
	}
	if (p->ncand > 0 && m.have_chosen) {
		s->recall += same_move(m.chosen, p->cand[0].m);
		if (add_regret(r, c, s, p, &m, &exact) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (!isnan(exact) && d->cond.kind != DK_NONE) {
			double bs = d->cond.kind == DK_PROPOSE || d->cond.kind == DK_ENGINE_SELECTS ?
			    best_of(p, m.proposed, m.nproposed) : best_of(p, m.shown, m.nshown);
			if (!isnan(bs)) {
				s->nvl++;
				s->vl += bs - ((double)cand_value(&p->cand[0]) - exact);
			}
		}
	}
	if (grow((void **)&c->ord, &c->cord, c->nord + 1, sizeof *c->ord) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	c->ord[c->nord++] = (struct ord){ pi, d->history, d->order_seed,
		m.have_chosen ? m.chosen.from * 64 * 8 + m.chosen.to * 8 + m.chosen.promo : -1, exact };
	return 0;
}

/* Every included decision of the freeze, from the store. */
static int
read_decisions(struct run *r, const cJSON *sec, struct cas *store, struct err *e)
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
			return err_set(e, ERR_INPUT, "%s: \"decisions\": an entry without an identity",
			    r->o->name);
		if ((rc = cas_get(store, dg, &p, &n, e)) != 0)
			return rc < 0 ? -1 : err_set(e, ERR_INPUT, "%s: decision record %s is not in the "
			    "store %s", r->o->name, idtext, r->o->store_dir);
		if ((rec = json_parse(p, n, "stored decision", 1, e)) == NULL)
			return -1;
		rc = decision_read(rec, &d, e);
		pos = rc == 0 ? cand_find(&r->cand, d.position_id) : NULL;
		if (rc == 0 && pos == NULL)
			rc = err_set(e, ERR_INPUT, "decision %.80s: position %.80s is not in the manifest",
			    d.decision_id, d.position_id);
		if (rc == 0)
			rc = add_decision(r, &d, (size_t)(pos - r->cand.p), e);
		cJSON_Delete(rec);
		if (rc < 0)
			return err_prefix(e, "%s", r->o->name);
	}
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) by linear interpolation between order
 * statistics (Hyndman and Fan's type 7, R's default). */
static double
quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

enum { S_RECALL, S_COVERAGE, S_REGRET, S_VALUE_LOSS, NSTAT };

static double
stat(const struct sums *t, int k)
{
	switch (k) {
	case S_RECALL: return t->n > 0 ? t->recall / t->n : NAN;
	case S_COVERAGE: return t->ncov > 0 ? t->cov / t->ncov : NAN;
	case S_REGRET: return t->nreg > 0 ? t->reg / t->nreg : NAN;
	default: return t->nvl > 0 ? t->vl / t->nvl : NAN;
	}
}

/* The cell's openings with decisions (the bootstrap's blocks). */
static size_t
blocks_of(const struct run *r, const struct cell *c, size_t *blk)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nopen; i++)
		if (c->by_open[i].n > 0)
			blk[k++] = i;
	return k;
}

/* Percentile intervals of each statistic over replicates that resample
 * the cell's openings with replacement; a replicate whose statistic is
 * undefined (no such decision drawn) is left out of that statistic's. */
static int
bootstrap(const struct run *r, size_t ci, double lo[NSTAT], double hi[NSTAT])
{
	const struct cell *c = &r->cells[ci];
	size_t *blk = malloc((r->nopen + 1) * sizeof *blk), nb, got[NSTAT] = { 0 };
	double *v = malloc((size_t)(r->o->replicates + 1) * NSTAT * sizeof *v);
	double a = (1 - r->o->level) / 2;

	for (int k = 0; k < NSTAT; k++)
		lo[k] = hi[k] = NAN;
	if (blk == NULL || v == NULL) {
		free(blk);
		free(v);
		return -1;
	}
	nb = blocks_of(r, c, blk);
	for (long b = 0; nb >= 2 && b < r->o->replicates; b++) {
		struct rng g = rng_stream(r->o->seed, ci, (uint64_t)b);
		struct sums t = { 0 };
		for (size_t i = 0; i < nb; i++) {
			const struct sums *s = &c->by_open[blk[rng_below(&g, (uint32_t)nb)]];
			t.n += s->n, t.recall += s->recall, t.ncov += s->ncov, t.cov += s->cov;
			t.nreg += s->nreg, t.reg += s->reg, t.nvl += s->nvl, t.vl += s->vl;
		}
		for (int k = 0; k < NSTAT; k++) {
			double x = stat(&t, k);
			if (!isnan(x))
				v[(size_t)k * (size_t)r->o->replicates + got[k]++] = x;
		}
	}
	for (int k = 0; k < NSTAT; k++) {
		double *vk = v + (size_t)k * (size_t)r->o->replicates;
		if (got[k] == 0)
			continue;
		qsort(vk, got[k], sizeof *vk, cmp_double);
		lo[k] = quantile(vk, got[k], a);
		hi[k] = quantile(vk, got[k], 1 - a);
	}
	free(blk);
	free(v);
	return 0;
}

static int
cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->history != y->history)
		return x->history - y->history;
	return (x->seed > y->seed) - (x->seed < y->seed);
}

/* Order stability: among the decisions on one position in one context,
 * every pair from two order seeds: how often the chosen move differs; and
 * the sample variance of exact regret across the seeds, averaged over the
 * positions that have two. */
static void
order_stats(struct cell *c, long *groups, long *pairs, long *differ, double *var, long *nvar)
{
	*groups = *pairs = *differ = *nvar = 0;
	*var = 0;
	qsort(c->ord, c->nord, sizeof *c->ord, cmp_ord);
	for (size_t i = 0; i < c->nord;) {
		size_t j = i;
		double m = 0, s = 0;
		long k = 0;
		while (j < c->nord && c->ord[j].pos == c->ord[i].pos &&
		    c->ord[j].history == c->ord[i].history)
			j++;
		if (c->ord[i].seed != c->ord[j - 1].seed)
			(*groups)++;
		for (size_t a = i; a < j; a++) {
			for (size_t b = a + 1; b < j; b++)
				if (c->ord[a].seed != c->ord[b].seed) {
					(*pairs)++;
					*differ += c->ord[a].move != c->ord[b].move;
				}
			if (!isnan(c->ord[a].regret)) {
				/* Welford's running mean and sum of squares */
				double dlt = c->ord[a].regret - m;
				m += dlt / (double)++k;
				s += dlt * (c->ord[a].regret - m);
			}
		}
		if (k >= 2 && c->ord[i].seed != c->ord[j - 1].seed) {
			*var += s / (double)(k - 1);
			(*nvar)++;
		}
		i = j;
	}
}

struct bld {
	int oom;
};

static cJSON *
ok(struct bld *k, cJSON *x)
{
	if (x == NULL)
		k->oom = 1;
	return x;
}

static cJSON *
num_or_null(double x, double step)
{
	return isnan(x) ? cJSON_CreateNull() : cJSON_CreateNumber(json_round(x, step));
}

static void
put(struct bld *k, cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL || !cJSON_AddItemToObjectCS(o, key, v)) {
		cJSON_Delete(v);
		k->oom = 1;
	}
}

static cJSON *
interval(double lo, double hi, double step)
{
	cJSON *a;

	if (isnan(lo) || isnan(hi))
		return cJSON_CreateNull();
	a = cJSON_CreateArray();
	if (a != NULL) {
		cJSON_AddItemToArray(a, cJSON_CreateNumber(json_round(lo, step)));
		cJSON_AddItemToArray(a, cJSON_CreateNumber(json_round(hi, step)));
	}
	return a;
}

/* {estimate, interval} of a share, or null where it does not apply. */
static cJSON *
share(double est, double lo, double hi)
{
	cJSON *o;

	if (isnan(est))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (o != NULL) {
		cJSON_AddItemToObject(o, "estimate", cJSON_CreateNumber(json_round(est, 1e-6)));
		cJSON_AddItemToObject(o, "interval", interval(lo, hi, 1e-6));
	}
	return o;
}

static double
median(struct cell *c)
{
	if (c->nregrets == 0)
		return NAN;
	qsort(c->regrets, c->nregrets, sizeof *c->regrets, cmp_double);
	return quantile(c->regrets, c->nregrets, 0.5);
}

static cJSON *
regret_json(struct bld *k, struct cell *c, const struct sums *t, double lo, double hi)
{
	cJSON *o = ok(k, cJSON_CreateObject());

	if (o == NULL)
		return NULL;
	put(k, o, "n", cJSON_CreateNumber(t->nreg));
	put(k, o, "bounds", cJSON_CreateNumber((double)c->nbound));
	put(k, o, "mean", num_or_null(stat(t, S_REGRET), 0.01));
	put(k, o, "interval", interval(lo, hi, 0.01));
	put(k, o, "median", num_or_null(median(c), 0.01));
	put(k, o, "n_without_mates", cJSON_CreateNumber((double)c->nomate));
	put(k, o, "mean_without_mates",
	    num_or_null(c->nomate ? c->reg_nomate / (double)c->nomate : NAN, 0.01));
	return o;
}

static cJSON *
counts_json(struct bld *k, const long *v, const char *const *names, int n)
{
	cJSON *o = ok(k, cJSON_CreateObject());

	for (int i = 0; o && i < n; i++)
		put(k, o, names[i], cJSON_CreateNumber((double)v[i]));
	return o;
}

static cJSON *
cell_json(struct run *r, size_t ci, struct bld *k)
{
	struct cell *c = &r->cells[ci];
	struct sums t = { 0 };
	double lo[NSTAT], hi[NSTAT], var;
	long groups, pairs, differ, nvar;
	size_t *blk = malloc((r->nopen + 1) * sizeof *blk);
	cJSON *o = ok(k, cJSON_CreateObject()), *x;

	if (o == NULL || blk == NULL || bootstrap(r, ci, lo, hi) < 0) {
		free(blk);
		k->oom = 1;
		return o;
	}
	for (size_t i = 0; i < r->nopen; i++) {
		const struct sums *s = &c->by_open[i];
		t.n += s->n, t.recall += s->recall, t.ncov += s->ncov, t.cov += s->cov;
		t.nreg += s->nreg, t.reg += s->reg, t.nvl += s->nvl, t.vl += s->vl;
	}
	put(k, o, "family", cJSON_CreateString(r->sp.families[c->fam]));
	put(k, o, "replication", cJSON_CreateString(c->rep));
	put(k, o, "condition", cJSON_CreateString(c->cond));
	put(k, o, "budget", c->budget ? cJSON_CreateString(c->budget) : cJSON_CreateNull());
	put(k, o, "decisions", cJSON_CreateNumber((double)c->n));
	put(k, o, "openings", cJSON_CreateNumber((double)blocks_of(r, c, blk)));
	free(blk);
	put(k, o, "recall", share(stat(&t, S_RECALL), lo[S_RECALL], hi[S_RECALL]));
	put(k, o, "coverage", share(stat(&t, S_COVERAGE), lo[S_COVERAGE], hi[S_COVERAGE]));
	put(k, o, "regret", regret_json(k, c, &t, lo[S_REGRET], hi[S_REGRET]));
	put(k, o, "rank", x = ok(k, cJSON_CreateObject()));
	if (x != NULL) {
		put(k, x, "n", cJSON_CreateNumber((double)c->nrank));
		put(k, x, "mean", num_or_null(c->nrank ? c->rank / (double)c->nrank : NAN, 1e-6));
		put(k, x, "outside", cJSON_CreateNumber((double)c->outside));
	}
	if (c->dc.kind == DK_NONE) {
		put(k, o, "value_loss", cJSON_CreateNull());
	} else if ((x = ok(k, cJSON_CreateObject())) != NULL) {
		put(k, o, "value_loss", x);
		put(k, x, "n", cJSON_CreateNumber(t.nvl));
		put(k, x, "mean", num_or_null(stat(&t, S_VALUE_LOSS), 0.01));
		put(k, x, "interval", interval(lo[S_VALUE_LOSS], hi[S_VALUE_LOSS], 0.01));
	}
	order_stats(c, &groups, &pairs, &differ, &var, &nvar);
	put(k, o, "order", x = ok(k, cJSON_CreateObject()));
	if (x != NULL) {
		put(k, x, "positions", cJSON_CreateNumber((double)groups));
		put(k, x, "pairs", cJSON_CreateNumber((double)pairs));
		put(k, x, "change_probability", num_or_null(pairs ? (double)differ / (double)pairs : NAN,
		    1e-6));
		put(k, x, "regret_variance", num_or_null(nvar ? var / (double)nvar : NAN, 0.01));
	}
	put(k, o, "blunder", x = ok(k, cJSON_CreateObject()));
	for (int ph = 0; x != NULL && ph < 3; ph++) {
		cJSON *b = ok(k, cJSON_CreateObject());
		put(k, x, cand_phase_names[ph], b);
		if (b == NULL)
			break;
		put(k, b, "n", cJSON_CreateNumber((double)c->blunder_n[ph]));
		put(k, b, "rate", num_or_null(c->blunder_n[ph] ?
		    (double)c->blunder_k[ph] / (double)c->blunder_n[ph] : NAN, 1e-6));
	}
	put(k, o, "status", counts_json(k, c->status, decision_status_names, 3));
	put(k, o, "failures", counts_json(k, c->failures, decision_failure_names, DF_N));
	put(k, o, "tokens_per_decision", cJSON_CreateNumber(json_round(c->tok / (double)c->n, 0.01)));
	put(k, o, "latency_ms_per_decision",
	    cJSON_CreateNumber(json_round(c->lat / (double)c->n, 0.01)));
	put(k, o, "retries_per_decision",
	    cJSON_CreateNumber(json_round(c->retries / (double)c->n, 1e-6)));
	return o;
}

/* The budgets' order: the prereg's, else null first, then by name. */
static int
budget_rank(const cJSON *prereg, const char *b)
{
	const cJSON *list = json_get(json_get(prereg, "allocation"), "budgets"), *x;
	int i = 0;

	if (b == NULL)
		return -1;
	cJSON_ArrayForEach(x, list) {
		if (cJSON_IsString(x) && strcmp(x->valuestring, b) == 0)
			return i;
		i++;
	}
	return 1 << 20;
}

static int
cmp_cell(const void *a, const void *b, void *prereg)
{
	const struct cell *x = a, *y = b;
	int c;

	if (x->fam != y->fam)
		return x->fam - y->fam;
	if ((c = strcmp(x->rep, y->rep)) != 0)
		return c;
	if (x->dc.kind != y->dc.kind)
		return (int)x->dc.kind - (int)y->dc.kind;
	if (x->dc.k != y->dc.k)
		return x->dc.k - y->dc.k;
	if ((c = strcmp(x->cond, y->cond)) != 0)
		return c;
	int bx = budget_rank(prereg, x->budget), by = budget_rank(prereg, y->budget);
	if (bx != by)
		return bx < by ? -1 : 1;
	return strcmp(x->budget ? x->budget : "", y->budget ? y->budget : "");
}

static void
run_release(struct run *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		free(r->cells[i].key);
		free(r->cells[i].regrets);
		free(r->cells[i].by_open);
		free(r->cells[i].ord);
	}
	free(r->cells);
	free(r->open);
	free(r->open_of);
	cand_release(&r->cand);
	spec_release(&r->sp);
}

/* The freeze's spec, its decisions section and candidate manifest. */
static int
read_inputs(struct run *r, const cJSON *freeze, struct cas *store, const cJSON **sec,
    struct err *e)
{
	const char *cid, *p;
	uint8_t d[HASH_LEN];
	size_t n;
	int rc;

	if (spec_read(json_get(freeze, "spec"), &r->sp, e) < 0)
		return err_prefix(e, "%s: \"spec\"", r->o->name);
	if ((*sec = json_get(freeze, "decisions")) == NULL)
		return err_set(e, ERR_INPUT, "%s: the freeze holds no decisions (freeze with "
		    "--candidates and --decisions)", r->o->name);
	if (json_get_string(*sec, "candidates", 1, &cid, e) < 0 || hash_id_parse(cid, d) < 0)
		return err_set(e, ERR_INPUT, "%s: \"decisions\": \"candidates\": expected an identity",
		    r->o->name);
	if ((rc = cas_get(store, d, &p, &n, e)) != 0)
		return rc < 0 ? -1 : err_set(e, ERR_INPUT, "%s: the candidate manifest %s is not in the "
		    "store %s", r->o->name, cid, r->o->store_dir);
	if (cand_read_bytes(p, n, "stored candidate manifest", &r->cand, e) < 0)
		return -1;
	if (strcmp(r->cand.id, cid) != 0)
		return err_set(e, ERR_INPUT, "%s: the stored candidate manifest is not %s", r->o->name, cid);
	return openings(r, e);
}

static cJSON *
options_json(const struct paired_opts *o)
{
	cJSON *x = cJSON_CreateObject();

	if (x == NULL || !json_add_number(x, "replicates", (double)o->replicates) ||
	    !json_add_number(x, "seed", (double)o->seed) || !json_add_string(x, "unit", "opening") ||
	    !json_add_number(x, "level", json_round(o->level, 1e-6)) ||
	    !json_add_number(x, "blunder_cp", o->blunder_cp)) {
		cJSON_Delete(x);
		return NULL;
	}
	return x;
}

static int
build(struct run *r, const cJSON *freeze, cJSON **out, struct err *e)
{
	struct bld k = { 0 };
	char fid[HASH_ID_LEN + 1];
	cJSON *doc = ok(&k, cJSON_CreateObject()), *cells;

	if (doc == NULL || canon_id(freeze, fid, e) < 0) {
		cJSON_Delete(doc);
		return doc == NULL ? err_set(e, ERR_NOMEM, "out of memory") : -1;
	}
	qsort_r(r->cells, r->ncells, sizeof *r->cells, cmp_cell, (void *)r->o->prereg);
	put(&k, doc, "kind", cJSON_CreateString("cohort.paired/1"));
	put(&k, doc, "input", cJSON_CreateString(fid));
	put(&k, doc, "candidates", cJSON_CreateString(r->cand.id));
	put(&k, doc, "prereg", r->o->prereg_id ? cJSON_CreateString(r->o->prereg_id) :
	    cJSON_CreateNull());
	put(&k, doc, "options", options_json(r->o));
	put(&k, doc, "cells", cells = ok(&k, cJSON_CreateArray()));
	for (size_t i = 0; cells && i < r->ncells; i++) {
		cJSON *c = cell_json(r, i, &k);
		if (c == NULL || !cJSON_AddItemToArray(cells, c)) {
			cJSON_Delete(c);
			k.oom = 1;
		}
	}
	if (k.oom) {
		cJSON_Delete(doc);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	*out = doc;
	return 0;
}

int
paired_document(const cJSON *freeze, const struct paired_opts *o, cJSON **out, struct err *e)
{
	struct run r = { 0 };
	struct cas *store = NULL;
	const cJSON *sec = NULL;
	int rc = -1;

	*out = NULL;
	r.o = o;
	r.cand = (struct candidates)CANDIDATES_INIT;
	if (o->replicates < 0 || o->replicates > 1000000)
		return err_set(e, ERR_USAGE, "--replicates: expected 0 to 1000000");
	if (cas_open(o->store_dir, 0, &store, e) < 0)
		return -1;
	if (read_inputs(&r, freeze, store, &sec, e) == 0 && read_decisions(&r, sec, store, e) == 0)
		rc = build(&r, freeze, out, e);
	cas_free(store);
	run_release(&r);
	return rc;
}

/* The options a paired document records, for computing it again. */
static int
options_read(const cJSON *doc, struct paired_opts *o, struct err *e)
{
	const cJSON *x;
	double seed, reps;

	if (json_get_object(doc, "options", 1, &x, e) < 0 ||
	    json_get_number(x, "replicates", 1, &reps, e) < 0 ||
	    json_get_number(x, "seed", 1, &seed, e) < 0 ||
	    json_get_number(x, "level", 1, &o->level, e) < 0 ||
	    json_get_number(x, "blunder_cp", 1, &o->blunder_cp, e) < 0)
		return -1;
	o->replicates = (long)reps;
	o->seed = (uint64_t)seed;
	return 0;
}

int
paired_refit_check(const cJSON *doc, const cJSON *freeze, const char *store_dir, const char *name,
    int *same, struct err *e)
{
	struct paired_opts o;
	struct buf a = BUF_INIT, b = BUF_INIT;
	cJSON *again = NULL;
	int rc = -1;

	paired_opts_init(&o);
	o.store_dir = store_dir;
	o.name = name;
	*same = 0;
	if (options_read(doc, &o, e) < 0 || paired_document(freeze, &o, &again, e) < 0)
		goto done;
	if (canon_write(doc, &a, e) == 0 && canon_write(again, &b, e) == 0) {
		*same = a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
		rc = 0;
	}
done:
	cJSON_Delete(again);
	buf_release(&a);
	buf_release(&b);
	return rc;
}

static const char *
text(const cJSON *v, const char *dflt)
{
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void
fmt(char *s, size_t n, const cJSON *v, const char *f)
{
	if (cJSON_IsNumber(v))
		snprintf(s, n, f, v->valuedouble);
	else
		snprintf(s, n, "-");
}

int
paired_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *c;

	buf_printf(out, "%-16s %-4s %-7s %-16s %6s %7s %8s %-19s %8s %7s\n", "family", "rep", "budget",
	    "condition", "n", "recall", "regret", "regret 95% (cp)", "coverage", "order");
	cJSON_ArrayForEach(c, json_get(doc, "cells")) {
		const cJSON *reg = json_get(c, "regret"), *iv = json_get(reg, "interval");
		char rc[16], rm[16], lo[16], hi[16], cv[16], oc[16], ivt[40];
		fmt(rc, sizeof rc, json_get(json_get(c, "recall"), "estimate"), "%.3f");
		fmt(rm, sizeof rm, json_get(reg, "mean"), "%.1f");
		fmt(lo, sizeof lo, cJSON_GetArrayItem(iv, 0), "%.1f");
		fmt(hi, sizeof hi, cJSON_GetArrayItem(iv, 1), "%.1f");
		fmt(cv, sizeof cv, json_get(json_get(c, "coverage"), "estimate"), "%.3f");
		fmt(oc, sizeof oc, json_get(json_get(c, "order"), "change_probability"), "%.3f");
		snprintf(ivt, sizeof ivt, cJSON_IsArray(iv) ? "%s .. %s" : "-", lo, hi);
		buf_printf(out, "%-16.16s %-4.4s %-7.7s %-16.16s %6.0f %7s %8s %-19s %8s %7s\n",
		    text(json_get(c, "family"), "?"), text(json_get(c, "replication"), "?"),
		    text(json_get(c, "budget"), "-"), text(json_get(c, "condition"), "?"),
		    cJSON_GetNumberValue(json_get(c, "decisions")), rc, rm, ivt, cv, oc);
	}
	return out->p == NULL ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}
