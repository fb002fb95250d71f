/* fitdoc.c: the documents around the Davidson fit: reading a freeze or a
 * blocks document, building cohort.fit/1, its table, and the re-fit check.
 */
#include "fit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "../json/json.h"
#include "../protocol/blocks.h"
#include "../protocol/rules.h"
#include "bound.h"
#include "davidson.h"
#include "pairs.h"


void
fit_options_init(struct fit_options *o)
{
	memset(o, 0, sizeof *o);
	o->level = FIT_DEFAULT_LEVEL;
	o->nsens = 3;
	o->sens[0] = 0;
	o->sens[1] = 35;
	o->sens[2] = 70;
}

static int
parse_number(const char *s, double *out)
{
	return rules_number(s, out);
}

static int
check_level(double level, struct err *e, enum err_code code, const char *what)
{
	return rules_level_check(level, code, what, e);
}

static int
check_penalty(double p, struct err *e, enum err_code code, const char *what)
{
	return rules_penalty_check(p, code, what, e);
}

int
fit_options_parse(struct fit_options *o, const char *level, const char *penalty,
                  const char *sensitivity, struct err *e)
{
	if (level != NULL) {
		if (rules_level_parse(level, "--level", &o->level, e) < 0)
			return -1;
	}
	if (penalty != NULL) {
		if (strcmp(penalty, "estimate") == 0) {
			o->estimate = 1;
		} else if (parse_number(penalty, &o->penalty) < 0) {
			return err_set(e, ERR_USAGE,
			               "--black-penalty: expected a number or 'estimate', got '%s'",
			               penalty);
		} else {
			if (check_penalty(o->penalty, e, ERR_USAGE, "--black-penalty") < 0)
				return -1;
			o->have_penalty = 1;
		}
	}
	if (sensitivity != NULL) {
		const char *p = sensitivity;
		o->nsens = 0;
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			char item[64];
			double v;
			if (len == 0 || len >= sizeof item)
				return err_set(
				    e, ERR_USAGE,
				    "--sensitivity: expected numbers separated by commas, got '%s'",
				    sensitivity);
			memcpy(item, p, len);
			item[len] = '\0';
			if (parse_number(item, &v) < 0)
				return err_set(e, ERR_USAGE, "--sensitivity: '%s' is not a number",
				               item);
			if (check_penalty(v, e, ERR_USAGE, "--sensitivity") < 0)
				return -1;
			if (o->nsens >= FIT_MAX_SENS)
				return err_set(e, ERR_USAGE, "--sensitivity: at most %d penalties",
				               FIT_MAX_SENS);
			o->sens[o->nsens++] = v;
			if (comma == NULL)
				break;
			p = comma + 1;
		}
	}
	return 0;
}

int
fit_options_read(const cJSON *options, struct fit_options *o, struct err *e)
{
	const cJSON *v;

	fit_options_init(o);
	if (options == NULL)
		return 0;
	if (!cJSON_IsObject(options))
		return err_set(e, ERR_INPUT, "\"options\": expected an object");
	cJSON_ArrayForEach(v, options)
	{
		if (strcmp(v->string, "level") && strcmp(v->string, "black_penalty") &&
		    strcmp(v->string, "sensitivity") && strcmp(v->string, "pairs"))
			return err_set(e, ERR_INPUT, "\"options\": unknown field \"%s\"",
			               v->string);
	}
	if (json_get_number(options, "level", 0, &o->level, e) < 0)
		return err_prefix(e, "\"options\"");
	if (check_level(o->level, e, ERR_INPUT, "\"options\": \"level\"") < 0)
		return -1;
	v = json_get(options, "black_penalty");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "estimate") == 0) {
		o->estimate = 1;
	} else if (cJSON_IsNumber(v)) {
		o->have_penalty = 1;
		o->penalty = v->valuedouble;
		if (check_penalty(o->penalty, e, ERR_INPUT, "\"options\": \"black_penalty\"") < 0)
			return -1;
	} else if (v != NULL && !cJSON_IsNull(v)) {
		return err_set(e, ERR_INPUT,
		               "\"options\": \"black_penalty\": expected a number or \"estimate\"");
	}
	v = json_get(options, "pairs");
	if (v != NULL && !cJSON_IsTrue(v))
		return err_set(e, ERR_INPUT, "\"options\": \"pairs\": expected true");
	o->pairs = v != NULL;
	v = json_get(options, "sensitivity");
	if (v != NULL) {
		const cJSON *x;
		if (!cJSON_IsArray(v))
			return err_set(
			    e, ERR_INPUT,
			    "\"options\": \"sensitivity\": expected an array of numbers");
		o->nsens = 0;
		cJSON_ArrayForEach(x, v)
		{
			if (!cJSON_IsNumber(x) || o->nsens >= FIT_MAX_SENS)
				return err_set(
				    e, ERR_INPUT,
				    "\"options\": \"sensitivity\": expected at most %d numbers",
				    FIT_MAX_SENS);
			if (check_penalty(x->valuedouble, e, ERR_INPUT,
			                  "\"options\": \"sensitivity\"") < 0)
				return -1;
			o->sens[o->nsens++] = x->valuedouble;
		}
		if (o->nsens == 0)
			return err_set(
			    e, ERR_INPUT,
			    "\"options\": \"sensitivity\": expected at least one number");
	}
	return 0;
}

/* ---- input ---- */

struct blk {
	long index;    /* "block", or 0 when the document gave none */
	double anchor; /* Elo */
	int black;
	long w, d, l;
};

/* The model's view of the blocks: the reader's (protocol/blocks.h) plus
 * the blocks grouped by condition. */
