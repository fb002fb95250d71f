/* fpdoc.c: the cohort.fingerprint/1 document, its summary from the
 * replicate rows, its table and its re-computation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/quantile.h"
#include "../json/json.h"
#include "internal.h"

double
fp_round_sig(double x)
{
	if (x == 0 || !isfinite(x))
		return x;
	return json_round(x, pow(10, floor(log10(fabs(x))) - 5));
}

double
fp_feature_step(const char *name)
{
	size_t n = strcspn(name, "[");

	for (int b = 0; b < FB_N; b++)
		if (strlen(fp_defs[b].name) == n && strncmp(fp_defs[b].name, name, n) == 0)
			return fp_defs[b].step;
	return 0;
}

static int
is_p_k_star(const char *name)
{
	return strncmp(name, "p_k_star[", 9) == 0;
}

static cJSON *
num_or_null(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

/* A column of the rows: a feature with an estimate (P(k* = k) always). */
static int
in_rows(const struct fp_run *r, size_t f, size_t i)
{
	return r->feat[i].base == FB_P_K_STAR || !isnan(r->est[f * r->nfeat + i]);
}

static cJSON *
feature_json(struct json_bld *k, const struct fp_run *r, size_t f, size_t i)
{
	const struct fp_why *y = &r->why[f * r->nfeat + i];
	double v = r->est[f * r->nfeat + i], step = fp_defs[r->feat[i].base].step;
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	if (r->feat[i].base == FB_P_K_STAR)
		v = NAN;
	json_bld_put(k, o, "name", cJSON_CreateString(r->feat[i].name));
	json_bld_put(k, o, "estimate", num_or_null(isnan(v) ? v : json_round(v, step)));
	json_bld_put(k, o, "se", cJSON_CreateNull());
	json_bld_put(k, o, "lo", cJSON_CreateNull());
	json_bld_put(k, o, "hi", cJSON_CreateNull());
	json_bld_put(k, o, "finite", cJSON_CreateNumber(0));
	if (r->feat[i].base == FB_P_K_STAR)
		json_bld_put(k, o, "reason", cJSON_CreateString("P(k* = k) comes from the bootstrap replicates, "
		    "and none has every width's R finite"));
	else if (isnan(v))
		json_bld_put(k, o, "reason", cJSON_CreateString(y->reason[0] ? y->reason : "not measured"));
	if (isnan(v) && y->bound) {
		cJSON *b = cJSON_CreateObject();
		json_bld_put(k, o, "bound", b);
		if (b != NULL) {
			json_bld_put(k, b, "side", cJSON_CreateString(y->bound == 1 ? "lower" : "upper"));
			json_bld_put(k, b, "value", cJSON_CreateNumber(json_round(y->value, step)));
		}
	}
	return o;
}

static cJSON *
rows_json(struct json_bld *k, const struct fp_run *r, size_t f)
{
	cJSON *o = cJSON_CreateObject(), *names = cJSON_CreateArray(), *rows = cJSON_CreateArray();
	size_t span = (size_t)(r->r1 - r->r0);

	json_bld_put(k, o, "names", names);
	json_bld_put(k, o, "rows", rows);
	for (size_t i = 0; names != NULL && i < r->nfeat; i++)
		if (in_rows(r, f, i))
			json_bld_push(k, names, cJSON_CreateString(r->feat[i].name));
	for (size_t s = 0; rows != NULL && s < span && !k->oom; s++) {
		const double *row = &r->rows[(f * span + s) * r->nfeat];
		cJSON *a = cJSON_CreateArray();
		json_bld_push(k, rows, a);
		for (size_t i = 0; a != NULL && i < r->nfeat; i++)
			if (in_rows(r, f, i))
				json_bld_push(k, a, num_or_null(row[i]));
	}
	return o;
}

