/* paired.c: cohort.paired/1 from a freeze's decisions (paired.h). */
#define _GNU_SOURCE /* qsort_r */
#include "paired.h"
#include "collect.h"
#include "effects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/quantile.h"
#include "../common/pool.h"
#include "../common/rng.h"
#include "../json/json.h"
#include "../protocol/candidates.h"
#include "../protocol/decision.h"
#include "../protocol/prereg.h"
#include "../protocol/spec.h"
#include "../store/cas.h"

struct run {
	const struct paired_opts *o;
	struct paired_data d;
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

int
paired_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) by linear interpolation between order
 * statistics (Hyndman and Fan's type 7, R's default). */
double
paired_quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

enum { S_RECALL, S_COVERAGE, S_REGRET, S_VALUE_LOSS, NSTAT };

static double
stat(const struct paired_sums *t, int k)
{
	switch (k) {
	case S_RECALL: return paired_ratio(t->recall, t->n);
	case S_COVERAGE: return paired_ratio(t->cov, t->ncov);
	case S_REGRET: return paired_ratio(t->reg, t->nreg);
	default: return paired_ratio(t->vl, t->nvl);
	}
}

/* The cell's openings with decisions (the bootstrap's blocks). */
static size_t
blocks_of(const struct run *r, const struct paired_cell *c, size_t *blk)
{
	size_t k = 0;

	for (size_t i = 0; i < r->d.nopen; i++)
		if (c->by_open[i].n > 0)
			blk[k++] = i;
	return k;
}

/* Percentile intervals of each statistic over replicates that resample
 * the cell's openings with replacement; a replicate whose statistic is
 * undefined (no such decision drawn) is left out of that statistic's.
 * Each opening's numerators and denominators are laid side by side first
 * (eight of the sums' sixty numbers), added in the order the sums' were. */
static int
bootstrap(const struct run *r, size_t ci, double lo[NSTAT], double hi[NSTAT])
{
	const struct paired_cell *c = &r->d.cells[ci];
	size_t *blk = malloc((r->d.nopen + 1) * sizeof *blk), nb, got[NSTAT] = { 0 };
	double *v = malloc((size_t)(r->o->replicates + 1) * NSTAT * sizeof *v);
	double (*w)[2 * NSTAT] = malloc((r->d.nopen + 1) * sizeof *w);
	double a = (1 - r->o->level) / 2;

	for (int k = 0; k < NSTAT; k++)
		lo[k] = hi[k] = NAN;
	if (blk == NULL || v == NULL || w == NULL) {
		free(blk);
		free(v);
		free(w);
		return -1;
	}
	nb = blocks_of(r, c, blk);
	for (size_t i = 0; i < nb; i++) {
		const struct paired_sums *s = &c->by_open[blk[i]];
		const double x[2 * NSTAT] = { s->recall, s->n, s->cov, s->ncov, s->reg, s->nreg,
			s->vl, s->nvl };
		memcpy(w[i], x, sizeof x);
	}
	for (long b = 0; nb >= 2 && b < r->o->replicates; b++) {
		/* the cell's number as first met, not its place in the
		 * document's order: the streams do not move with the sort */
		struct rng g = rng_stream(r->o->seed, c->first, (uint64_t)b);
		double t[2 * NSTAT] = { 0 };
		for (size_t i = 0; i < nb; i++) {
			const double *x = w[rng_below(&g, (uint32_t)nb)];
			for (int k = 0; k < 2 * NSTAT; k++)
				t[k] += x[k];
		}
		for (int k = 0; k < NSTAT; k++) {
			double x = paired_ratio(t[2 * k], t[2 * k + 1]);
			if (!isnan(x))
				v[(size_t)k * (size_t)r->o->replicates + got[k]++] = x;
		}
	}
	for (int k = 0; k < NSTAT; k++) {
		double *vk = v + (size_t)k * (size_t)r->o->replicates;
		if (got[k] == 0)
			continue;
		quantile7_two(vk, got[k], a, 1 - a, &lo[k], &hi[k]);
	}
	free(blk);
	free(v);
	free(w);
	return 0;
}