struct input {
	struct blocks src;
	int freeze; /* 1 for cohort.freeze/1 */
	size_t ncond;
	const struct blocks_unit *unit; /* the reader's (family, condition) units */
	size_t nb;
	struct blk *b;
	size_t *cond; /* condition index per block */
	int have_penalty;
	double penalty;
	size_t *order; /* block indices grouped by condition */
	size_t *first; /* ncond + 1: condition c's are order[first[c]..first[c+1]) */
};

static void
input_release(struct input *in)
{
	blocks_release(&in->src);
	free(in->b);
	free(in->cond);
	free(in->order);
	free(in->first);
	memset(in, 0, sizeof *in);
}

/* Group block indices by condition, keeping their order. */
static int
group_blocks(struct input *in)
{
	in->first = calloc(in->ncond + 2, sizeof *in->first);
	in->order = malloc((in->nb + 1) * sizeof *in->order);
	if (in->first == NULL || in->order == NULL)
		return -1;
	for (size_t i = 0; i < in->nb; i++)
		in->first[in->cond[i] + 2]++;
	for (size_t c = 0; c < in->ncond; c++)
		in->first[c + 2] += in->first[c + 1];
	for (size_t i = 0; i < in->nb; i++)
		in->order[in->first[in->cond[i] + 1]++] = i;
	return 0;
}

/* Whether doc says it is a freeze. */
static int
in_is_freeze(const cJSON *doc)
{
	const cJSON *k = json_get(doc, "kind");

	return cJSON_IsString(k) && strcmp(k->valuestring, "cohort.freeze/1") == 0;
}