static cJSON *
fingerprint_json(struct json_bld *k, const struct fp_run *r, size_t f)
{
	const struct fp_fam *fm = &r->fam[f];
	cJSON *o = cJSON_CreateObject(), *feats = cJSON_CreateArray(), *cov = cJSON_CreateObject();
	const char *id = r->ids[fm->in];

	if (o == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(feats);
		cJSON_Delete(cov);
		k->oom = 1;
		return NULL;
	}
	json_bld_put(k, o, "family", cJSON_CreateString(fm->family));
	json_bld_put(k, o, "replication", cJSON_CreateString(fm->replication));
	json_bld_put(k, o, "freeze", cJSON_CreateString(id));
	json_bld_put(k, o, "decisions", cJSON_CreateNumber((double)fm->ndec));
	json_bld_put(k, o, "games", cJSON_CreateNumber((double)fm->ngames));
	json_bld_put(k, o, "units", cJSON_CreateNumber((double)fm->nunits));
	json_bld_put(k, o, "features", feats);
	for (size_t i = 0; feats != NULL && i < r->nfeat; i++)
		json_bld_push(k, feats, feature_json(k, r, f, i));
	json_bld_put(k, o, "covariance", cov);
	if (cov != NULL) {
		cJSON *names = cJSON_CreateArray();
		json_bld_put(k, cov, "names", names);
		for (size_t i = 0; names != NULL && i < r->nfeat; i++)
			if (in_rows(r, f, i) && r->feat[i].base != FB_P_K_STAR)
				json_bld_push(k, names, cJSON_CreateString(r->feat[i].name));
		json_bld_put(k, cov, "complete", cJSON_CreateNumber(0));
		json_bld_put(k, cov, "matrix", cJSON_CreateArray());
	}
	json_bld_put(k, o, "replicates", rows_json(k, r, f));
	return o;
}

/* The splits the prereg registers, as "confirm,explore" (its key order). */
static void
registered_splits(const struct prereg *p, char *s, size_t n)
{
	size_t len = 0;

	s[0] = '\0';
	for (size_t i = 0; i < p->nsplits && len < n; i++)
		len += (size_t)snprintf(s + len, n - len, "%s%s", i ? "," : "", p->splits[i].name);
}

static int
deviations(const struct fp_run *r, cJSON *doc, struct err *e)
{
	struct prereg_dev d[8 + 64];
	char reg[3][32], used[3][32], splits[128];
	size_t n = 0;

	/* a split the prereg allocates no positions to */
	if (r->o->split >= 0 && prereg_split_size(r->pr, cand_split_names[r->o->split]) < 0) {
		registered_splits(r->pr, splits, sizeof splits);
		d[n++] = (struct prereg_dev){ "split", splits, (char *)cand_split_names[r->o->split] };
	}

	if (r->replicates != r->pr->replicates) {
		snprintf(reg[0], sizeof reg[0], "%ld", r->pr->replicates);
		snprintf(used[0], sizeof used[0], "%ld", r->replicates);
		d[n++] = (struct prereg_dev){ "bootstrap.replicates", reg[0], used[0] };
	}
	if (r->seed != r->pr->seed) {
		snprintf(reg[1], sizeof reg[1], "%llu", (unsigned long long)r->pr->seed);
		snprintf(used[1], sizeof used[1], "%llu", (unsigned long long)r->seed);
		d[n++] = (struct prereg_dev){ "bootstrap.seed", reg[1], used[1] };
	}
	for (size_t i = 0; i < r->nin && n < sizeof d / sizeof d[0]; i++)
		if (r->has_dec[i] && prereg_names_manifest(r->pr, r->pd[i].cand.id,
		    cand_file_id(&r->pd[i].cand)) == NULL)
			d[n++] = (struct prereg_dev){ "candidates", r->pr->candidates,
				(char *)r->pd[i].cand.id };
	/* a freeze made under another prereg, or none (its games and decisions
	 * were then never held to this one's date and exclusions) */
	for (size_t i = 0; i < r->nin && n < sizeof d / sizeof d[0]; i++) {
		const char *fp = cJSON_GetStringValue(json_get(r->in[i].freeze, "prereg"));
		if (fp == NULL || strcmp(fp, r->pr->id) != 0)
			d[n++] = (struct prereg_dev){ "freeze.prereg", (char *)r->pr->id,
				(char *)(fp ? fp : "none") };
	}
	return prereg_deviations_add(doc, d, n, e);
}

