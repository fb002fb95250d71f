/* bound.c: exact Clopper-Pearson score bounds and the rating intervals they
 * imply, per block and per condition; the shared reader of cohort blocks. */
#include "bound.h"
#include "beta.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "../common/io.h"
#include "../json/json.h"

int
bound_blocks_read(const cJSON *doc, const char *name, const char *id, struct blocks *c,
    struct err *e)
{
	if (blocks_read_id(doc, name, id, c, e) < 0)
		return -1;
	if (c->n == 0) {
		blocks_release(c);
		return err_set(e, ERR_INPUT, "%s: \"blocks\": the cohort has no block", name);
	}
	return 0;
}

double
bound_correction(int black, double penalty)
{
	return black ? penalty : -penalty;
}

int
bound_score_interval(double x, double n, double level, int one_sided, double *lo, double *hi)
{
	double a = one_sided ? 1 - level : (1 - level) / 2;

	/* lower: P(X >= x | p) = I_p(x, n - x + 1) = a; upper: P(X <= x | p)
	 * = 1 - I_p(x + 1, n - x) = a */
	*lo = 0;
	*hi = 1;
	if (x > 0 && beta_quantile(a, x, n - x + 1, 0, lo) < 0)
		return -1;
	if (x < n && beta_quantile(a, x + 1, n - x, 1, hi) < 0)
		return -1;
	return 0;
}

double
bound_rating(double anchor, double correction, double s)
{
	if (s <= 0)
		return -INFINITY;
	if (s >= 1)
		return INFINITY;
	return anchor + correction + 400 * log10(s / (1 - s));
}

/* Score, interval and rating fields shared by blocks and conditions. */
static int
add_estimate(cJSON *o, int w, int d, int l, double ref, const struct bound_options *opt,
             struct err *e)
{
	double n = (double)w + d + l, x = w + 0.5 * d, s = x / n, lo, hi, rlo, rhi;
	cJSON *si, *ri, *bd;
	int sat = x <= 0 || x >= n;

	if (bound_score_interval(x, n, opt->level, opt->one_sided, &lo, &hi) < 0)
		return err_set(e, ERR_NUMERIC, "beta quantile failed for %g of %g", x, n);
	rlo = bound_rating(ref, 0, lo);
	rhi = bound_rating(ref, 0, hi);
	if (!json_add_number(o, "score", json_round(s, 1e-6)) ||
	    !(si = cJSON_AddArrayToObject(o, "score_interval")) ||
	    !(ri = cJSON_AddArrayToObject(o, "rating_interval")) ||
	    !json_add_bool(o, "saturated", sat))
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_AddItemToArray(si, cJSON_CreateNumber(json_round(lo, 1e-6)));
	cJSON_AddItemToArray(si, cJSON_CreateNumber(json_round(hi, 1e-6)));
	cJSON_AddItemToArray(ri, isfinite(rlo) ? cJSON_CreateNumber(json_round(rlo, 0.01))
	                                       : cJSON_CreateNull());
	cJSON_AddItemToArray(ri, isfinite(rhi) ? cJSON_CreateNumber(json_round(rhi, 0.01))
	                                       : cJSON_CreateNull());
	if (cJSON_GetArraySize(si) != 2 || cJSON_GetArraySize(ri) != 2)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (!sat) {
		if (!json_add_number(o, "rating", json_round(bound_rating(ref, 0, s), 0.01)) ||
		    !json_add_null(o, "bound"))
			return err_set(e, ERR_NOMEM, "out of memory");
		return 0;
	}
	if (!json_add_null(o, "rating") || !(bd = cJSON_AddObjectToObject(o, "bound")) ||
	    !json_add_string(bd, "side", x >= n ? "lower" : "upper") ||
	    !json_add_number(bd, "rating", json_round(x >= n ? rlo : rhi, 0.01)))
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
add_block(cJSON *arr, const struct blocks_block *b, double penalty, const struct bound_options *o,
          struct err *e)
{
	cJSON *it = cJSON_CreateObject();
	double corr = bound_correction(b->black, penalty);

