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

/* The blocks grouped by condition: group k is order[start[k]] ..
 * order[start[k + 1] - 1], its blocks in input order; groups in order of
 * their first block.  Sorting makes it n log n (a scan per block for its
 * condition's earlier blocks took 70 s at 61,000 blocks). */
struct groups {
	size_t n;      /* groups */
	size_t *start; /* n + 1 */
	size_t *order; /* the blocks' indexes */
};

struct ref {
	const char *condition;
	size_t i;
};

static int
cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->condition, y->condition);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Runs of one condition in refs, as (first block, offset, length). */
struct run {
	size_t first, at, len;
};

static int
cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static void
groups_release(struct groups *g)
{
	free(g->start);
	free(g->order);
	*g = (struct groups){ 0 };
}

static int
groups_make(const struct bound_block *b, size_t n, struct groups *g, struct err *e)
{
	struct ref *refs = malloc((n ? n : 1) * sizeof *refs);
	struct run *runs = malloc((n ? n : 1) * sizeof *runs);
	size_t nr = 0, pos = 0;

	*g = (struct groups){ 0 };
	g->start = malloc((n + 1) * sizeof *g->start);
	g->order = malloc((n ? n : 1) * sizeof *g->order);
	if (refs == NULL || runs == NULL || g->start == NULL || g->order == NULL) {
		free(refs);
		free(runs);
		groups_release(g);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		refs[i] = (struct ref){ b[i].condition, i };
	qsort(refs, n, sizeof *refs, cmp_ref);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(refs[i - 1].condition, refs[i].condition) != 0)
			runs[nr++] = (struct run){ refs[i].i, i, 0 };
		else
			runs[nr - 1].len++;
	qsort(runs, nr, sizeof *runs, cmp_run);
	for (size_t k = 0; k < nr; k++) {
		g->start[k] = pos;
		for (size_t j = 0; j <= runs[k].len; j++)
			g->order[pos++] = refs[runs[k].at + j].i;
	}
	g->start[nr] = pos;
	g->n = nr;
	free(refs);
	free(runs);
	return 0;
}

/* A block without an index is its condition's k-th block in input order. */
static int
number_blocks(struct bound_cohort *c, struct err *e)
{
	struct groups g;

	if (groups_make(c->b, c->n, &g, e) < 0)
		return -1;
	for (size_t k = 0; k < g.n; k++)
		for (size_t j = g.start[k]; j < g.start[k + 1]; j++)
			if (c->b[g.order[j]].block == 0)
				c->b[g.order[j]].block = (long)(j - g.start[k] + 1);
	groups_release(&g);
	return 0;
}

static int
read_block(const cJSON *o, int is_freeze, struct bound_block *b, struct err *e)
{
	const char *color;
	long long w, d, l, games, block;
	int rc;

	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "expected an object");
	if (json_get_string(o, "condition", 1, &b->condition, e) < 0 ||
	    json_get_number(o, "anchor", 1, &b->anchor, e) < 0 ||
	    json_get_string(o, "color", 1, &color, e) < 0 ||
	    json_get_int(o, "w", 1, 0, 1000000000, &w, e) < 0 ||
	    json_get_int(o, "d", 1, 0, 1000000000, &d, e) < 0 ||
	    json_get_int(o, "l", 1, 0, 1000000000, &l, e) < 0)
		return -1;
	if (strcmp(color, "black") != 0 && strcmp(color, "white") != 0)
		return err_set(e, ERR_INPUT, "\"color\": expected black or white");
	b->black = strcmp(color, "black") == 0;
	b->w = (int)w;
	b->d = (int)d;
	b->l = (int)l;
	if (w + d + l == 0)
		return err_set(e, ERR_INPUT, "\"w\": a block needs at least one game");
	rc = json_get_int(o, "games", is_freeze, 1, 3000000000LL, &games, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && games != w + d + l)
		return err_set(e, ERR_INPUT, "\"games\": %lld, but w + d + l is %lld", games,
		               w + d + l);
	rc = json_get_int(o, "block", is_freeze, 1, 1000000000, &block, e);
	if (rc < 0)
		return -1;
	b->block = rc == 0 ? (long)block : 0;
	return 0;
}

int
bound_cohort_read_opt(const cJSON *doc, const char *name, int allow_empty, struct bound_cohort *c,
                      struct err *e)
{
	const char *kind;
	const cJSON *blocks, *holder = doc, *it;
	size_t i = 0;
	int rc;

	bound_cohort_release(c);
	c->name = name;
	c->black_penalty = 35;
	c->spec = NULL;
	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "%s: expected a JSON object", name);
	if (json_get_string(doc, "kind", 1, &kind, e) < 0)
		return err_prefix(e, "%s", name);
	if (strcmp(kind, "cohort.freeze/1") == 0) {
		c->is_freeze = 1;
		if (json_get_object(doc, "spec", 1, &c->spec, e) < 0)
			return err_prefix(e, "%s", name);
		holder = c->spec;
	} else if (strcmp(kind, "cohort.blocks/1") == 0) {
		c->is_freeze = 0;
	} else {
		return err_set(e, ERR_INPUT,
		               "%s: \"kind\": expected cohort.freeze/1 or "
		               "cohort.blocks/1, not %s",
		               name, kind);
	}
	rc = json_get_number(holder, "black_penalty", 0, &c->black_penalty, e);
	if (rc < 0)
		return err_prefix(e, c->is_freeze ? "%s: \"spec\"" : "%s", name);
	if (rc == 0 && (c->black_penalty < -1000 || c->black_penalty > 1000))
		return err_set(e, ERR_INPUT, "%s: \"black_penalty\": expected -1000 to 1000 Elo",
		               name);
	if (json_get_array(doc, "blocks", 1, &blocks, e) < 0)
		return err_prefix(e, "%s", name);
	c->n = (size_t)cJSON_GetArraySize(blocks);
	if (c->n == 0 && !allow_empty)
		return err_set(e, ERR_INPUT, "%s: \"blocks\": the cohort has no block", name);
	c->b = calloc(c->n ? c->n : 1, sizeof *c->b);
	if (c->b == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, blocks)
	{
		if (read_block(it, c->is_freeze, &c->b[i], e) < 0)
			return err_prefix(e, "%s: \"blocks\"[%zu]", name, i);
		i++;
	}
	return number_blocks(c, e);
}