/* Every cell's intervals, on the pool's threads: each cell has its own
 * streams, so the bytes are the same on any number. */
struct boots {
	const struct run *r;
	double (*lo)[NSTAT], (*hi)[NSTAT];
	int *failed;
};

static void
boot_one(void *arg, size_t i, int worker)
{
	const struct boots *B = arg;

	(void)worker;
	B->failed[i] = bootstrap(B->r, i, B->lo[i], B->hi[i]) < 0;
}

static int
boot_all(struct run *r, struct boots *B)
{
	int threads = (r->o->jobs > 0 ? r->o->jobs : pool_cpus()) - 1, rc = 0;
	struct pool *p;
	size_t n = r->d.ncells + 1;

	B->r = r;
	B->lo = malloc(n * sizeof *B->lo);
	B->hi = malloc(n * sizeof *B->hi);
	B->failed = calloc(n, sizeof *B->failed);
	if (B->lo == NULL || B->hi == NULL || B->failed == NULL ||
	    (p = pool_new(threads < 0 ? 0 : threads)) == NULL)
		return -1;
	pool_run(p, r->d.ncells, boot_one, B);
	pool_free(p);
	for (size_t i = 0; i < r->d.ncells; i++)
		rc |= B->failed[i];
	return rc ? -1 : 0;
}

static void
boots_release(struct boots *B)
{
	free(B->lo);
	free(B->hi);
	free(B->failed);
}

static cJSON *
ok(struct json_bld *k, cJSON *x)
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
median(struct paired_cell *c)
{
	if (c->nregrets == 0)
		return NAN;
	qsort(c->regrets, c->nregrets, sizeof *c->regrets, paired_cmp_double);
	return paired_quantile(c->regrets, c->nregrets, 0.5);
}

static cJSON *
regret_json(struct json_bld *k, struct paired_cell *c, const struct paired_sums *t, double lo,
    double hi)
{
	cJSON *o = ok(k, cJSON_CreateObject());

	if (o == NULL)
		return NULL;
	json_bld_put(k, o, "n", cJSON_CreateNumber(t->nreg));
	json_bld_put(k, o, "bounds", cJSON_CreateNumber(t->nbound));
	json_bld_put(k, o, "mean", num_or_null(stat(t, S_REGRET), 0.01));
	json_bld_put(k, o, "interval", interval(lo, hi, 0.01));
	json_bld_put(k, o, "median", num_or_null(median(c), 0.01));
	json_bld_put(k, o, "n_without_mates", cJSON_CreateNumber(t->nomate));
	json_bld_put(k, o, "mean_without_mates", num_or_null(paired_ratio(t->reg_nomate, t->nomate), 0.01));
	return o;
}

static cJSON *
counts_json(struct json_bld *k, const double *v, const char *const *names, int n)
{
	cJSON *o = ok(k, cJSON_CreateObject());

	for (int i = 0; o && i < n; i++)
		json_bld_put(k, o, names[i], cJSON_CreateNumber(v[i]));
	return o;
}

static cJSON *
blunder_json(struct json_bld *k, const struct paired_sums *t)
{
	cJSON *x = ok(k, cJSON_CreateObject());

	for (int ph = 0; x != NULL && ph < 3; ph++) {
		cJSON *b = ok(k, cJSON_CreateObject());
		json_bld_put(k, x, cand_phase_names[ph], b);
		if (b == NULL)
			break;
		json_bld_put(k, b, "n", cJSON_CreateNumber(t->blunder_n[ph]));
		json_bld_put(k, b, "rate", num_or_null(paired_ratio(t->blunder_k[ph], t->blunder_n[ph]), 1e-6));
	}
	return x;
}