static cJSON *
inputs_json(struct json_bld *k, const struct fp_run *r)
{
	cJSON *o = cJSON_CreateObject(), *fz = cJSON_CreateArray(), *cand = cJSON_CreateArray();

	json_bld_put(k, o, "freezes", fz);
	json_bld_put(k, o, "candidates", cand);
	for (size_t i = 0; fz != NULL && cand != NULL && i < r->nin; i++) {
		int seen = 0;
		json_bld_push(k, fz, cJSON_CreateString(r->ids[i]));
		for (size_t j = 0; j < i && r->has_dec[i]; j++)
			seen |= r->has_dec[j] && strcmp(r->pd[j].cand.id, r->pd[i].cand.id) == 0;
		if (r->has_dec[i] && !seen)
			json_bld_push(k, cand, cJSON_CreateString(r->pd[i].cand.id));
	}
	return o;
}

static cJSON *
settings_json(struct json_bld *k, const struct fp_run *r, cJSON *doc)
{
	cJSON *b = cJSON_CreateObject(), *d = cJSON_CreateObject(), *w = cJSON_CreateArray();

	json_bld_put(k, doc, "bootstrap", b);
	json_bld_put(k, doc, "distance", d);
	json_bld_put(k, doc, "widths", w);
	if (b == NULL || d == NULL || w == NULL)
		return NULL;
	json_bld_put(k, b, "replicates", cJSON_CreateNumber((double)r->replicates));
	json_bld_put(k, b, "unit", cJSON_CreateString(r->by_position ? "position" : "opening"));
	json_bld_put(k, b, "seed", cJSON_CreateNumber((double)r->seed));
	json_bld_put(k, b, "level", cJSON_CreateNumber(FP_LEVEL));
	json_bld_put(k, b, "complete", cJSON_CreateNumber(0));
	json_bld_put(k, d, "lambda", cJSON_CreateNumber(r->pr->lambda));
	json_bld_put(k, d, "population", cJSON_CreateString(r->pr->population));
	for (size_t i = 0; i < r->nwidths; i++)
		json_bld_push(k, w, cJSON_CreateNumber(r->widths[i]));
	return doc;
}