static int
read_input(const cJSON *doc, const char *name, const char *id, struct input *in,
    struct err *e)
{
	memset(in, 0, sizeof *in);
	if (bound_blocks_read(doc, name, id, &in->src, e) < 0)
		return -1;
	in->freeze = in->src.is_freeze;
	in->ncond = in->src.nunit;
	in->unit = in->src.units;
	in->nb = in->src.n;
	in->have_penalty = in->src.have_penalty;
	in->penalty = in->src.black_penalty;
	in->b = calloc(in->nb + 1, sizeof *in->b);
	in->cond = calloc(in->nb + 1, sizeof *in->cond);
	if (in->b == NULL || in->cond == NULL) {
		input_release(in);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < in->nb; i++) {
		const struct blocks_block *s = &in->src.b[i];
		in->b[i] = (struct blk){ s->numbered ? 0 : s->block, s->anchor, s->black, (long)s->w, (long)s->d,
			(long)s->l };
		in->cond[i] = s->unit;
	}
	if (group_blocks(in) < 0) {
		input_release(in);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* ---- output ---- */

/* A builder that remembers an allocation failure instead of checking each
 * call. */
struct bld {
	int oom;
};

static cJSON *
chk(struct bld *k, cJSON *item)
{
	if (item == NULL)
		k->oom = 1;
	return item;
}

static void
put_num(struct bld *k, cJSON *o, const char *key, double x)
{
	chk(k, json_add_number(o, key, x));
}

/* A rating in Elo, rounded; null when not finite. */
static void
put_elo(struct bld *k, cJSON *o, const char *key, double theta)
{
	if (isfinite(theta))
		put_num(k, o, key, json_round(theta / FIT_LOG_PER_ELO, 0.01));
	else
		chk(k, json_add_null(o, key));
}

static cJSON *
elo_item(double theta)
{
	return isfinite(theta) ? cJSON_CreateNumber(json_round(theta / FIT_LOG_PER_ELO, 0.01))
	                       : cJSON_CreateNull();
}

static void
put_interval(struct bld *k, cJSON *o, const char *key, double lo, double hi, int elo)
{
	cJSON *a = chk(k, cJSON_CreateArray());

	if (a == NULL)
		return;
	if (!cJSON_AddItemToObject(o, key, a)) {
		cJSON_Delete(a);
		k->oom = 1;
		return;
	}
	if (elo) {
		chk(k, cJSON_AddItemToArray(a, elo_item(lo)) ? a : NULL);
		chk(k, cJSON_AddItemToArray(a, elo_item(hi)) ? a : NULL);
	} else {
		/* in ln nu: -inf is nu = 0, the closed end of a boundary estimate */
		double v[2] = {lo, hi};
		for (int j = 0; j < 2; j++) {
			cJSON *it = isfinite(v[j]) || v[j] == -INFINITY
			                ? cJSON_CreateNumber(json_round(exp(v[j]), 1e-6))
			                : cJSON_CreateNull();
			chk(k, cJSON_AddItemToArray(a, it) ? a : NULL);
		}
	}
}

static cJSON *
add_array(struct bld *k, cJSON *o, const char *key)
{
	cJSON *a = chk(k, cJSON_CreateArray());

	if (a != NULL && !cJSON_AddItemToObject(o, key, a)) {
		cJSON_Delete(a);
		k->oom = 1;
		return NULL;
	}
	return a;
}

static cJSON *
add_object(struct bld *k, cJSON *o, const char *key)
{
	cJSON *a = chk(k, cJSON_CreateObject());

	if (a == NULL)
		return NULL;
	if (key ? !cJSON_AddItemToObject(o, key, a) : !cJSON_AddItemToArray(o, a)) {
		cJSON_Delete(a);
		k->oom = 1;
		return NULL;
	}
	return a;
}

static void
push_num(struct bld *k, cJSON *a, double x)
{
	cJSON *it = chk(k, cJSON_CreateNumber(x));

	if (it != NULL && !cJSON_AddItemToArray(a, it)) {
		cJSON_Delete(it);
		k->oom = 1;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const char *
status_name(int sat)
{
	switch (sat) {
	case FIT_SAT_UP: return "all_wins";
	case FIT_SAT_DOWN: return "all_losses";
	case FIT_EMPTY: return "no_games";
	default: return "finite";
	}
}

/* A one-sided bound {side, value} of a saturated condition. */
static void
put_bound(struct bld *k, cJSON *o, const char *key, int lower, double theta)
{
	cJSON *bd = add_object(k, o, key);

	if (bd != NULL) {
		chk(k, json_add_string(bd, "side", lower ? "lower" : "upper"));
		put_elo(k, bd, "value", theta);
	}
}

/* One block's entry of a condition's "blocks": its counts, score and the
 * one-block shortcut rating (null at a score of 0 or 1). */
static void
put_block(struct bld *k, cJSON *blocks, const struct blk *b, long n, double pen_elo)
{
	cJSON *bo = add_object(k, blocks, NULL);
	double S;

	if (bo == NULL)
		return;
	put_num(k, bo, "anchor", json_round(b->anchor, 0.01));
	if (b->index > 0)
		put_num(k, bo, "block", (double)b->index);
	chk(k, json_add_string(bo, "color", b->black ? "black" : "white"));
	put_num(k, bo, "games", (double)n);
	put_num(k, bo, "w", (double)b->w);
	put_num(k, bo, "d", (double)b->d);
	put_num(k, bo, "l", (double)b->l);
	if (n == 0) {
		chk(k, json_add_null(bo, "score"));
		chk(k, json_add_null(bo, "shortcut"));
		return;
	}
	S = (b->w + 0.5 * b->d) / (double)n;
	put_num(k, bo, "score", json_round(S, 1e-6));
	if (S > 0 && S < 1)
		put_num(k, bo, "shortcut",
		        json_round(b->anchor + (b->black ? pen_elo : -pen_elo) +
		                       400 * log10(S / (1 - S)),
		                   0.01));
	else
		chk(k, json_add_null(bo, "shortcut"));
}

/* The z of a two-sided interval at level. */
static double
wald_z(double level)
{
	return gsl_cdf_ugaussian_Pinv(0.5 + 0.5 * level);
}

/* A Wald interval x -/+ z sqrt(v) (log units) in Elo; nulls where x or v
 * is not finite. */
static void
put_wald(struct bld *k, cJSON *o, const char *key, double x, double v, double z)
{
	if (isfinite(x) && isfinite(v) && v >= 0)
		put_interval(k, o, key, x - z * sqrt(v), x + z * sqrt(v), 1);
	else
		put_interval(k, o, key, NAN, NAN, 1);
}

/* A condition's pair-aware interval and design effect (the robust
 * variance over the model's), with --pairs. */
static void
put_pair_fields(struct bld *k, cJSON *o, size_t c, const struct fit_result *r,
    const struct fit_pairs *pp, double z)
{
	double vr = fit_pairs_robust(pp, (long)c, (long)c), vm = fit_pairs_model(pp, (long)c, (long)c);

	put_wald(k, o, "pair_interval", r->theta[c], vr, z);
	if (isfinite(vr) && isfinite(vm) && vm > 0)
		put_num(k, o, "design_effect", json_round(vr / vm, 1e-6));
	else
		chk(k, json_add_null(o, "design_effect"));
}

/* One condition's entry, its blocks with their logistic shortcut. */
static void
put_condition(struct bld *k, cJSON *arr, const struct input *in, size_t c,
              const struct fit_model *m, const struct fit_result *r, double pen_elo,
              const struct fit_pairs *pp, double z)
{
	cJSON *o = add_object(k, arr, NULL), *blocks, *anchors;
	long w = 0, d = 0, l = 0;
	size_t na = 0;
	double *an;

	if (o == NULL)
		return;
	an = malloc((in->first[c + 1] - in->first[c] + 1) * sizeof *an);
	if (an == NULL) {
		k->oom = 1;
		return;
	}
	chk(k, json_add_string(o, "condition", in->unit[c].condition));
	if (in->src.families)
		chk(k, json_add_string(o, "family", in->unit[c].family));
	blocks = add_array(k, o, "blocks");
	for (size_t j = in->first[c]; j < in->first[c + 1]; j++) {
		const struct blk *b = &in->b[in->order[j]];
		long n = b->w + b->d + b->l;
		w += b->w;
		d += b->d;
		l += b->l;
		if (n > 0)
			an[na++] = b->anchor;
		if (blocks != NULL)
			put_block(k, blocks, b, n, pen_elo);
	}
	qsort(an, na, sizeof *an, cmp_double);
	anchors = add_array(k, o, "anchors");
	for (size_t j = 0; j < na; j++)
		if (anchors && (j == 0 || an[j] != an[j - 1]))
			push_num(k, anchors, json_round(an[j], 0.01));
	free(an);
	put_num(k, o, "games", (double)(w + d + l));
	put_num(k, o, "w", (double)w);
	put_num(k, o, "d", (double)d);
	put_num(k, o, "l", (double)l);
	chk(k, json_add_string(o, "status", status_name(m->sat[c])));
	put_elo(k, o, "rating", r->theta[c]);
	put_interval(k, o, "interval", r->lo[c], r->hi[c], 1);
	if (m->sat[c] == FIT_SAT_UP || m->sat[c] == FIT_SAT_DOWN) {
		/* bound: the exact one; profile_bound: the profile interval's end */
		int up = m->sat[c] == FIT_SAT_UP;
		put_bound(k, o, "bound", up, r->bound[c]);
		put_bound(k, o, "profile_bound", up, up ? r->lo[c] : r->hi[c]);
	} else {
		chk(k, json_add_null(o, "bound"));
	}
	if (pp != NULL)
		put_pair_fields(k, o, c, r, pp, z);
}

static struct fit_model *
model_build(const struct input *in, struct err *e)
{
	struct fit_block_in *fb = malloc((in->nb + 1) * sizeof *fb);
	struct fit_model *m;

	if (fb == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < in->nb; i++) {
		fb[i].cond = in->cond[i];
		fb[i].anchor = in->b[i].anchor;
		fb[i].black = in->b[i].black;
		fb[i].w = in->b[i].w;
		fb[i].d = in->b[i].d;
		fb[i].l = in->b[i].l;
	}
	m = fit_model_new(in->ncond, fb, in->nb, e);
	free(fb);
	return m;
}

/* The document's "options": the level, the penalty (or "estimate") and
 * the sensitivity's assumed penalties. */
static void
put_options(struct bld *k, cJSON *doc, const struct fit_options *o, double pen_elo)
{
	cJSON *x, *a;

	x = add_object(k, doc, "options");
	if (x != NULL) {
		put_num(k, x, "level", o->level);
		if (o->estimate)
			chk(k, json_add_string(x, "black_penalty", "estimate"));
		else
			put_num(k, x, "black_penalty", json_round(pen_elo, 0.01));
		a = add_array(k, x, "sensitivity");
		for (size_t i = 0; a && i < o->nsens; i++)
			push_num(k, a, o->sens[i]);
		if (o->pairs)
			chk(k, json_add_bool(x, "pairs", 1));
	}
}

/* "sensitivity": one row per assumed penalty, each condition's rating
 * refitted with it. */
static void
put_sensitivity(struct bld *k, cJSON *doc, const struct input *in, const struct fit_options *o,
                const struct fit_result *sens)
{
	cJSON *a;

	a = add_array(k, doc, "sensitivity");
	for (size_t i = 0; a && i < o->nsens; i++) {
		cJSON *row = add_object(k, a, NULL), *ra;
		if (row == NULL)
			continue;
		put_num(k, row, "black_penalty", o->sens[i]);
		put_num(k, row, "nu", json_round(exp(sens[i].phi), 1e-6));
		ra = add_array(k, row, "ratings");
		for (size_t c = 0; ra && c < in->ncond; c++) {
			cJSON *one = add_object(k, ra, NULL);
			if (one == NULL)
				continue;
			chk(k, json_add_string(one, "condition", in->unit[c].condition));
			if (in->src.families)
				chk(k, json_add_string(one, "family", in->unit[c].family));
			put_elo(k, one, "rating", sens[i].theta[c]);
		}
	}
}

/* One pentanomial cell: its pairs, counts, mean score a game and that
 * mean's standard error from the pairs and from the games alone. */
static void
put_penta(struct bld *k, cJSON *arr, const struct input *in, const struct fit_penta *pc)
{
	cJSON *o = add_object(k, arr, NULL), *a;
	double N = 0, mu = 0, vp = 0, vg = 0;

	if (o == NULL)
		return;
	chk(k, json_add_string(o, "condition", in->unit[pc->unit].condition));
	if (in->src.families)
		chk(k, json_add_string(o, "family", in->unit[pc->unit].family));
	put_num(k, o, "anchor", json_round(pc->anchor, 0.01));
	a = add_array(k, o, "counts");
	for (int i = 0; a && i < 5; i++) {
		push_num(k, a, (double)pc->n[i]);
		N += (double)pc->n[i];
		mu += (double)pc->n[i] * i / 4.0;
	}
	mu /= N;
	for (int i = 0; i < 5; i++)
		vp += (double)pc->n[i] * (i / 4.0 - mu) * (i / 4.0 - mu);
	for (int j = 0; j < 3; j++)
		vg += (double)pc->games[j] * (j / 2.0 - mu) * (j / 2.0 - mu);
	vp /= N;
	vg /= 2 * N;
	put_num(k, o, "pairs", N);
	put_num(k, o, "score", json_round(mu, 1e-6));
	put_num(k, o, "se_pentanomial", json_round(sqrt(vp / N), 1e-6));
	put_num(k, o, "se_trinomial", json_round(sqrt(vg / (2 * N)), 1e-6));
}

/* "pairs": the method, the clusters, the penalty and nu with their
 * pair-aware intervals, and the pentanomial cells. */
static void
put_pairs(struct bld *k, cJSON *doc, const struct input *in, const struct fit_options *o,
    const struct fit_result *r, const struct fit_pairs *pp, double z)
{
	cJSON *x = add_object(k, doc, "pairs"), *y, *a;
	size_t alone, clusters, npairs = fit_pairs_count(pp, &alone, &clusters), nc;
	const struct fit_penta *pc = fit_pairs_penta(pp, &nc);
	double v;

	if (x == NULL)
		return;
	chk(k, json_add_string(x, "method", "cluster-robust sandwich (CR1: G/(G-1) times the "
	    "inverse information, the clusters' score products, the inverse information), a whole "
	    "colour-reversed pair one cluster and a game alone its own; Wald intervals at the "
	    "level"));
	put_num(k, x, "pairs", (double)npairs);
	put_num(k, x, "alone", (double)alone);
	put_num(k, x, "clusters", (double)clusters);
	y = add_object(k, x, "black_penalty");
	if (y != NULL) {
		put_elo(k, y, "value", r->pen);
		if (o->estimate) {
			put_interval(k, y, "interval", r->pen_lo, r->pen_hi, 1);
			put_wald(k, y, "pair_interval", r->pen, fit_pairs_robust(pp, FIT_PAIRS_PEN,
			    FIT_PAIRS_PEN), z);
		} else {
			chk(k, json_add_null(y, "interval"));
			chk(k, json_add_null(y, "pair_interval"));
		}
	}
	y = add_object(k, x, "draw");
	if (y != NULL) {
		put_num(k, y, "nu", json_round(exp(r->phi), 1e-6));
		v = fit_pairs_robust(pp, FIT_PAIRS_PHI, FIT_PAIRS_PHI);
		if (isfinite(r->phi) && isfinite(v) && v >= 0)
			put_interval(k, y, "pair_interval", r->phi - z * sqrt(v), r->phi + z * sqrt(v), 0);
		else
			chk(k, json_add_null(y, "pair_interval"));
	}
	a = add_array(k, x, "pentanomial");
	for (size_t i = 0; a && i < nc; i++)
		put_penta(k, a, in, &pc[i]);
}

/* "diagnostics": how the optimizer ended, and the chi-squared cut. */
static void
put_diagnostics(struct bld *k, cJSON *doc, const struct fit_options *o,
                const struct fit_result *r)
{
	cJSON *x;

	x = add_object(k, doc, "diagnostics");
	if (x != NULL) {
		put_num(k, x, "iterations", r->iterations);
		put_num(k, x, "max_gradient", json_round(r->max_gradient, FIT_GRAD_TOL));
		put_num(k, x, "tolerance", r->tolerance);
		chk(k, json_add_bool(x, "converged", r->converged));
		put_num(k, x, "log_likelihood", json_round(r->loglik, 1e-6));
		put_num(k, x, "chi2_cut", json_round(fit_chi2_quantile(o->level), 1e-6));
	}
}

static int
build_doc(const cJSON *input, const struct input *in, const struct fit_options *o,
          const struct fit_model *m, const struct fit_result *r, const struct fit_result *sens,
          const struct fit_pairs *pp, cJSON **out, struct err *e)
{
	double z = wald_z(o->level);
	struct bld k = {0};
	const char *id = in->src.id; /* the blocks reader's: one canonical writing */
	cJSON *doc, *x, *a;
	double pen_elo = r->pen / FIT_LOG_PER_ELO;

	doc = cJSON_CreateObject();
	if (doc == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	chk(&k, json_add_string(doc, "kind", "cohort.fit/1"));
	chk(&k, json_add_string(doc, "input", id));
	chk(&k,
	    json_add_string(doc, "input_kind", in->freeze ? "cohort.freeze/1" : "cohort.blocks/1"));
	chk(&k, json_add_string(doc, "estimator", FIT_ESTIMATOR));
	chk(&k,
	    json_add_string(doc, "model",
	                    "P(win)=x/(x+1+nu*sqrt(x)), P(draw)=nu*sqrt(x)/(x+1+nu*sqrt(x)), "
	                    "P(loss)=1/(x+1+nu*sqrt(x)), x=10^((R-anchor-p)/400) for a Black game, "
	                    "10^((R-anchor+p)/400) for a White game"));

	put_options(&k, doc, o, pen_elo);

	x = add_object(&k, doc, "black_penalty");
	if (x != NULL) {
		put_num(&k, x, "value", json_round(pen_elo, 0.01));
		chk(&k, json_add_bool(x, "estimated", o->estimate));
		if (o->estimate)
			put_interval(&k, x, "interval", r->pen_lo, r->pen_hi, 1);
		else
			chk(&k, json_add_null(x, "interval"));
	}

	x = add_object(&k, doc, "draw");
	if (x != NULL) {
		put_num(&k, x, "nu", json_round(exp(r->phi), 1e-6));
		put_interval(&k, x, "interval", r->phi_lo, r->phi_hi, 0);
	}

	a = add_array(&k, doc, "conditions");
	for (size_t c = 0; a && c < in->ncond; c++)
		put_condition(&k, a, in, c, m, r, pen_elo, pp, z);

	put_sensitivity(&k, doc, in, o, sens);
	if (pp != NULL)
		put_pairs(&k, doc, in, o, r, pp, z);

	put_diagnostics(&k, doc, o, r);
	if (k.oom) {
		cJSON_Delete(doc);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	*out = doc;
	return 0;
}

/* The freeze's pairs for the fit's units, and their covariances at r. */
static struct fit_pairs *
pairs_for(const cJSON *input, const struct input *in, const struct fit_model *m,
    const struct fit_result *r, int estimate_pen, struct err *e)
{
	const char **fam = calloc(in->ncond + 1, sizeof *fam), **cond = calloc(in->ncond + 1,
	    sizeof *cond);
	struct fit_pairs *pp = NULL;

	if (fam == NULL || cond == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
	} else {
		for (size_t c = 0; c < in->ncond; c++) {
			fam[c] = in->unit[c].family;
			cond[c] = in->unit[c].condition;
		}
		pp = fit_pairs_new(input, in->ncond, in->src.families ? fam : NULL, cond, e);
		if (pp != NULL && fit_pairs_cov(pp, m, r, estimate_pen, e) < 0) {
			fit_pairs_free(pp);
			pp = NULL;
		}
	}
	free(fam);
	free(cond);
	return pp;
}

int
fit_run(const cJSON *input, const struct fit_options *opts, cJSON **out, struct err *e)
{
	struct input in;
	struct fit_model *m;
	struct fit_result r = FIT_RESULT_INIT, *sens;
	struct fit_spec spec;
	struct fit_pairs *pp = NULL;
	struct fit_options po = *opts, *o = &po;
	int rc = -1;
	size_t done = 0;

	*out = NULL;
	/* with pairs, both colours are played: the penalty is estimated
	 * unless it is given */
	if (o->pairs && !o->have_penalty)
		o->estimate = 1;
	if (o->pairs && !in_is_freeze(input))
		return err_set(e, ERR_INPUT, "%s: \"kind\": --pairs needs a freeze (cohort.freeze/1), "
		    "whose games name their pairs", o->name ? o->name : "input");
	if (o->pairs && !cJSON_IsObject(json_get(input, "pairs")))
		return err_set(e, ERR_INPUT, "%s: \"pairs\": missing: --pairs needs a freeze whose "
		    "games name their pairs (cohort-freeze(1))", o->name ? o->name : "input");
	if (read_input(input, o->name ? o->name : "input", o->input_id, &in, e) < 0)
		return -1;
	m = model_build(&in, e);
	sens = calloc(o->nsens + 1, sizeof *sens);
	if (m == NULL || sens == NULL) {
		if (m != NULL)
			err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	spec.pen = (o->have_penalty   ? o->penalty
	            : in.have_penalty ? in.penalty
	                              : FIT_DEFAULT_PENALTY) *
	           FIT_LOG_PER_ELO;
	spec.estimate_pen = o->estimate;
	spec.level = o->level;
	spec.profiles = 1;
	spec.direct = o->direct;
	if (fit_solve_all(m, &spec, &r, e) < 0) {
		err_prefix(e, "%s", o->name ? o->name : "input");
		goto out;
	}
	for (; done < o->nsens; done++) {
		struct fit_spec s = spec;
		s.pen = o->sens[done] * FIT_LOG_PER_ELO;
		s.estimate_pen = 0;
		s.profiles = 0;
		if (fit_solve_all(m, &s, &sens[done], e) < 0) {
			err_prefix(e, "%s: sensitivity at black penalty %g", o->name ? o->name : "input",
			    o->sens[done]);
			goto out;
		}
	}
	if (o->pairs && (pp = pairs_for(input, &in, m, &r, spec.estimate_pen, e)) == NULL) {
		err_prefix(e, "%s", o->name ? o->name : "input");
		goto out;
	}
	rc = build_doc(input, &in, o, m, &r, sens, pp, out, e);
out:
	fit_pairs_free(pp);
	for (size_t i = 0; sens && i < done; i++)
		fit_result_release(&sens[i]);
	free(sens);
	fit_result_release(&r);
	fit_model_free(m);
	input_release(&in);
	return rc;
}

int
fit_document(const cJSON *input, const cJSON *options, cJSON **out, struct err *e)
{
	struct fit_options o;

	if (fit_options_read(options, &o, e) < 0)
		return -1;
	return fit_run(input, &o, out, e);
}

int
fit_refit_check(const cJSON *fitdoc, const cJSON *input, const char *input_id, int *same,
    struct err *e)
{
	struct fit_options o;
	const char *kind;
	const cJSON *opts;
	cJSON *again = NULL;
	struct buf a = BUF_INIT, b = BUF_INIT;
	int rc = -1;

	*same = 0;
	if (json_get_string(fitdoc, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.fit/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.fit/1, got %s", kind);
	if (json_get_object(fitdoc, "options", 1, &opts, e) < 0)
		return -1;
	if (fit_options_read(opts, &o, e) < 0)
		return -1;
	o.input_id = input_id;
	if (fit_run(input, &o, &again, e) < 0)
		return -1;
	if (canon_write(fitdoc, &a, e) == 0 && canon_write(again, &b, e) == 0) {
		*same = a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
		rc = 0;
	}
	cJSON_Delete(again);
	buf_release(&a);
	buf_release(&b);
	return rc;
}

/* ---- table ---- */

/* Text of a number from the document, rounded to whole Elo for reading. */
static void
fmt_elo(const cJSON *v, char *out, size_t n)
{
	if (cJSON_IsNumber(v))
		snprintf(out, n, "%.0f", v->valuedouble);
	else
		snprintf(out, n, "open");
}

#define TCOLS 6
#define TCELL 96

struct trow {
	char cell[TCOLS][TCELL];
};

static void
table_print(struct buf *out, struct trow *rows, size_t n, int ncol)
{
	size_t wdt[TCOLS] = {0};

	for (size_t i = 0; i < n; i++)
		for (int j = 0; j < ncol; j++)
			if (strlen(rows[i].cell[j]) > wdt[j])
				wdt[j] = strlen(rows[i].cell[j]);
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < ncol; j++) {
			if (j == 0)
				buf_printf(out, "%-*s", (int)wdt[j], rows[i].cell[j]);
			else
				buf_printf(out, "  %*s", (int)wdt[j], rows[i].cell[j]);
		}
		buf_addc(out, '\n');
	}
}

/* A condition's label in tables: its name, or "family/name" when the
 * document's conditions belong to more than one family. */
static void
unit_label(const cJSON *c, const cJSON *conds, char *out, size_t n)
{
	const cJSON *name = json_get(c, "condition"), *fam = json_get(c, "family"), *x;
	int several = 0;

	cJSON_ArrayForEach(x, conds) {
		const cJSON *f = json_get(x, "family");
		several |= cJSON_IsString(f) && cJSON_IsString(fam) && strcmp(f->valuestring, fam->valuestring) != 0;
	}
	snprintf(out, n, "%s%s%s", several ? fam->valuestring : "", several ? "/" : "",
	    cJSON_IsString(name) ? name->valuestring : "?");
}

/* One condition's row of the table: label, games, W-D-L, tested anchors,
 * the joint local Elo (or the exact bound) and its profile interval. */
static void
condition_row(const cJSON *c, const cJSON *conds, struct trow *t)
{
	const cJSON *an = json_get(c, "anchors"), *iv = json_get(c, "interval");
	const cJSON *bd = json_get(c, "bound");
	char lo[32], hi[32];
	int na = cJSON_GetArraySize(an);

	unit_label(c, conds, t->cell[0], TCELL);
	snprintf(t->cell[1], TCELL, "%.0f", cJSON_GetNumberValue(json_get(c, "games")));
	snprintf(
	    t->cell[2], TCELL, "%.0f-%.0f-%.0f", cJSON_GetNumberValue(json_get(c, "w")),
	    cJSON_GetNumberValue(json_get(c, "d")), cJSON_GetNumberValue(json_get(c, "l")));
	if (na == 0)
		snprintf(t->cell[3], TCELL, "none");
	else if (na == 1)
		snprintf(t->cell[3], TCELL, "%g", cJSON_GetArrayItem(an, 0)->valuedouble);
	else
		snprintf(t->cell[3], TCELL, "%g-%g", cJSON_GetArrayItem(an, 0)->valuedouble,
		         cJSON_GetArrayItem(an, na - 1)->valuedouble);
	fmt_elo(cJSON_GetArrayItem(iv, 0), lo, sizeof lo);
	fmt_elo(cJSON_GetArrayItem(iv, 1), hi, sizeof hi);
	if (cJSON_IsObject(bd)) {
		/* the exact bound; the profile column keeps the profile end */
		const cJSON *side = json_get(bd, "side");
		int lower = cJSON_IsString(side) && strcmp(side->valuestring, "lower") == 0;
		char v[32];
		fmt_elo(json_get(bd, "value"), v, sizeof v);
		snprintf(t->cell[4], TCELL, "%s %s", lower ? ">=" : "<=", v);
		snprintf(t->cell[5], TCELL, "%s .. %s", lo, hi);
	} else if (cJSON_IsNumber(json_get(c, "rating"))) {
		fmt_elo(json_get(c, "rating"), t->cell[4], TCELL);
		snprintf(t->cell[5], TCELL, "%s .. %s", lo, hi);
	} else {
		snprintf(t->cell[4], TCELL, "no games");
		snprintf(t->cell[5], TCELL, "-");
	}
}

/* The lines under the table: the draw parameter and the black penalty,
 * with their profile intervals at level lv. */
static void
param_lines(const cJSON *draw, const cJSON *pen, const char *lv, struct buf *out)
{
	const cJSON *div = json_get(draw, "interval");

	buf_printf(out, "draw parameter nu %.2f (profile %s: %.2f .. %.2f)\n",
	           cJSON_GetNumberValue(json_get(draw, "nu")), lv,
	           cJSON_GetNumberValue(cJSON_GetArrayItem(div, 0)),
	           cJSON_GetNumberValue(cJSON_GetArrayItem(div, 1)));
	if (cJSON_IsTrue(json_get(pen, "estimated"))) {
		const cJSON *iv = json_get(pen, "interval");
		char lo[32], hi[32];
		fmt_elo(cJSON_GetArrayItem(iv, 0), lo, sizeof lo);
		fmt_elo(cJSON_GetArrayItem(iv, 1), hi, sizeof hi);
		buf_printf(out, "black penalty %.0f estimated (profile %s: %s .. %s)\n",
		           cJSON_GetNumberValue(json_get(pen, "value")), lv, lo, hi);
	} else {
		buf_printf(out, "black penalty %g assumed\n",
		           cJSON_GetNumberValue(json_get(pen, "value")));
	}
}

/* Sensitivity: one row per assumed penalty, one column per condition. */
static void
sensitivity_lines(const cJSON *conds, const cJSON *sens, struct buf *out)
{
	const cJSON *c, *row;

	if (cJSON_GetArraySize(sens) == 0)
		return;
	buf_printf(out, "\nassumed black penalty");
	cJSON_ArrayForEach(c, conds) {
		char label[TCELL];
		unit_label(c, conds, label, sizeof label);
		buf_printf(out, "  %8s", label);
	}
	buf_addc(out, '\n');
	cJSON_ArrayForEach(row, sens)
	{
		const cJSON *r;
		int j = 0;
		buf_printf(out, "%21g",
		           cJSON_GetNumberValue(json_get(row, "black_penalty")));
		cJSON_ArrayForEach(r, json_get(row, "ratings"))
		{
			const cJSON *st =
			    json_get(cJSON_GetArrayItem(conds, j++), "status");
			char v[32];
			fmt_elo(json_get(r, "rating"), v, sizeof v);
			/* No point for a saturated condition: say so. */
			if (!cJSON_IsNumber(json_get(r, "rating")))
				snprintf(v, sizeof v, "%s",
				         cJSON_IsString(st) &&
				                 strcmp(st->valuestring, "no_games") == 0
				             ? "-"
				             : "bound");
			buf_printf(out, "  %8s", v);
		}
		buf_addc(out, '\n');
	}
}

/* With --pairs: each condition's pair-aware interval and design effect,
 * the penalty's two intervals, then the pentanomial table. */
static void
pairs_lines(const cJSON *doc, const cJSON *conds, const char *lv, struct buf *out)
{
	const cJSON *pp = json_get(doc, "pairs"), *c, *x;
	const cJSON *bp = json_get(pp, "black_penalty");
	struct trow *rows;
	size_t n = (size_t)cJSON_GetArraySize(conds), i = 0, np;

	if (!cJSON_IsObject(pp))
		return;
	buf_printf(out, "\npairs: %.0f whole, %.0f games alone (pair-aware intervals: a pair one "
	    "cluster of a sandwich)\n", cJSON_GetNumberValue(json_get(pp, "pairs")),
	    cJSON_GetNumberValue(json_get(pp, "alone")));
	if ((rows = calloc(n + 1, sizeof *rows)) == NULL)
		return;
	snprintf(rows[0].cell[0], TCELL, "condition");
	snprintf(rows[0].cell[1], TCELL, "profile %s", lv);
	snprintf(rows[0].cell[2], TCELL, "pair %s", lv);
	snprintf(rows[0].cell[3], TCELL, "design effect");
	cJSON_ArrayForEach(c, conds) {
		const cJSON *iv = json_get(c, "interval"), *pv = json_get(c, "pair_interval");
		const cJSON *de = json_get(c, "design_effect");
		char a[32], b[32];
		i++;
		unit_label(c, conds, rows[i].cell[0], TCELL);
		fmt_elo(cJSON_GetArrayItem(iv, 0), a, sizeof a);
		fmt_elo(cJSON_GetArrayItem(iv, 1), b, sizeof b);
		snprintf(rows[i].cell[1], TCELL, "%s .. %s", a, b);
		fmt_elo(cJSON_GetArrayItem(pv, 0), a, sizeof a);
		fmt_elo(cJSON_GetArrayItem(pv, 1), b, sizeof b);
		snprintf(rows[i].cell[2], TCELL, cJSON_IsNumber(de) ? "%s .. %s" : "-", a, b);
		if (cJSON_IsNumber(de))
			snprintf(rows[i].cell[3], TCELL, "%.2f", de->valuedouble);
		else
			snprintf(rows[i].cell[3], TCELL, "-");
	}
	table_print(out, rows, n + 1, 4);
	free(rows);
	if (cJSON_IsArray(json_get(bp, "pair_interval"))) {
		char a[32], b[32], c2[32], d[32];
		fmt_elo(cJSON_GetArrayItem(json_get(bp, "interval"), 0), a, sizeof a);
		fmt_elo(cJSON_GetArrayItem(json_get(bp, "interval"), 1), b, sizeof b);
		fmt_elo(cJSON_GetArrayItem(json_get(bp, "pair_interval"), 0), c2, sizeof c2);
		fmt_elo(cJSON_GetArrayItem(json_get(bp, "pair_interval"), 1), d, sizeof d);
		buf_printf(out, "black penalty from the pairs %.0f (profile %s: %s .. %s; pair %s: "
		    "%s .. %s)\n", cJSON_GetNumberValue(json_get(bp, "value")), lv, a, b, lv, c2, d);
	}
	np = (size_t)cJSON_GetArraySize(json_get(pp, "pentanomial"));
	if (np == 0 || (rows = calloc(np + 1, sizeof *rows)) == NULL)
		return;
	buf_printf(out, "\npentanomial: pairs by the model's points over both games\n");
	snprintf(rows[0].cell[0], TCELL, "condition");
	snprintf(rows[0].cell[1], TCELL, "anchor");
	snprintf(rows[0].cell[2], TCELL, "0 / 0.5 / 1 / 1.5 / 2");
	snprintf(rows[0].cell[3], TCELL, "pairs");
	snprintf(rows[0].cell[4], TCELL, "score");
	snprintf(rows[0].cell[5], TCELL, "se pairs / games");
	i = 0;
	cJSON_ArrayForEach(x, json_get(pp, "pentanomial")) {
		const cJSON *k = json_get(x, "counts");
		i++;
		unit_label(x, json_get(pp, "pentanomial"), rows[i].cell[0], TCELL);
		snprintf(rows[i].cell[1], TCELL, "%g", cJSON_GetNumberValue(json_get(x, "anchor")));
		snprintf(rows[i].cell[2], TCELL, "%.0f / %.0f / %.0f / %.0f / %.0f",
		    cJSON_GetNumberValue(cJSON_GetArrayItem(k, 0)),
		    cJSON_GetNumberValue(cJSON_GetArrayItem(k, 1)),
		    cJSON_GetNumberValue(cJSON_GetArrayItem(k, 2)),
		    cJSON_GetNumberValue(cJSON_GetArrayItem(k, 3)),
		    cJSON_GetNumberValue(cJSON_GetArrayItem(k, 4)));
		snprintf(rows[i].cell[3], TCELL, "%.0f", cJSON_GetNumberValue(json_get(x, "pairs")));
		snprintf(rows[i].cell[4], TCELL, "%.3f", cJSON_GetNumberValue(json_get(x, "score")));
		snprintf(rows[i].cell[5], TCELL, "%.3f / %.3f",
		    cJSON_GetNumberValue(json_get(x, "se_pentanomial")),
		    cJSON_GetNumberValue(json_get(x, "se_trinomial")));
	}
	table_print(out, rows, np + 1, 6);
	free(rows);
}

int
fit_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *conds, *c, *draw, *opts, *pen, *sens;
	double level = FIT_DEFAULT_LEVEL;
	size_t n, i = 0;
	struct trow *rows;
	char lv[32];

	if (json_get_array(doc, "conditions", 1, &conds, e) < 0 ||
	    json_get_object(doc, "draw", 1, &draw, e) < 0 ||
	    json_get_object(doc, "options", 1, &opts, e) < 0 ||
	    json_get_object(doc, "black_penalty", 1, &pen, e) < 0 ||
	    json_get_array(doc, "sensitivity", 1, &sens, e) < 0 ||
	    json_get_number(opts, "level", 0, &level, e) < 0)
		return -1;
	snprintf(lv, sizeof lv, "%g%%", level * 100);
	n = (size_t)cJSON_GetArraySize(conds);
	rows = calloc(n + 1, sizeof *rows);
	if (rows == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	snprintf(rows[0].cell[0], TCELL, "condition");
	snprintf(rows[0].cell[1], TCELL, "games");
	snprintf(rows[0].cell[2], TCELL, "W-D-L");
	snprintf(rows[0].cell[3], TCELL, "tested anchors");
	snprintf(rows[0].cell[4], TCELL, "joint local Elo");
	snprintf(rows[0].cell[5], TCELL, "profile %s", lv);
	cJSON_ArrayForEach(c, conds)
		condition_row(c, conds, &rows[++i]);
	table_print(out, rows, n + 1, TCOLS);
	free(rows);
	param_lines(draw, pen, lv, out);
	sensitivity_lines(conds, sens, out);
	pairs_lines(doc, conds, lv, out);
	return 0;
}
