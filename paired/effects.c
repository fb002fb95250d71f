/* effects.c: the order, colour, phase and stratum effects of a paired
 * cell (effects.h). */
#include "effects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/quantile.h"
#include "../common/rng.h"
#include "../json/json.h"

/* A factor: its levels are PL_* first .. first + n. */
struct factor {
	const char *name, *measure;
	size_t first, n;
	int diff; /* the first level minus the second, else max minus min */
};

enum { ST_RECALL, ST_REGRET, NST };

struct eff {
	const struct paired_data *d;
	const struct paired_cell *c;
	struct paired_levels L;
	struct factor f[4];
	size_t nv;                /* values: each level's NST, then each factor's */
	unsigned char *use;       /* per level and statistic: non-empty in the cell */
};

static double
level_stat(const struct paired_level *l, int s)
{
	return s == ST_RECALL ? paired_ratio(l->recall, l->n) : paired_ratio(l->reg, l->nreg);
}

/* The effect of factor f for statistic s from level sums t; NAN when a
 * level the cell has is empty in t, or fewer than two levels have data. */
static double
effect(const struct eff *x, const struct factor *f, const struct paired_level *t, int s)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t used = 0;

	if (f->diff) {
		double a = level_stat(&t[f->first], s), b = level_stat(&t[f->first + 1], s);
		return isnan(a) || isnan(b) ? NAN : a - b;
	}
	for (size_t l = f->first; l < f->first + f->n; l++) {
		double v;
		if (!x->use[l * NST + (size_t)s])
			continue;
		if (isnan(v = level_stat(&t[l], s)))
			return NAN;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		used++;
	}
	return used >= 2 ? hi - lo : NAN;
}

/* Every value from the level sums t[0..nlevels). */
static void
values(const struct eff *x, const struct paired_level *t, double *v)
{
	size_t nl = x->L.nlevels;

	for (size_t l = 0; l < nl; l++)
		for (int s = 0; s < NST; s++)
			v[l * NST + (size_t)s] = level_stat(&t[l], s);
	for (size_t k = 0; k < 4; k++)
		for (int s = 0; s < NST; s++)
			v[nl * NST + k * NST + (size_t)s] = effect(x, &x->f[k], t, s);
}

static void
total(const struct eff *x, struct paired_level *t)
{
	size_t nl = x->L.nlevels;

	memset(t, 0, nl * sizeof *t);
	for (size_t o = 0; o < x->d->nopen; o++)
		for (size_t l = 0; l < nl; l++) {
			const struct paired_level *s = &x->L.by_open[o * nl + l];
			t[l].n += s->n;
			t[l].recall += s->recall;
			t[l].nreg += s->nreg;
			t[l].reg += s->reg;
		}
}

/* Percentile intervals of every value: the replicates draw the cell's
 * openings exactly as paired.c's bootstrap does (the same streams, the
 * same draws), so the effects resample the blocks the other figures do. */