	if (it == NULL || !cJSON_AddItemToArray(arr, it))
		return cJSON_Delete(it), err_set(e, ERR_NOMEM, "out of memory");
	if ((b->family[0] != '\0' && !json_add_string(it, "family", b->family)) ||
	    !json_add_string(it, "condition", b->condition) ||
	    !json_add_number(it, "block", (double)b->block) ||
	    !json_add_number(it, "anchor", json_round(b->anchor, 0.01)) ||
	    !json_add_string(it, "color", b->black ? "black" : "white") ||
	    !json_add_number(it, "correction", json_round(corr, 0.01)) ||
	    !json_add_number(it, "games", (double)b->w + b->d + b->l) ||
	    !json_add_number(it, "w", b->w) || !json_add_number(it, "d", b->d) ||
	    !json_add_number(it, "l", b->l))
		return err_set(e, ERR_NOMEM, "out of memory");
	return add_estimate(it, b->w, b->d, b->l, b->anchor + corr, o, e);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One unit's (family, condition's) blocks pooled: its sums, and its
 * anchors, in block order, filled in one pass over the blocks. */
struct unit_sum {
	long long w, d, l, nb;
	double sa, sc;  /* games-weighted sums of anchor and correction */
	size_t na;      /* anchors in anch[first..first + na) */
	size_t first;
	int done;       /* its condition entry is written */
};

/* One condition: its blocks' games pooled, rated at the games-weighted mean
 * of anchor + correction (a performance rating). */
static int
add_condition(cJSON *arr, const struct blocks *c, size_t u, const struct unit_sum *s,
              double *anchors, const struct bound_options *o, struct err *e)
{
	cJSON *it = cJSON_CreateObject(), *an;
	long long n = s->w + s->d + s->l;
	double *a = anchors + s->first;

	if (it == NULL || !cJSON_AddItemToArray(arr, it))
		return cJSON_Delete(it), err_set(e, ERR_NOMEM, "out of memory");
	qsort(a, s->na, sizeof *a, cmp_double);
	if (!json_add_string(it, "condition", c->units[u].condition) ||
	    (c->units[u].family[0] != '\0' && !json_add_string(it, "family", c->units[u].family)) ||
	    !json_add_number(it, "blocks", (double)s->nb) ||
	    !(an = cJSON_AddArrayToObject(it, "anchors")))
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->na; i++)
		if (i == 0 || a[i] != a[i - 1])
			cJSON_AddItemToArray(an, cJSON_CreateNumber(json_round(a[i], 0.01)));
	if (!json_add_number(it, "anchor_mean", json_round(s->sa / (double)n, 0.01)) ||
	    !json_add_number(it, "correction", json_round(s->sc / (double)n, 0.01)) ||
	    !json_add_number(it, "games", (double)n) ||
	    !json_add_number(it, "w", (double)s->w) || !json_add_number(it, "d", (double)s->d) ||
	    !json_add_number(it, "l", (double)s->l))
		return err_set(e, ERR_NOMEM, "out of memory");
	if (n > 1000000000LL)
		return err_set(e, ERR_INPUT, "%s: condition %s has too many games", c->name,
		    c->units[u].condition);
	return add_estimate(it, (int)s->w, (int)s->d, (int)s->l, (s->sa + s->sc) / (double)n, o, e);
}

/* Every unit's sums and anchors, in one pass over the blocks. */
static struct unit_sum *
unit_sums(const struct blocks *c, double *anchors)
{
	struct unit_sum *s = calloc(c->nunit + 1, sizeof *s);
	size_t at = 0;

	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		s[c->b[i].unit].nb++;
	for (size_t u = 0; u < c->nunit; u++) {
		s[u].first = at;
		at += (size_t)s[u].nb;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct blocks_block *b = &c->b[i];
		struct unit_sum *x = &s[b->unit];
		double g = (double)(b->w + b->d + b->l);
		x->w += b->w, x->d += b->d, x->l += b->l;
		x->sa += g * b->anchor;
		x->sc += g * bound_correction(b->black, c->black_penalty);
		anchors[x->first + x->na++] = b->anchor;
	}
	return s;
}

int
bound_document(const struct blocks *c, const struct bound_options *o, cJSON **out,
               struct err *e)
{
	cJSON *doc = cJSON_CreateObject(), *blocks, *conds, *opts;
	double *anchors = malloc((c->n + 1) * sizeof *anchors);
	struct unit_sum *s = anchors ? unit_sums(c, anchors) : NULL;

	*out = NULL;
	if (doc == NULL || s == NULL)
		goto nomem;
	if (!json_add_string(doc, "kind", "cohort.bound/1") ||
	    !json_add_string(doc, "input", c->id) ||
	    !json_add_string(doc, "input_kind",
	                     c->is_freeze ? "cohort.freeze/1" : "cohort.blocks/1") ||
	    !json_add_string(doc, "method", "clopper-pearson, draws as half points") ||
	    !json_add_number(doc, "black_penalty", json_round(c->black_penalty, 0.01)) ||
	    !(opts = cJSON_AddObjectToObject(doc, "options")) ||
	    !json_add_number(opts, "level", json_round(o->level, 1e-6)) ||
	    !json_add_string(opts, "sides", o->one_sided ? "one" : "two") ||
	    !(blocks = cJSON_AddArrayToObject(doc, "blocks")) ||
	    !(conds = cJSON_AddArrayToObject(doc, "conditions")))
		goto nomem;
	for (size_t i = 0; i < c->n; i++)
		if (add_block(blocks, &c->b[i], c->black_penalty, o, e) < 0)
			goto fail;
	/* units with blocks, in the order their first block comes */
	for (size_t i = 0; i < c->n; i++) {
		size_t u = c->b[i].unit;
		if (s[u].done)
			continue;
		s[u].done = 1;
		if (add_condition(conds, c, u, &s[u], anchors, o, e) < 0)
			goto fail;
	}
	free(s);
	free(anchors);
	*out = doc;
	return 0;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
fail:
	free(s);
	free(anchors);
	cJSON_Delete(doc);
	return -1;
}