static cJSON *
order_json(struct json_bld *k, const struct paired_sums *t)
{
	cJSON *x = ok(k, cJSON_CreateObject());

	if (x != NULL) {
		json_bld_put(k, x, "positions", cJSON_CreateNumber(t->groups));
		json_bld_put(k, x, "pairs", cJSON_CreateNumber(t->pairs));
		json_bld_put(k, x, "change_probability", num_or_null(paired_ratio(t->differ, t->pairs), 1e-6));
		json_bld_put(k, x, "regret_variance", num_or_null(paired_ratio(t->var, t->nvar), 0.01));
	}
	return x;
}

static cJSON *
rank_json(struct json_bld *k, const struct paired_sums *t)
{
	cJSON *x = ok(k, cJSON_CreateObject());

	if (x != NULL) {
		json_bld_put(k, x, "n", cJSON_CreateNumber(t->nrank));
		json_bld_put(k, x, "mean", num_or_null(paired_ratio(t->rank, t->nrank), 1e-6));
		json_bld_put(k, x, "outside", cJSON_CreateNumber(t->outside));
	}
	return x;
}

static cJSON *
value_loss_json(struct json_bld *k, const struct paired_cell *c, const struct paired_sums *t,
    double lo, double hi)
{
	cJSON *x;

	if (c->dc.kind == DK_NONE)
		return cJSON_CreateNull();
	if ((x = ok(k, cJSON_CreateObject())) != NULL) {
		json_bld_put(k, x, "n", cJSON_CreateNumber(t->nvl));
		json_bld_put(k, x, "mean", num_or_null(stat(t, S_VALUE_LOSS), 0.01));
		json_bld_put(k, x, "interval", interval(lo, hi, 0.01));
	}
	return x;
}

static cJSON *
cell_json(struct run *r, size_t ci, const struct boots *B, struct json_bld *k)
{
	struct paired_cell *c = &r->d.cells[ci];
	struct paired_sums t;
	const double *lo = B->lo[ci], *hi = B->hi[ci];
	size_t *blk = malloc((r->d.nopen + 1) * sizeof *blk);
	cJSON *o = ok(k, cJSON_CreateObject());

	if (o == NULL || blk == NULL) {
		free(blk);
		k->oom = 1;
		return o;
	}
	paired_cell_total(&r->d, c, &t);
	json_bld_put(k, o, "family", cJSON_CreateString(r->d.sp.families[c->fam]));
	json_bld_put(k, o, "replication", cJSON_CreateString(c->rep));
	json_bld_put(k, o, "condition", cJSON_CreateString(c->cond));
	json_bld_put(k, o, "budget", c->budget ? cJSON_CreateString(c->budget) : cJSON_CreateNull());
	json_bld_put(k, o, "decisions", cJSON_CreateNumber(t.n));
	json_bld_put(k, o, "openings", cJSON_CreateNumber((double)blocks_of(r, c, blk)));
	free(blk);
	json_bld_put(k, o, "recall", share(stat(&t, S_RECALL), lo[S_RECALL], hi[S_RECALL]));
	json_bld_put(k, o, "coverage", share(stat(&t, S_COVERAGE), lo[S_COVERAGE], hi[S_COVERAGE]));
	json_bld_put(k, o, "regret", regret_json(k, c, &t, lo[S_REGRET], hi[S_REGRET]));
	json_bld_put(k, o, "rank", rank_json(k, &t));
	json_bld_put(k, o, "value_loss", value_loss_json(k, c, &t, lo[S_VALUE_LOSS], hi[S_VALUE_LOSS]));
	json_bld_put(k, o, "order", order_json(k, &t));
	json_bld_put(k, o, "blunder", blunder_json(k, &t));
	json_bld_put(k, o, "effects", paired_effects_json(&r->d, ci, &(struct paired_effects_opts){
	    r->o->replicates, r->o->seed, r->o->level }, k));
	json_bld_put(k, o, "status", counts_json(k, t.status, decision_status_names, 3));
	json_bld_put(k, o, "failures", counts_json(k, t.failures, decision_failure_names, DF_N));
	json_bld_put(k, o, "tokens_per_decision", cJSON_CreateNumber(json_round(t.tok / t.n, 0.01)));
	json_bld_put(k, o, "latency_ms_per_decision", cJSON_CreateNumber(json_round(t.lat / t.n, 0.01)));
	json_bld_put(k, o, "retries_per_decision", cJSON_CreateNumber(json_round(t.retries / t.n, 1e-6)));
	return o;
}