static int
bootstrap(const struct eff *x, const struct paired_effects_opts *o, double *lo, double *hi)
{
	size_t nl = x->L.nlevels, nb = 0, *blk = malloc((x->d->nopen + 1) * sizeof *blk);
	size_t *got = calloc(x->nv + 1, sizeof *got);
	double *v = malloc(((size_t)o->replicates + 1) * x->nv * sizeof *v);
	double *row = malloc((x->nv + 1) * sizeof *row), a = (1 - o->level) / 2;
	struct paired_level *t = malloc((nl + 1) * sizeof *t);
	int rc = -1;

	for (size_t k = 0; k < x->nv; k++)
		lo[k] = hi[k] = NAN;
	if (blk == NULL || got == NULL || v == NULL || row == NULL || t == NULL)
		goto done;
	for (size_t i = 0; i < x->d->nopen; i++)
		if (x->c->by_open[i].n > 0)
			blk[nb++] = i;
	for (long b = 0; nb >= 2 && b < o->replicates; b++) {
		struct rng g = rng_stream(o->seed, x->c->first, (uint64_t)b);
		memset(t, 0, nl * sizeof *t);
		for (size_t i = 0; i < nb; i++) {
			const struct paired_level *s = &x->L.by_open[blk[rng_below(&g, (uint32_t)nb)] * nl];
			for (size_t l = 0; l < nl; l++) {
				t[l].n += s[l].n;
				t[l].recall += s[l].recall;
				t[l].nreg += s[l].nreg;
				t[l].reg += s[l].reg;
			}
		}
		values(x, t, row);
		for (size_t k = 0; k < x->nv; k++)
			if (!isnan(row[k]))
				v[k * (size_t)o->replicates + got[k]++] = row[k];
	}
	for (size_t k = 0; k < x->nv; k++) {
		double *vk = v + k * (size_t)o->replicates;
		if (got[k] == 0)
			continue;
		quantile7_two(vk, got[k], a, 1 - a, &lo[k], &hi[k]);
	}
	rc = 0;
done:
	free(blk);
	free(got);
	free(v);
	free(row);
	free(t);
	return rc;
}

static cJSON *
number(double x, double step)
{
	return isnan(x) ? cJSON_CreateNull() : cJSON_CreateNumber(json_round(x, step));
}

static cJSON *
interval(struct json_bld *k, double lo, double hi, double step)
{
	cJSON *a;

	if (isnan(lo) || isnan(hi))
		return cJSON_CreateNull();
	a = cJSON_CreateArray();
	json_bld_push(k, a, cJSON_CreateNumber(json_round(lo, step)));
	json_bld_push(k, a, cJSON_CreateNumber(json_round(hi, step)));
	return a;
}

static const double step_of[NST] = { 1e-6, 0.01 };

/* {estimate, interval} of value k, with a reason where the estimate is
 * null. */
static cJSON *
estimate(struct json_bld *k, const double *v, const double *lo, const double *hi, size_t i,
    int s, const char *why)
{
	cJSON *o = cJSON_CreateObject();

	json_bld_put(k, o, "estimate", number(v[i], step_of[s]));
	json_bld_put(k, o, "interval", interval(k, lo[i], hi[i], step_of[s]));
	if (isnan(v[i]))
		json_bld_put(k, o, "reason", cJSON_CreateString(why));
	return o;
}

static void
level_name(const struct eff *x, size_t l, char *s, size_t n)
{
	if (l < PL_PHASE)
		snprintf(s, n, "%s", l == PL_WHITE ? "white" : "black");
	else if (l < PL_KIND)
		snprintf(s, n, "%s", cand_phase_names[l - PL_PHASE]);
	else if (l < PL_SEED)
		snprintf(s, n, "%s", cand_kind_names[l - PL_KIND]);
	else
		snprintf(s, n, "%lld", x->L.seeds[l - PL_SEED]);
}

static cJSON *
level_json(struct json_bld *k, const struct eff *x, const struct paired_level *t, size_t l,
    const double *v, const double *lo, const double *hi)
{
	cJSON *o = cJSON_CreateObject();
	char name[32];

	level_name(x, l, name, sizeof name);
	json_bld_put(k, o, "level", cJSON_CreateString(name));
	json_bld_put(k, o, "decisions", cJSON_CreateNumber(t[l].n));
	json_bld_put(k, o, "regret_n", cJSON_CreateNumber(t[l].nreg));
	json_bld_put(k, o, "recall", estimate(k, v, lo, hi, l * NST + ST_RECALL, ST_RECALL,
	    "no decisions at this level"));
	json_bld_put(k, o, "regret", estimate(k, v, lo, hi, l * NST + ST_REGRET, ST_REGRET,
	    t[l].n > 0 ? "no exact regret at this level" : "no decisions at this level"));
	return o;
}