static void
fmt_num(char *s, size_t n, const cJSON *v, const char *fmt)
{
	if (cJSON_IsNumber(v))
		snprintf(s, n, fmt, v->valuedouble);
	else
		snprintf(s, n, "-");
}

static int
table_row(const cJSON *it, const char *label, struct buf *out)
{
	const cJSON *si = json_get(it, "score_interval"), *ri = json_get(it, "rating_interval");
	const cJSON *bd = json_get(it, "bound");
	char anchor[32], score[64], rating[32], rint[64], lo[16], hi[16];

	if (json_get(it, "anchor"))
		fmt_num(anchor, sizeof anchor, json_get(it, "anchor"), "%.0f");
	else
		fmt_num(anchor, sizeof anchor, json_get(it, "anchor_mean"), "~%.0f");
	snprintf(score, sizeof score, "%.3f [%.3f, %.3f]", json_get(it, "score")->valuedouble,
	         cJSON_GetArrayItem(si, 0)->valuedouble, cJSON_GetArrayItem(si, 1)->valuedouble);
	if (cJSON_IsObject(bd))
		snprintf(rating, sizeof rating, "%s%.0f",
		         strcmp(json_get(bd, "side")->valuestring, "lower") == 0 ? ">" : "<",
		         json_get(bd, "rating")->valuedouble);
	else
		fmt_num(rating, sizeof rating, json_get(it, "rating"), "%.0f");
	fmt_num(lo, sizeof lo, cJSON_GetArrayItem(ri, 0), "%.0f");
	fmt_num(hi, sizeof hi, cJSON_GetArrayItem(ri, 1), "%.0f");
	/* a saturated score bounds the rating on one side only */
	if (strcmp(hi, "-") == 0 && strcmp(lo, "-") != 0)
		snprintf(rint, sizeof rint, "%s or more", lo);
	else if (strcmp(lo, "-") == 0 && strcmp(hi, "-") != 0)
		snprintf(rint, sizeof rint, "%s or less", hi);
	else
		snprintf(rint, sizeof rint, "%s..%s", lo, hi);
	return buf_printf(out, "%-14s %6s %4.0f-%.0f-%-4.0f %-24s %7s %s%s\n", label, anchor,
	                  json_get(it, "w")->valuedouble, json_get(it, "d")->valuedouble,
	                  json_get(it, "l")->valuedouble, score, rating, rint,
	                  cJSON_IsTrue(json_get(it, "saturated")) ? "  saturated" : "");
}

int
bound_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *it, *opts = json_get(doc, "options");
	int rc = 0;

	rc |= buf_printf(out,
	                 "score interval: Clopper-Pearson %s %.3g%%, draws as half points; "
	                 "Black penalty %.0f\n",
	                 strcmp(json_get(opts, "sides")->valuestring, "one") == 0 ? "one-sided"
	                                                                          : "two-sided",
	                 100 * json_get(opts, "level")->valuedouble,
	                 json_get(doc, "black_penalty")->valuedouble);
	rc |= buf_printf(out, "%-14s %6s %-10s %-24s %7s %s\n", "block", "anchor", "W-D-L",
	                 "score [interval]", "rating", "rating interval");
	cJSON_ArrayForEach(it, json_get(doc, "blocks"))
	{
		char label[64];
		snprintf(label, sizeof label, "%.9s #%.0f", json_get(it, "condition")->valuestring,
		         json_get(it, "block")->valuedouble);
		rc |= table_row(it, label, out);
	}
	rc |= buf_printf(out, "\n%-14s %6s %-10s %-24s %7s %s\n", "condition", "anchor", "W-D-L",
	                 "score [interval]", "rating", "rating interval");
	cJSON_ArrayForEach(it, json_get(doc, "conditions")) rc |=
	    table_row(it, json_get(it, "condition")->valuestring, out);
	rc |= buf_printf(out, "\n~1687: a condition's games pooled, at their mean anchor\n"
	                      ">1495, <1495: a saturated score (all wins or all losses) bounds the"
	                      " rating\non one side only\n");
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
bound_refit_check(const cJSON *doc, const cJSON *input, const char *input_id, const char *name,
    int *same, struct err *e)
{
	struct blocks c = BLOCKS_INIT;
	struct bound_options o = { 0.95, 0 };
	const cJSON *opts;
	const char *sides = "two";
	struct buf x = BUF_INIT, y = BUF_INIT;
	cJSON *again = NULL;
	int rc = -1;

	if (json_get_object(doc, "options", 1, &opts, e) < 0 ||
	    json_get_number(opts, "level", 1, &o.level, e) < 0 ||
	    json_get_string(opts, "sides", 0, &sides, e) < 0)
		return err_prefix(e, "%s: \"options\"", name);
	o.one_sided = strcmp(sides, "one") == 0;
	if (bound_blocks_read(input, name, input_id, &c, e) < 0 ||
	    bound_document(&c, &o, &again, e) < 0)
		goto done;
	if (canon_write(doc, &x, e) < 0 || canon_write(again, &y, e) < 0)
		goto done;
	*same = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
	rc = 0;
done:
	cJSON_Delete(again);
	buf_release(&x);
	buf_release(&y);
	blocks_release(&c);
	return rc;
}