/* The budgets' order: null first, then by name. */
static int
budget_rank(const char *b)
{
	return b == NULL ? -1 : 0;
}

static int
cmp_cell(const void *a, const void *b)
{
	const struct paired_cell *x = a, *y = b;
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
	int bx = budget_rank(x->budget), by = budget_rank(y->budget);
	if (bx != by)
		return bx < by ? -1 : 1;
	return strcmp(x->budget ? x->budget : "", y->budget ? y->budget : "");
}

/* Every cell's object on the pool's threads (the effects' bootstrap is
 * most of the work), each with a builder of its own, then added in the
 * cells' order: the same bytes on any number of threads. */
struct cjobs {
	struct run *r;
	const struct boots *B;
	cJSON **out;
	int *oom;
};

static void
cell_one(void *arg, size_t i, int worker)
{
	const struct cjobs *J = arg;
	struct json_bld k = { 0 };

	(void)worker;
	J->out[i] = cell_json(J->r, i, J->B, &k);
	J->oom[i] = k.oom || J->out[i] == NULL;
}

static int
cells_all(struct run *r, const struct boots *B, cJSON *cells)
{
	int threads = (r->o->jobs > 0 ? r->o->jobs : pool_cpus()) - 1, rc = 0;
	struct cjobs J = { r, B, calloc(r->d.ncells + 1, sizeof *J.out),
		calloc(r->d.ncells + 1, sizeof *J.oom) };
	struct pool *p = NULL;

	if (J.out == NULL || J.oom == NULL || (p = pool_new(threads < 0 ? 0 : threads)) == NULL)
		rc = -1;
	else
		pool_run(p, r->d.ncells, cell_one, &J);
	pool_free(p);
	for (size_t i = 0; J.out && J.oom && i < r->d.ncells; i++) {
		if (rc == 0 && !J.oom[i] && cJSON_AddItemToArray(cells, J.out[i]))
			continue;
		cJSON_Delete(J.out[i]);
		rc = -1;
	}
	free(J.out);
	free(J.oom);
	return rc;
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

/* The settings that differ from the prereg followed: the bootstrap's
 * replicates, seed and unit, the blunder threshold, the candidate
 * manifest, and a freeze made under another prereg or none.  A document
 * computed again copies those it records. */
static int
prereg_devs(const struct run *r, const cJSON *freeze, cJSON *doc, struct err *e)
{
	const struct prereg *p = r->o->pr;
	const char *fp = cJSON_GetStringValue(json_get(freeze, "prereg"));
	struct prereg_dev d[6];
	char reg[3][32], used[3][32];
	size_t n = 0;

	if (p == NULL) {
		cJSON *c = r->o->prereg_id ? cJSON_Duplicate(r->o->deviations, 1) : NULL;
		if (r->o->prereg_id && (c == NULL || !cJSON_AddItemToObject(doc, "deviations", c))) {
			cJSON_Delete(c);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		return 0;
	}
	if (r->o->replicates != p->replicates) {
		snprintf(reg[0], sizeof reg[0], "%ld", p->replicates);
		snprintf(used[0], sizeof used[0], "%ld", r->o->replicates);
		d[n++] = (struct prereg_dev){ "bootstrap.replicates", reg[0], used[0] };
	}
	if (r->o->seed != p->seed) {
		snprintf(reg[1], sizeof reg[1], "%llu", (unsigned long long)p->seed);
		snprintf(used[1], sizeof used[1], "%llu", (unsigned long long)r->o->seed);
		d[n++] = (struct prereg_dev){ "bootstrap.seed", reg[1], used[1] };
	}
	if (strcmp(p->unit, "opening") != 0)
		d[n++] = (struct prereg_dev){ "bootstrap.unit", p->unit, "opening" };
	if (r->o->blunder_cp != p->blunder_cp) {
		snprintf(reg[2], sizeof reg[2], "%g", p->blunder_cp);
		snprintf(used[2], sizeof used[2], "%g", r->o->blunder_cp);
		d[n++] = (struct prereg_dev){ "blunder_cp", reg[2], used[2] };
	}
	if (prereg_names_manifest(p, r->d.cand.id, cand_file_id(&r->d.cand)) == NULL)
		d[n++] = (struct prereg_dev){ "candidates", p->candidates, (char *)r->d.cand.id };
	if (fp == NULL || strcmp(fp, p->id) != 0)
		d[n++] = (struct prereg_dev){ "freeze.prereg", (char *)p->id, (char *)(fp ? fp : "none") };
	return prereg_deviations_add(doc, d, n, e);
}

static int
build(struct run *r, const cJSON *freeze, cJSON **out, struct err *e)
{
	struct json_bld k = { 0 };
	struct boots B = { NULL, NULL, NULL, NULL };
	char fid[HASH_ID_LEN + 1];
	cJSON *doc = ok(&k, cJSON_CreateObject()), *cells;

	if (r->o->input_id != NULL && doc != NULL)
		snprintf(fid, sizeof fid, "%s", r->o->input_id);
	if (doc == NULL || (r->o->input_id == NULL && canon_id(freeze, fid, e) < 0)) {
		cJSON_Delete(doc);
		return doc == NULL ? err_set(e, ERR_NOMEM, "out of memory") : -1;
	}
	qsort(r->d.cells, r->d.ncells, sizeof *r->d.cells, cmp_cell);
	if (boot_all(r, &B) < 0)
		k.oom = 1;
	json_bld_put(&k, doc, "kind", cJSON_CreateString("cohort.paired/1"));
	json_bld_put(&k, doc, "input", cJSON_CreateString(fid));
	json_bld_put(&k, doc, "candidates", cJSON_CreateString(r->d.cand.id));
	json_bld_put(&k, doc, "prereg", r->o->pr ? cJSON_CreateString(r->o->pr->id) :
	    r->o->prereg_id ? cJSON_CreateString(r->o->prereg_id) : cJSON_CreateNull());
	json_bld_put(&k, doc, "options", options_json(r->o));
	if (!k.oom && prereg_devs(r, freeze, doc, e) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	json_bld_put(&k, doc, "cells", cells = ok(&k, cJSON_CreateArray()));
	if (!k.oom && cells_all(r, &B, cells) < 0)
		k.oom = 1;
	boots_release(&B);
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
	struct run r = { o, PAIRED_DATA_INIT };
	int rc;

	*out = NULL;
	if (o->replicates < 0 || o->replicates > 1000000)
		return err_set(e, ERR_USAGE, "--replicates: expected 0 to 1000000");
	rc = o->ids ? paired_collect_ids(freeze, o->ids, o->store_dir, o->name, o->blunder_cp, 0,
	    o->jobs, -1, &r.d, e) :
	    paired_collect_jobs(freeze, o->store_dir, o->name, o->blunder_cp, 0, o->jobs, &r.d, e);
	if (rc == 0)
		rc = build(&r, freeze, out, e);
	paired_data_release(&r.d);
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
	o->prereg_id = cJSON_GetStringValue(json_get(doc, "prereg"));
	o->deviations = json_get(doc, "deviations");
	if (o->prereg_id != NULL && !cJSON_IsArray(o->deviations))
		return err_set(e, ERR_INPUT, "\"deviations\": expected an array beside \"prereg\"");
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