int
fp_run_document(struct fp_run *r, long r0, long r1, cJSON **out, struct err *e)
{
	struct json_bld k = { 0 };
	cJSON *doc, *fps;

	*out = NULL;
	if (r0 < 0 || r1 < r0 || r1 > r->replicates)
		return err_set(e, ERR_USAGE, "replicates [%ld, %ld): outside 0 to %ld", r0, r1,
		    r->replicates);
	if (fp_run_replicate(r, r0, r1, e) < 0)
		return -1;
	if ((doc = cJSON_CreateObject()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	json_bld_put(&k, doc, "kind", cJSON_CreateString("cohort.fingerprint/1"));
	json_bld_put(&k, doc, "prereg", cJSON_CreateString(r->pr->id));
	json_bld_put(&k, doc, "inputs", inputs_json(&k, r));
	json_bld_put(&k, doc, "estimator", cJSON_CreateString("davidson-joint/1"));
	json_bld_put(&k, doc, "split", cJSON_CreateString(r->o->split < 0 ? "all" :
	    cand_split_names[r->o->split]));
	json_bld_put(&k, doc, "games_outside_split", cJSON_CreateNumber((double)r->games_outside));
	settings_json(&k, r, doc);
	json_bld_put(&k, doc, "fingerprints", fps = cJSON_CreateArray());
	for (size_t f = 0; fps != NULL && f < r->nfam && !k.oom; f++)
		json_bld_push(&k, fps, fingerprint_json(&k, r, f));
	if (k.oom || deviations(r, doc, e) < 0) {
		cJSON_Delete(doc);
		return k.oom ? err_set(e, ERR_NOMEM, "out of memory") : -1;
	}
	if (r0 == 0 && r1 == r->replicates && fp_summarize(doc, e) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	*out = doc;
	return 0;
}

int
fp_document(const struct fp_input *in, size_t nin, const struct fp_opts *o, cJSON **out,
    struct err *e)
{
	struct fp_run *r;
	int rc;

	*out = NULL;
	if (fp_run_new(in, nin, o, &r, e) < 0)
		return -1;
	rc = fp_run_document(r, 0, r->replicates, out, e);
	fp_run_free(r);
	return rc;
}

/* -------- the summary from the rows -------- */

static void
replace(struct json_bld *k, cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL) {
		k->oom = 1;
		return;
	}
	if (json_get(o, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
	else
		json_bld_put(k, o, key, v);
}

static long
name_index(const cJSON *names, const char *name)
{
	long i = 0;
	const cJSON *x;

	cJSON_ArrayForEach(x, names) {
		if (cJSON_IsString(x) && strcmp(x->valuestring, name) == 0)
			return i;
		i++;
	}
	return -1;
}

/* Column j of the rows, its finite values. */
static size_t
column(const cJSON *rows, long j, double *v)
{
	size_t n = 0;
	const cJSON *row;

	cJSON_ArrayForEach(row, rows) {
		const cJSON *x = cJSON_GetArrayItem(row, (int)j);
		if (cJSON_IsNumber(x))
			v[n++] = x->valuedouble;
	}
	return n;
}

static void
summarize_feature(struct json_bld *k, cJSON *ft, const cJSON *names, const cJSON *rows, double *v)
{
	const char *name = cJSON_GetStringValue(json_get(ft, "name"));
	long j = name ? name_index(names, name) : -1;
	double step = name ? fp_feature_step(name) : 0, m = 0, q = 0, lo, hi;
	size_t n = j < 0 ? 0 : column(rows, j, v);

	replace(k, ft, "finite", cJSON_CreateNumber((double)n));
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	if (is_p_k_star(name)) {
		replace(k, ft, "estimate", cJSON_CreateNumber(json_round(m, step)));
		cJSON_DeleteItemFromObjectCaseSensitive(ft, "reason");
		return;
	}
	for (size_t i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	if (n >= 2)
		replace(k, ft, "se", cJSON_CreateNumber(fp_round_sig(sqrt(q / (double)(n - 1)))));
	quantile7_two(v, n, (1 - FP_LEVEL) / 2, (1 + FP_LEVEL) / 2, &lo, &hi);
	replace(k, ft, "lo", cJSON_CreateNumber(json_round(lo, step)));
	replace(k, ft, "hi", cJSON_CreateNumber(json_round(hi, step)));
}

/* The covariance over the rows complete in the covariance's names. */
static double
covariance(struct json_bld *k, cJSON *cov, const cJSON *names, const cJSON *rows)
{
	const cJSON *cn = json_get(cov, "names"), *row, *x;
	size_t p = (size_t)cJSON_GetArraySize(cn), nr = (size_t)cJSON_GetArraySize(rows), n = 0;
	long *col = malloc((p + 1) * sizeof *col);
	double *X = malloc((p * nr + 1) * sizeof *X), *mu = calloc(p + 1, sizeof *mu);
	cJSON *mat = cJSON_CreateArray();
	size_t i = 0;

	if (col == NULL || X == NULL || mu == NULL || mat == NULL) {
		k->oom = 1;
		goto done;
	}
	cJSON_ArrayForEach(x, cn)
		col[i++] = name_index(names, x->valuestring);
	cJSON_ArrayForEach(row, rows) {
		size_t a;
		for (a = 0; a < p; a++) {
			const cJSON *c = cJSON_GetArrayItem(row, (int)col[a]);
			if (!cJSON_IsNumber(c))
				break;
			X[n * p + a] = c->valuedouble;
		}
		n += a == p;
	}
	for (size_t r = 0; r < n; r++)
		for (size_t a = 0; a < p; a++)
			mu[a] += X[r * p + a];
	for (size_t a = 0; n > 0 && a < p; a++)
		mu[a] /= (double)n; /* a constant column then has variance 0 exactly */
	for (size_t a = 0; n >= 2 && a < p && !k->oom; a++) {
		cJSON *line = cJSON_CreateArray();
		json_bld_push(k, mat, line);
		for (size_t b = 0; line != NULL && b < p; b++) {
			double s = 0;
			for (size_t r = 0; r < n; r++)
				s += (X[r * p + a] - mu[a]) * (X[r * p + b] - mu[b]);
			/* six digits, not the features' steps: a whole-number
			 * feature's variance is a fraction */
			json_bld_push(k, line, cJSON_CreateNumber(fp_round_sig(s / (double)(n - 1))));
		}
	}
	replace(k, cov, "complete", cJSON_CreateNumber((double)n));
	replace(k, cov, "matrix", mat);
	mat = NULL;
done:
	cJSON_Delete(mat);
	free(col);
	free(X);
	free(mu);
	return (double)n;
}

int
fp_summarize(cJSON *doc, struct err *e)
{
	struct json_bld k = { 0 };
	cJSON *fp;
	double complete = -1;

	cJSON_ArrayForEach(fp, json_get(doc, "fingerprints")) {
		const cJSON *rep = json_get(fp, "replicates"), *names = json_get(rep, "names");
		const cJSON *rows = json_get(rep, "rows");
		cJSON *ft, *cov = (cJSON *)json_get(fp, "covariance");
		double *v = malloc(((size_t)cJSON_GetArraySize(rows) + 1) * sizeof *v), n;
		if (v == NULL || cov == NULL || !cJSON_IsArray(rows))
			return free(v), err_set(e, ERR_INPUT, "a fingerprint without replicates or "
			    "covariance");
		cJSON_ArrayForEach(ft, json_get(fp, "features"))
			summarize_feature(&k, ft, names, rows, v);
		free(v);
		n = covariance(&k, cov, names, rows);
		complete = complete < 0 || n < complete ? n : complete;
	}
	replace(&k, (cJSON *)json_get(doc, "bootstrap"), "complete",
	    cJSON_CreateNumber(complete < 0 ? 0 : complete));
	return k.oom ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* -------- table and re-computation -------- */

static void
fmt(char *s, size_t n, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		snprintf(s, n, "%.6g", v->valuedouble);
	else
		snprintf(s, n, "-");
}

int
fp_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *fp, *ft;

	buf_printf(out, "%-12s %-6s %-26s %12s %12s %12s %12s\n", "family", "rep", "feature",
	    "estimate", "se", "lo", "hi");
	cJSON_ArrayForEach(fp, json_get(doc, "fingerprints"))
		cJSON_ArrayForEach(ft, json_get(fp, "features")) {
			char es[32], se[32], lo[32], hi[32];
			fmt(es, sizeof es, json_get(ft, "estimate"));
			fmt(se, sizeof se, json_get(ft, "se"));
			fmt(lo, sizeof lo, json_get(ft, "lo"));
			fmt(hi, sizeof hi, json_get(ft, "hi"));
			buf_printf(out, "%-12.12s %-6.6s %-26.26s %12s %12s %12s %12s\n",
			    cJSON_GetStringValue(json_get(fp, "family")),
			    cJSON_GetStringValue(json_get(fp, "replication")),
			    cJSON_GetStringValue(json_get(ft, "name")), es, se, lo, hi);
		}
	return out->p == NULL ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
fp_refit_check(const cJSON *doc, const struct prereg *pr, const struct fp_input *in, size_t nin,
    int *same, struct err *e)
{
	struct fp_opts o;
	const cJSON *b = json_get(doc, "bootstrap");
	const char *split = NULL;
	double reps, seed;
	struct buf x = BUF_INIT, y = BUF_INIT;
	cJSON *again = NULL;
	int rc = -1;

	*same = 0;
	fp_opts_init(&o);
	o.pr = pr;
	if (json_get_number(b, "replicates", 1, &reps, e) < 0 ||
	    json_get_number(b, "seed", 1, &seed, e) < 0)
		return err_prefix(e, "\"bootstrap\"");
	o.replicates = (long)reps;
	o.have_seed = 1;
	o.seed = (uint64_t)seed;
	/* a document written before splits is of every split */
	if (json_get_string(doc, "split", 0, &split, e) < 0 ||
	    (split != NULL && (o.split = fp_split_of(split)) < -1))
		return err_set(e, ERR_INPUT, "\"split\": expected explore, confirm, heldout or all");
	if (fp_document(in, nin, &o, &again, e) == 0 && canon_write(doc, &x, e) == 0 &&
	    canon_write(again, &y, e) == 0) {
		*same = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
		rc = 0;
	}
	cJSON_Delete(again);
	buf_release(&x);
	buf_release(&y);
	return rc;
}