/* Why factor f's effect for statistic s is null. */
static void
effect_why(const struct eff *x, const struct factor *f, int s, char *why, size_t n)
{
	size_t have = 0;

	for (size_t l = f->first; l < f->first + f->n; l++)
		have += x->use[l * NST + (size_t)s];
	if (f->first == PL_SEED && f->n < 2)
		snprintf(why, n, "no position and context shown under two order seeds");
	else if (f->diff)
		snprintf(why, n, "%s", !x->use[PL_WHITE * NST + (size_t)s] ?
		    "no white-to-move positions with data" : "no black-to-move positions with data");
	else
		snprintf(why, n, "%zu level%s with data: two needed", have, have == 1 ? "" : "s");
}

static cJSON *
factor_json(struct json_bld *k, const struct eff *x, size_t fi, const struct paired_level *t,
    const double *v, const double *lo, const double *hi)
{
	const struct factor *f = &x->f[fi];
	cJSON *o = cJSON_CreateObject(), *lv = cJSON_CreateArray();
	size_t base = x->L.nlevels * NST + fi * NST;
	char why[NST][96];

	json_bld_put(k, o, "measure", cJSON_CreateString(f->measure));
	json_bld_put(k, o, "levels", lv);
	for (size_t l = f->first; l < f->first + f->n; l++)
		json_bld_push(k, lv, level_json(k, x, t, l, v, lo, hi));
	for (int s = 0; s < NST; s++)
		effect_why(x, f, s, why[s], sizeof why[s]);
	json_bld_put(k, o, "recall", estimate(k, v, lo, hi, base + ST_RECALL, ST_RECALL, why[0]));
	json_bld_put(k, o, "regret", estimate(k, v, lo, hi, base + ST_REGRET, ST_REGRET, why[1]));
	return o;
}

static cJSON *
effects_json(struct json_bld *k, struct eff *x, const struct paired_effects_opts *o)
{
	size_t nl = x->L.nlevels;
	struct paired_level *t = malloc((nl + 1) * sizeof *t);
	double *v = malloc((x->nv + 1) * 3 * sizeof *v), *lo = v + x->nv, *hi = lo + x->nv;
	cJSON *out = NULL;

	x->use = malloc(nl * NST + 1);
	if (t == NULL || v == NULL || x->use == NULL)
		goto done;
	total(x, t);
	for (size_t l = 0; l < nl; l++)
		for (int s = 0; s < NST; s++)
			x->use[l * NST + (size_t)s] = !isnan(level_stat(&t[l], s));
	values(x, t, v);
	if (bootstrap(x, o, lo, hi) < 0)
		goto done;
	out = cJSON_CreateObject();
	for (size_t fi = 0; fi < 4; fi++)
		json_bld_put(k, out, x->f[fi].name, factor_json(k, x, fi, t, v, lo, hi));
done:
	free(t);
	free(v);
	free(x->use);
	return out;
}

cJSON *
paired_effects_json(const struct paired_data *d, size_t ci, const struct paired_effects_opts *o,
    struct json_bld *k)
{
	struct eff x = { d, &d->cells[ci], { 0 }, { { 0 } }, 0, NULL };
	cJSON *out;

	if (paired_cell_levels(d, x.c, &x.L) < 0) {
		k->oom = 1;
		return NULL;
	}
	x.f[0] = (struct factor){ "colour", "white-black", PL_WHITE, 2, 1 };
	x.f[1] = (struct factor){ "order", "range", PL_SEED, x.L.nseeds, 0 };
	x.f[2] = (struct factor){ "phase", "range", PL_PHASE, 3, 0 };
	x.f[3] = (struct factor){ "stratum", "range", PL_KIND, 3, 0 };
	x.nv = (x.L.nlevels + 4) * NST;
	out = effects_json(k, &x, o);
	if (out == NULL)
		k->oom = 1;
	paired_levels_release(&x.L);
	return out;
}