int
bound_cohort_read(const cJSON *doc, const char *name, struct bound_cohort *c, struct err *e)
{
	return bound_cohort_read_opt(doc, name, 0, c, e);
}

void
bound_cohort_release(struct bound_cohort *c)
{
	if (c == NULL)
		return;
	free(c->b);
	c->b = NULL;
	c->n = 0;
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
add_block(cJSON *arr, const struct bound_block *b, double penalty, const struct bound_options *o,
          struct err *e)
{
	cJSON *it = cJSON_CreateObject();
	double corr = bound_correction(b->black, penalty);

	if (it == NULL || !cJSON_AddItemToArray(arr, it))
		return cJSON_Delete(it), err_set(e, ERR_NOMEM, "out of memory");
	if (!json_add_string(it, "condition", b->condition) ||
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

/* One condition (the blocks idx[0 .. n - 1]): its blocks' games pooled,
 * rated at the games-weighted mean of anchor + correction (a performance
 * rating). */
static int
add_condition(cJSON *arr, const struct bound_cohort *c, const size_t *idx, size_t n,
              const struct bound_options *o, double *anchors, struct err *e)
{
	cJSON *it = cJSON_CreateObject(), *an;
	const char *cond = c->b[idx[0]].condition;
	long w = 0, d = 0, l = 0;
	double sa = 0, sc = 0;

	if (it == NULL || !cJSON_AddItemToArray(arr, it))
		return cJSON_Delete(it), err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct bound_block *b = &c->b[idx[i]];
		double g = (double)b->w + b->d + b->l;
		w += b->w, d += b->d, l += b->l;
		sa += g * b->anchor;
		sc += g * bound_correction(b->black, c->black_penalty);
		anchors[i] = b->anchor;
	}
	qsort(anchors, n, sizeof *anchors, cmp_double);
	if (!json_add_string(it, "condition", cond) || !json_add_number(it, "blocks", (double)n) ||
	    !(an = cJSON_AddArrayToObject(it, "anchors")))
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (i == 0 || anchors[i] != anchors[i - 1])
			cJSON_AddItemToArray(an, cJSON_CreateNumber(json_round(anchors[i], 0.01)));
	sa /= (double)(w + d + l);
	sc /= (double)(w + d + l);
	if (!json_add_number(it, "anchor_mean", json_round(sa, 0.01)) ||
	    !json_add_number(it, "correction", json_round(sc, 0.01)) ||
	    !json_add_number(it, "games", (double)(w + d + l)) ||
	    !json_add_number(it, "w", (double)w) || !json_add_number(it, "d", (double)d) ||
	    !json_add_number(it, "l", (double)l))
		return err_set(e, ERR_NOMEM, "out of memory");
	if (w + d + l > 1000000000L)
		return err_set(e, ERR_INPUT, "%s: condition %s has too many games", c->name, cond);
	return add_estimate(it, (int)w, (int)d, (int)l, sa + sc, o, e);
}

int
bound_document(const struct bound_cohort *c, const struct bound_options *o, cJSON **out,
               struct err *e)
{
	cJSON *doc = cJSON_CreateObject(), *blocks, *conds, *opts;
	double *anchors = malloc((c->n ? c->n : 1) * sizeof *anchors);
	struct groups g = { 0 };

	*out = NULL;
	if (doc == NULL || anchors == NULL)
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
	if (groups_make(c->b, c->n, &g, e) < 0)
		goto fail;
	for (size_t k = 0; k < g.n; k++)
		if (add_condition(conds, c, g.order + g.start[k], g.start[k + 1] - g.start[k], o,
		                  anchors, e) < 0)
			goto fail;
	groups_release(&g);
	free(anchors);
	*out = doc;
	return 0;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
fail:
	groups_release(&g);
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
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
bound_run(const char *path, const struct bound_options *o, int table, const char *outpath,
          struct err *e)
{
	struct bound_cohort c = BOUND_COHORT_INIT;
	struct buf b = BUF_INIT;
	cJSON *in, *doc = NULL;
	int rc = -1;

	if (!(o->level > 0 && o->level < 1))
		return err_set(e, ERR_USAGE, "--level: expected a number between 0 and 1");
	in = json_parse_file(path, e);
	if (in == NULL)
		return -1;
	if (bound_cohort_read(in, io_name(path), &c, e) < 0 || canon_id(in, c.id, e) < 0 ||
	    bound_document(&c, o, &doc, e) < 0)
		goto done;
	if (table)
		rc = bound_table(doc, &b, e) < 0 ? -1
		                                 : io_write_all(outpath, b.p ? b.p : "", b.len, e);
	else
		rc = json_emit(doc, outpath, e);
done:
	buf_release(&b);
	cJSON_Delete(doc);
	bound_cohort_release(&c);
	cJSON_Delete(in);
	return rc;
}

int
bound_refit_check(const cJSON *doc, const cJSON *input, const char *name, int *same, struct err *e)
{
	struct bound_cohort c = BOUND_COHORT_INIT;
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
	if (bound_cohort_read(input, name, &c, e) < 0 || canon_id(input, c.id, e) < 0 ||
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
	bound_cohort_release(&c);
	return rc;
}
