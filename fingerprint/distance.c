/* distance.c: cohort.distance/1, the uncertainty-aware standardized
 * distance between fingerprints (cohort-distance(1)):
 *   d2 = (zi - zj)' [Spop + Si + Sj + lambda I]^-1 (zi - zj)
 * on features divided by their scale, with its bootstrap interval from the
 * fingerprints' replicate rows paired by replicate, the component
 * distances, test-retest and separation.  GSL does the linear algebra
 * (the one file of the fingerprint that includes it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "../common/quantile.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "../protocol/decision.h"
#include "fppart.h"
#include "internal.h"

enum { C_KCURVE, C_JS, C_ORDER, C_TOKENS, C_LATENCY, C_PS, NCOMP };
static const char *const comp_names[NCOMP] = { "k_curve", "failure_js", "order", "log_tokens",
	"log_latency", "proposal_selection" };
static const double comp_step[NCOMP] = { 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 0.01 };

/* One fingerprint of the panel. */
struct dfp {
	const cJSON *fp;
	const char *family, *replication;
	const char *split;  /* its document's split; NULL for all (or none named) */
	double *z, *S;      /* standardized estimates; covariance (F x F) */
	double *zr;         /* standardized rows, NAN where missing: blocks of
			     * FP_QB replicates, feature-major (zr_at) */
	double *cx, *cse;   /* component features: estimate, se */
	double *cr;         /* R x NX */
};

struct pair_out {
	size_t a, b;
	double d2, null_mean, lo, hi;
	double *d2r;        /* per replicate, NAN where undefined */
	size_t n;
	double comp[NCOMP], clo[NCOMP], chi[NCOMP];
	const char *why[NCOMP];
	int failed;         /* 1 out of memory, 2 not positive definite */
};

struct dist {
	size_t nfp, F, R, nw, NX;
	struct dfp *fp;
	char **feat;        /* the distance's features (borrowed names) */
	double *scale, *Spop, lambda;
	int *widths;        /* nonzero widths of the k curve */
	char cname[64][48]; /* component features' names, NX of them */
	struct pair_out *pairs;
	size_t npairs;
	size_t p0, p1;      /* the pairs computed here: [p0, p1) (a shard's) */
	cJSON *dropped;
	char (*ids)[HASH_ID_LEN + 1]; /* the inputs' identities (borrowed), or NULL */
	int avx2;           /* quad_block four replicates to a register */
	const struct fp_rows *rows; /* the inputs' rows held flat, or NULL */
};

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

/* name_index for names met in much the same order in every fingerprint:
 * the search starts at *at (the place after the last found) and wraps, so
 * a panel whose fingerprints name their features alike costs one look a
 * name, not a walk of the list. */
static int
has_name(const cJSON *names, const char *name, const cJSON **at)
{
	const cJSON *start = *at != NULL ? *at : names != NULL ? names->child : NULL;

	for (int pass = 0; pass < 2 && names != NULL; pass++)
		for (const cJSON *x = pass == 0 ? start : names->child; x != NULL && (pass == 0 ||
		    x != start); x = x->next)
			if (cJSON_IsString(x) && strcmp(x->valuestring, name) == 0) {
				*at = x->next;
				return 1;
			}
	return 0;
}

static const cJSON *
feature_of(const cJSON *fp, const char *name)
{
	const cJSON *ft;

	cJSON_ArrayForEach(ft, json_get(fp, "features"))
		if (cJSON_IsString(json_get(ft, "name")) &&
		    strcmp(json_get(ft, "name")->valuestring, name) == 0)
			return ft;
	return NULL;
}

static double
numv(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Fingerprint k is one before it: the same family, replication and split
 * (one family and replication of two splits, as of the explore and the
 * heldout openings, are two fingerprints). */
static int
same_fp(const struct dist *d, size_t k)
{
	const struct dfp *x = &d->fp[k];

	for (size_t j = 0; j < k; j++)
		if (strcmp(d->fp[j].family, x->family) == 0 &&
		    strcmp(d->fp[j].replication, x->replication) == 0 &&
		    strcmp(d->fp[j].split ? d->fp[j].split : "", x->split ? x->split : "") == 0)
			return 1;
	return 0;
}

/* The panel's fingerprints, in the documents' order; every document of
 * one prereg, lambda, population, replicate count and widths. */
static int
panel(struct dist *d, const cJSON *const *docs, size_t n, struct err *e)
{
	const cJSON *p0 = json_get(docs[0], "prereg"), *fp;
	double reps = numv(json_get(json_get(docs[0], "bootstrap"), "replicates"));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *kind = cJSON_GetStringValue(json_get(docs[i], "kind"));
		if (kind == NULL || strcmp(kind, "cohort.fingerprint/1") != 0)
			return err_set(e, ERR_INPUT, "input %zu: not a cohort.fingerprint/1 document", i + 1);
		if (!cJSON_Compare(p0, json_get(docs[i], "prereg"), 1) ||
		    !cJSON_Compare(json_get(docs[0], "distance"), json_get(docs[i], "distance"), 1) ||
		    !cJSON_Compare(json_get(docs[0], "widths"), json_get(docs[i], "widths"), 1))
			return err_set(e, ERR_INPUT, "input %zu: another prereg, distance setting or "
			    "widths than input 1's", i + 1);
		if (numv(json_get(json_get(docs[i], "bootstrap"), "replicates")) != reps)
			return err_set(e, ERR_INPUT, "input %zu: \"bootstrap\": \"replicates\": not input "
			    "1's number", i + 1);
		d->nfp += (size_t)cJSON_GetArraySize(json_get(docs[i], "fingerprints"));
	}
	if (d->nfp == 0)
		return err_set(e, ERR_INPUT, "no fingerprint in the inputs");
	d->R = reps > 0 ? (size_t)reps : 0;
	if ((d->fp = calloc(d->nfp, sizeof *d->fp)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *split = cJSON_GetStringValue(json_get(docs[i], "split"));
		if (split != NULL && strcmp(split, "all") == 0)
			split = NULL;
		cJSON_ArrayForEach(fp, json_get(docs[i], "fingerprints")) {
			struct dfp *x = &d->fp[k++];
			x->fp = fp;
			x->family = cJSON_GetStringValue(json_get(fp, "family"));
			x->replication = cJSON_GetStringValue(json_get(fp, "replication"));
			x->split = split;
			if (x->family == NULL || x->replication == NULL)
				return err_set(e, ERR_INPUT, "input %zu: a fingerprint without family or "
				    "replication", i + 1);
			if (same_fp(d, k - 1))
				return err_set(e, ERR_INPUT, "fingerprint %s/%s%s%s given twice", x->family,
				    x->replication, split ? " of split " : "", split ? split : "");
		}
	}
	return 0;
}

/* The features every fingerprint has a covariance for; the others are
 * dropped with the fingerprint that lacks them. */
static int
features(struct dist *d, struct err *e)
{
	const cJSON *names = json_get(json_get(d->fp[0].fp, "covariance"), "names"), *x, **at;
	size_t cap = (size_t)cJSON_GetArraySize(names) + 1;

	for (size_t i = 0; i < d->nfp; i++) {
		const cJSON *cov = json_get(d->fp[i].fp, "covariance");
		if (numv(json_get(cov, "complete")) < 2)
			return err_set(e, ERR_INPUT, "fingerprint %s/%s: fewer than two complete bootstrap "
			    "replicates, so no covariance", d->fp[i].family, d->fp[i].replication);
	}
	d->feat = calloc(cap, sizeof *d->feat);
	d->dropped = cJSON_CreateArray();
	at = calloc(d->nfp + 1, sizeof *at);
	if (d->feat == NULL || d->dropped == NULL || at == NULL)
		return free(at), err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < d->nfp; i++) {
		memset(at, 0, (d->nfp + 1) * sizeof *at);
		cJSON_ArrayForEach(x, json_get(json_get(d->fp[i].fp, "covariance"), "names")) {
			size_t lack = d->nfp;
			for (size_t j = 0; j < d->nfp && lack == d->nfp; j++)
				if (!has_name(json_get(json_get(d->fp[j].fp, "covariance"), "names"),
				    x->valuestring, &at[j]))
					lack = j;
			if (lack == d->nfp && i == 0) {
				d->feat[d->F++] = x->valuestring;
			} else if (lack < d->nfp && name_index(d->dropped, x->valuestring) < 0) {
				char why[160];
				cJSON *o = cJSON_CreateObject();
				snprintf(why, sizeof why, "no estimate for %.60s/%.60s", d->fp[lack].family,
				    d->fp[lack].replication);
				if (o == NULL || !json_add_string(o, "name", x->valuestring) ||
				    !json_add_string(o, "reason", why) || !cJSON_AddItemToArray(d->dropped, o))
					return free(at), cJSON_Delete(o), err_set(e, ERR_NOMEM, "out of memory");
			}
		}
	}
	free(at);
	if (d->F == 0)
		return err_set(e, ERR_INPUT, "no feature is estimated in every fingerprint");
	return 0;
}

/* Row r's values into out (value j at out[to[j]] when to[j] >= 0; j below
 * nc), from the rows held flat (v->val set) or from the tree's row: a
 * number's value, NAN for anything else. */
static void
row_values(const struct fp_rowview *v, size_t r, const cJSON *row, const long *to, size_t nc,
    double *out)
{
	size_t j = 0;
	const cJSON *x;

	if (v->val != NULL) {
		for (size_t i = v->start[r]; i < v->start[r + 1] && j < nc; i++, j++)
			if (to[j] >= 0)
				out[to[j]] = v->val[i];
		return;
	}
	cJSON_ArrayForEach(x, row) {
		if (j < nc && to[j] >= 0)
			out[to[j]] = numv(x);
		j++;
	}
}

/* The columns names[0..n) of a fingerprint's rows into out (R x n), NAN
 * where missing: each row is walked once, in the tree or as d->rows holds
 * it. */
static int
rows_of(const struct dist *d, const cJSON *fp, const char *const *names, size_t n, double *out)
{
	const cJSON *rep = json_get(fp, "replicates"), *rn = json_get(rep, "names"), *row;
	const cJSON *rows = json_get(rep, "rows");
	size_t nc = (size_t)cJSON_GetArraySize(rn), nrows;
	long *to = malloc((nc + 1) * sizeof *to);
	struct fp_rowview v = { NULL, NULL, 0 };

	if (to == NULL)
		return -1;
	for (size_t j = 0; j < nc; j++)
		to[j] = -1;
	for (size_t a = 0; a < n; a++) {
		long j = name_index(rn, names[a]);
		if (j >= 0)
			to[j] = (long)a;
	}
	for (size_t i = 0; i < d->R * n; i++)
		out[i] = NAN;
	nrows = fp_rows_find(d->rows, rows, &v) ? v.n : (size_t)cJSON_GetArraySize(rows);
	row = rows != NULL ? rows->child : NULL;
	for (size_t r = 0; r < nrows && r < d->R; r++, row = row ? row->next : NULL)
		row_values(&v, r, row, to, nc, &out[r * n]);
	free(to);
	return 0;
}

/* Where replicate r's feature a is in a fingerprint's zr: blocks of FP_QB
 * replicates, each feature's FP_QB side by side, so that quad_block reads
 * each difference it needs as a run (a row's run of F, read down its
 * column, missed the cache a line at a time); zr_len in all, the last
 * block's spare places 0. */
static size_t
zr_at(const struct dist *d, size_t r, size_t a)
{
	return (r / FP_QB * d->F + a) * FP_QB + r % FP_QB;
}

static size_t
zr_len(const struct dist *d)
{
	return (d->R + FP_QB - 1) / FP_QB * FP_QB * d->F;
}

/* Scratch for extract: a fingerprint's rows (R x F), its features' places
 * among its covariance's names (F), one row of that matrix (nc). */
struct ex_scratch {
	double *rows, *m;
	long *idx;
	size_t nc;
};

/* Covariance row ia of x into m[0..nc), NAN where it holds no number. */
static void
cov_row(const cJSON *cov, long ia, double *m, size_t nc)
{
	const cJSON *v;
	size_t j = 0;

	for (size_t k = 0; k < nc; k++)
		m[k] = NAN;
	cJSON_ArrayForEach(v, cJSON_GetArrayItem(json_get(cov, "matrix"), (int)ia))
		if (j < nc)
			m[j++] = numv(v);
}

/* Fingerprint x's standardized estimates, covariance and rows. */
static int
extract_one(struct dist *d, struct dfp *x, struct ex_scratch *w, struct err *e)
{
	const cJSON *cov = json_get(x->fp, "covariance"), *cn = json_get(cov, "names");
	size_t F = d->F, nc = (size_t)cJSON_GetArraySize(cn);

	x->z = calloc(F, sizeof *x->z);
	x->S = calloc(F * F, sizeof *x->S);
	x->zr = calloc(zr_len(d) + 1, sizeof *x->zr);
	if (x->z == NULL || x->S == NULL || x->zr == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t a = 0; a < F; a++)
		w->idx[a] = name_index(cn, d->feat[a]);
	for (size_t a = 0; a < F; a++) {
		cov_row(cov, w->idx[a], w->m, nc);
		x->z[a] = numv(json_get(feature_of(x->fp, d->feat[a]), "estimate"));
		if (isnan(x->z[a]))
			return err_set(e, ERR_INPUT, "fingerprint %s/%s: %s: a covariance without an "
			    "estimate", x->family, x->replication, d->feat[a]);
		for (size_t b = 0; b < F; b++) {
			long ib = w->idx[b];
			x->S[a * F + b] = ib >= 0 && (size_t)ib < nc ? w->m[ib] : NAN;
			if (isnan(x->S[a * F + b]))
				return err_set(e, ERR_INPUT, "fingerprint %s/%s: \"covariance\": not a %zu "
				    "by %zu matrix of numbers", x->family, x->replication, nc, nc);
		}
	}
	if (rows_of(d, x->fp, (const char *const *)d->feat, F, w->rows) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t r = 0; r < d->R; r++)
		for (size_t a = 0; a < F; a++)
			x->zr[zr_at(d, r, a)] = w->rows[r * F + a];
	return 0;
}

static int
extract(struct dist *d, struct err *e)
{
	struct ex_scratch w = { NULL, NULL, NULL, 0 };
	int rc = 0;

	for (size_t i = 0; i < d->nfp; i++) {
		size_t nc = (size_t)cJSON_GetArraySize(json_get(json_get(d->fp[i].fp, "covariance"),
		    "names"));
		w.nc = nc > w.nc ? nc : w.nc;
	}
	w.rows = malloc((d->R * d->F + 1) * sizeof *w.rows);
	w.m = malloc((w.nc + 1) * sizeof *w.m);
	w.idx = malloc((d->F + 1) * sizeof *w.idx);
	if (w.rows == NULL || w.m == NULL || w.idx == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < d->nfp; i++)
		rc = extract_one(d, &d->fp[i], &w, e);
	free(w.rows);
	free(w.m);
	free(w.idx);
	return rc;
}

/* Each feature's scale: its spread across the panel (population "panel"),
 * else (or where the panel does not vary) its root mean bootstrap
 * variance, else 1; rounded to six digits, as written. */
static int
scales(struct dist *d, const char *population, struct err *e)
{
	size_t F = d->F, n = d->nfp;

	if ((d->scale = calloc(F, sizeof *d->scale)) == NULL ||
	    (d->Spop = calloc(F * F, sizeof *d->Spop)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t a = 0; a < F; a++) {
		double m = 0, q = 0, v = 0, s = 0;
		for (size_t i = 0; i < n; i++) {
			m += d->fp[i].z[a] / (double)n;
			v += d->fp[i].S[a * F + a] / (double)n;
		}
		for (size_t i = 0; i < n; i++)
			q += (d->fp[i].z[a] - m) * (d->fp[i].z[a] - m);
		if (strcmp(population, "panel") == 0 && n >= 2)
			s = sqrt(q / (double)(n - 1));
		if (!(s > 0))
			s = sqrt(v);
		d->scale[a] = s > 0 ? fp_round_sig(s) : 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct dfp *x = &d->fp[i];
		/* block by block, as zr lies (the spare places are 0 and stay so) */
		for (size_t at = 0; at < zr_len(d); at += FP_QB)
			for (size_t q = 0; q < FP_QB; q++)
				x->zr[at + q] /= d->scale[at / FP_QB % F];
		for (size_t a = 0; a < F; a++) {
			x->z[a] /= d->scale[a];
			for (size_t b = 0; b < F; b++)
				x->S[a * F + b] /= d->scale[a] * d->scale[b];
		}
	}
	if (strcmp(population, "panel") != 0 || n < 2)
		return 0;
	for (size_t a = 0; a < F; a++)
		for (size_t b = 0; b < F; b++) {
			double ma = 0, mb = 0, s = 0;
			for (size_t i = 0; i < n; i++) {
				ma += d->fp[i].z[a] / (double)n;
				mb += d->fp[i].z[b] / (double)n;
			}
			for (size_t i = 0; i < n; i++)
				s += (d->fp[i].z[a] - ma) * (d->fp[i].z[b] - mb);
			d->Spop[a * F + b] = s / (double)(n - 1);
		}
	return 0;
}

/* The component features: the k curve's lifts, the failure labels, order
 * change, tokens and latency per decision, engine-selects. */
static int
components_in(struct dist *d, struct err *e)
{
	size_t NX = 0;

	d->widths = calloc((size_t)cJSON_GetArraySize(json_get(d->fp[0].fp, "features")) + 64,
	    sizeof *d->widths);
	if (d->widths == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (const cJSON *x = json_get(d->fp[0].fp, "features")->child; x; x = x->next) {
		const char *n = cJSON_GetStringValue(json_get(x, "name"));
		if (n && strncmp(n, "delta_r[", 8) == 0 && NX < 40) {
			d->widths[d->nw++] = atoi(n + 8);
			snprintf(d->cname[NX++], sizeof d->cname[0], "%s", n);
		}
	}
	for (int l = 0; l < DF_N; l++)
		snprintf(d->cname[NX++], sizeof d->cname[0], "failure_labels[%s]",
		    decision_failure_names[l]);
	snprintf(d->cname[NX++], sizeof d->cname[0], "order_change");
	snprintf(d->cname[NX++], sizeof d->cname[0], "tokens_per_decision");
	snprintf(d->cname[NX++], sizeof d->cname[0], "latency_per_decision");
	snprintf(d->cname[NX++], sizeof d->cname[0], "engine_selects");
	d->NX = NX;
	for (size_t i = 0; i < d->nfp; i++) {
		struct dfp *x = &d->fp[i];
		x->cx = calloc(NX, sizeof *x->cx);
		x->cse = calloc(NX, sizeof *x->cse);
		x->cr = calloc(d->R * NX + 1, sizeof *x->cr);
		if (x->cx == NULL || x->cse == NULL || x->cr == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		for (size_t c = 0; c < NX; c++) {
			const cJSON *ft = feature_of(x->fp, d->cname[c]);
			x->cx[c] = numv(json_get(ft, "estimate"));
			x->cse[c] = numv(json_get(ft, "se"));
		}
		const char *cn[64];
		for (size_t c = 0; c < NX; c++)
			cn[c] = d->cname[c];
		if (rows_of(d, x->fp, cn, NX, x->cr) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* -------- one pair -------- */

/* Component c of fingerprints x and y from their values a, b (estimate
 * or one replicate's), NAN when one is missing. */
static double
component(const struct dist *d, int c, const struct dfp *x, const struct dfp *y, const double *a,
    const double *b)
{
	size_t nw = d->nw, L = nw;
	double s = 0, prev_k = 0, prev_s = 0, js = 0;

	switch (c) {
	case C_KCURVE:
		/* inverse-variance weighted squared lift differences, integrated
		 * by trapezoids over the widths from 0 (where both lifts are 0) */
		if (nw == 0)
			return NAN;
		for (size_t i = 0; i < nw; i++) {
			double v = x->cse[i] * x->cse[i] + y->cse[i] * y->cse[i], t;
			if (isnan(a[i]) || isnan(b[i]) || !(v > 0))
				return NAN;
			t = (a[i] - b[i]) * (a[i] - b[i]) / v;
			s += (d->widths[i] - prev_k) * (t + prev_s) / 2;
			prev_k = d->widths[i];
			prev_s = t;
		}
		return prev_k > 0 ? sqrt(s / prev_k) : NAN;
	case C_JS:
		for (int l = 0; l < DF_N; l++) {
			double p = a[L + l], q = b[L + l], m = (p + q) / 2;
			if (isnan(p) || isnan(q))
				return NAN;
			if (p > 0)
				js += p * log2(p / m) / 2;
			if (q > 0)
				js += q * log2(q / m) / 2;
		}
		return sqrt(fmax(js, 0));
	case C_ORDER: return fabs(a[L + DF_N] - b[L + DF_N]);
	case C_TOKENS:
	case C_LATENCY:
		s = a[L + DF_N + c - C_ORDER] / b[L + DF_N + c - C_ORDER];
		return s > 0 ? fabs(log(s)) : NAN;
	default: return fabs(a[L + DF_N + 3] - b[L + DF_N + 3]);
	}
}

static const char *
component_why(const struct dist *d, int c)
{
	switch (c) {
	case C_KCURVE: return d->nw ? "a lift or its standard error is missing in one of the two" :
		"delta_r is not registered";
	case C_JS: return "failure_labels is missing in one of the two (no labelled failure, or not "
		"registered)";
	case C_ORDER: return "order_change is missing in one of the two";
	case C_TOKENS: return "tokens_per_decision is missing in one of the two";
	case C_LATENCY: return "latency_per_decision is missing in one of the two";
	default: return "engine_selects is missing in one of the two";
	}
}

static void
interval(double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n == 0)
		return;
	quantile7_two(v, n, (1 - FP_LEVEL) / 2, (1 + FP_LEVEL) / 2, lo, hi);
}

static int
pair_components(const struct dist *d, struct pair_out *p, double *tmp)
{
	const struct dfp *x = &d->fp[p->a], *y = &d->fp[p->b];

	for (int c = 0; c < NCOMP; c++) {
		size_t n = 0;
		p->comp[c] = component(d, c, x, y, x->cx, y->cx);
		p->why[c] = isnan(p->comp[c]) ? component_why(d, c) : NULL;
		for (size_t r = 0; r < d->R && !isnan(p->comp[c]); r++) {
			double v = component(d, c, x, y, &x->cr[r * d->NX], &y->cr[r * d->NX]);
			if (!isnan(v))
				tmp[n++] = v;
		}
		interval(tmp, n, &p->clo[c], &p->chi[c]);
	}
	return 0;
}

/* |w|^2 for L w = u - v (L lower triangular, F x F, row-major), by
 * forward substitution; NAN when a difference is missing.  y is scratch
 * of F. */
static double
quad(const double *L, size_t F, const double *u, const double *v, size_t stride, double *y)
{
	double s = 0;

	for (size_t a = 0; a < F; a++) {
		double t = u[a * stride] - v[a * stride];
		if (isnan(t))
			return NAN;
		for (size_t b = 0; b < a; b++)
			t -= L[a * F + b] * y[b];
		y[a] = t / L[a * F + a];
		s += y[a] * y[a];
	}
	return s;
}

/* The same for a block of replicates at once (u and v column-major: the
 * difference of replicate q in feature a at [a * FP_QB + q]; at most QB
 * of them from here), each in the order quad takes, so the results are
 * quad's to the bit. */
#define QB 8
static void
quad_block(const double *L, size_t F, const double *u, const double *v, size_t nq, double *out,
    double *y)
{
	double s[QB] = { 0 }, t[QB];
	int bad[QB] = { 0 };

	for (size_t q = 0; q < nq; q++)
		for (size_t a = 0; a < F; a++)
			bad[q] |= isnan(u[a * FP_QB + q] - v[a * FP_QB + q]);
	for (size_t a = 0; a < F; a++) {
		for (size_t q = 0; q < QB; q++)
			t[q] = q < nq && !bad[q] ? u[a * FP_QB + q] - v[a * FP_QB + q] : 0;
		/* eight named accumulators stay in registers */
		double t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6],
		    t7 = t[7];
		const double *La = &L[a * F];
		for (size_t b = 0; b < a; b++) {
			const double l = La[b], *yb = &y[b * QB];
			t0 -= l * yb[0];
			t1 -= l * yb[1];
			t2 -= l * yb[2];
			t3 -= l * yb[3];
			t4 -= l * yb[4];
			t5 -= l * yb[5];
			t6 -= l * yb[6];
			t7 -= l * yb[7];
		}
		t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3, t[4] = t4, t[5] = t5, t[6] = t6, t[7] = t7;
		for (size_t q = 0; q < QB; q++) {
			y[a * QB + q] = t[q] / La[a];
			s[q] += y[a * QB + q] * y[a * QB + q];
		}
	}
	for (size_t q = 0; q < nq; q++)
		out[q] = bad[q] || isnan(s[q]) ? NAN : s[q];
}

/* quad_block for FP_QB replicates, four to an AVX2 register: the same
 * operations in the same order (a multiply, then a subtraction, each
 * rounded: no fused multiply-add, which this target does not enable), so
 * the same bits as quad_block's.  Eight registers of differences are
 * eight independent chains of multiply and subtract: one chain waits on
 * its own last subtraction, so with two the loop ran at the latency of
 * the operations, not at their rate.  A missing difference is NaN in its
 * own lane only, and so is that replicate's sum. */
typedef double v4d __attribute__((vector_size(32)));

/* Four doubles as one register, by one load (a copy of an array of them
 * went through the stack in halves, and stalled every use). */
__attribute__((target("avx2"))) static inline v4d
ld4(const double *p)
{
	v4d r;

	memcpy(&r, p, sizeof r);
	return r;
}

__attribute__((target("avx2"))) static void
quad_block_avx2(const double *L, size_t F, const double *u, const double *v, size_t nq,
    double *out, double *y)
{
	v4d s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 }, s4 = { 0 }, s5 = { 0 }, s6 = { 0 },
	    s7 = { 0 };
	double sq[FP_QB];

	for (size_t a = 0; a < F; a++) {
		const double *ua = &u[a * FP_QB], *va = &v[a * FP_QB], *La = &L[a * F], *yb = y;
		/* named, so that they stay in registers (an array did not) */
		v4d t0 = ld4(ua) - ld4(va), t1 = ld4(ua + 4) - ld4(va + 4),
		    t2 = ld4(ua + 8) - ld4(va + 8), t3 = ld4(ua + 12) - ld4(va + 12),
		    t4 = ld4(ua + 16) - ld4(va + 16), t5 = ld4(ua + 20) - ld4(va + 20),
		    t6 = ld4(ua + 24) - ld4(va + 24), t7 = ld4(ua + 28) - ld4(va + 28);
		for (size_t b = 0; b < a; b++, yb += FP_QB) {
			v4d l = { La[b], La[b], La[b], La[b] };
			t0 -= l * ld4(yb);
			t1 -= l * ld4(yb + 4);
			t2 -= l * ld4(yb + 8);
			t3 -= l * ld4(yb + 12);
			t4 -= l * ld4(yb + 16);
			t5 -= l * ld4(yb + 20);
			t6 -= l * ld4(yb + 24);
			t7 -= l * ld4(yb + 28);
		}
		t0 /= La[a], t1 /= La[a], t2 /= La[a], t3 /= La[a];
		t4 /= La[a], t5 /= La[a], t6 /= La[a], t7 /= La[a];
		s0 += t0 * t0, s1 += t1 * t1, s2 += t2 * t2, s3 += t3 * t3;
		s4 += t4 * t4, s5 += t5 * t5, s6 += t6 * t6, s7 += t7 * t7;
		double *ya = &y[a * FP_QB];
		memcpy(ya, &t0, sizeof t0), memcpy(ya + 4, &t1, sizeof t1);
		memcpy(ya + 8, &t2, sizeof t2), memcpy(ya + 12, &t3, sizeof t3);
		memcpy(ya + 16, &t4, sizeof t4), memcpy(ya + 20, &t5, sizeof t5);
		memcpy(ya + 24, &t6, sizeof t6), memcpy(ya + 28, &t7, sizeof t7);
	}
	memcpy(sq, &s0, sizeof s0), memcpy(sq + 4, &s1, sizeof s1);
	memcpy(sq + 8, &s2, sizeof s2), memcpy(sq + 12, &s3, sizeof s3);
	memcpy(sq + 16, &s4, sizeof s4), memcpy(sq + 20, &s5, sizeof s5);
	memcpy(sq + 24, &s6, sizeof s6), memcpy(sq + 28, &s7, sizeof s7);
	for (size_t q = 0; q < nq; q++)
		out[q] = isnan(sq[q]) ? NAN : sq[q];
}

void
fp_quad_block(const double *L, size_t F, const double *u, const double *v, size_t nq,
    double *out, double *y, int avx2)
{
	if (avx2) {
		quad_block_avx2(L, F, u, v, nq, out, y);
		return;
	}
	for (size_t q = 0; q < nq; q += QB)
		quad_block(L, F, &u[q], &v[q], nq - q < QB ? nq - q : QB, &out[q], y);
}

/* The pair's d2, its replicates, its null mean tr(M^-1 (Si + Sj)). */
static void
pair_one(void *arg, size_t k, int worker)
{
	struct dist *d = arg;
	struct pair_out *p = &d->pairs[k];
	const struct dfp *x = &d->fp[p->a], *y = &d->fp[p->b];
	size_t F = d->F;
	gsl_matrix *M = gsl_matrix_alloc(F, F), *Mi = gsl_matrix_alloc(F, F);
	double *dz = malloc(F * FP_QB * sizeof *dz), *tmp = malloc((d->R + 1) * sizeof *tmp);
	double *Lw = calloc(F * F, sizeof *Lw);

	p->d2r = malloc((d->R + 1) * sizeof *p->d2r);
	if (M == NULL || Mi == NULL || dz == NULL || tmp == NULL || p->d2r == NULL || Lw == NULL) {
		p->failed = 1;
		goto done;
	}
	for (size_t a = 0; a < F; a++)
		for (size_t b = 0; b < F; b++)
			gsl_matrix_set(M, a, b, d->Spop[a * F + b] + x->S[a * F + b] + y->S[a * F + b] +
			    (a == b ? d->lambda : 0));
	for (size_t a = 0; a < F; a++)
		dz[a] = gsl_matrix_get(M, a, a);
	if (gsl_linalg_cholesky_decomp1(M) != GSL_SUCCESS) {
		p->failed = 2;
		goto done;
	}
	/* a pivot lost to rounding is singular too: GSL stops only below 0 */
	for (size_t a = 0; a < F; a++) {
		double l = gsl_matrix_get(M, a, a);
		if (!(l * l > 1e-12 * dz[a])) {
			p->failed = 2;
			goto done;
		}
	}
	gsl_matrix_memcpy(Mi, M);
	gsl_linalg_cholesky_invert(Mi);
	p->null_mean = 0;
	for (size_t a = 0; a < F; a++)
		for (size_t b = 0; b < F; b++)
			p->null_mean += gsl_matrix_get(Mi, a, b) * (x->S[b * F + a] + y->S[b * F + a]);
	p->n = 0;
	for (size_t a = 0; a < F; a++)
		for (size_t b = 0; b <= a; b++)
			Lw[a * F + b] = gsl_matrix_get(M, a, b);
	p->d2 = quad(Lw, F, x->z, y->z, 1, dz);
	for (size_t r = 0; r < d->R; r += FP_QB) {
		size_t nq = d->R - r < FP_QB ? d->R - r : FP_QB;
		fp_quad_block(Lw, F, &x->zr[r * F], &y->zr[r * F], nq, &p->d2r[r], dz, d->avx2);
		for (size_t q = 0; q < nq; q++)
			if (!isnan(p->d2r[r + q]))
				tmp[p->n++] = p->d2r[r + q];
	}
	interval(tmp, p->n, &p->lo, &p->hi);
	pair_components(d, p, tmp);
done:
	gsl_matrix_free(M);
	gsl_matrix_free(Mi);
	free(dz);
	free(tmp);
	free(Lw);
}

/* Room for every pair, i < j in order. */
static int
pairs_new(struct dist *d, struct err *e)
{
	d->npairs = d->nfp * (d->nfp - 1) / 2;
	if ((d->pairs = calloc(d->npairs + 1, sizeof *d->pairs)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0, k = 0; i < d->nfp; i++)
		for (size_t j = i + 1; j < d->nfp; j++, k++) {
			d->pairs[k].a = i;
			d->pairs[k].b = j;
		}
	return 0;
}

/* Pair p0 + k: a shard computes its own range. */
static void
pair_in_range(void *arg, size_t k, int worker)
{
	struct dist *d = arg;

	pair_one(d, d->p0 + k, worker);
}

static int
all_pairs(struct dist *d, const struct fp_dist_opts *o, struct err *e)
{
	int threads = (o && o->jobs > 0 ? o->jobs : pool_cpus()) - 1;
	struct pool *pl;

	if (d->pairs == NULL && pairs_new(d, e) < 0)
		return -1;
	if (d->p1 == 0)
		d->p1 = d->npairs;
	if ((pl = pool_new(threads < 0 ? 0 : threads)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	pool_run(pl, d->p1 - d->p0, pair_in_range, d);
	pool_free(pl);
	for (size_t k = d->p0; k < d->p1; k++) {
		const struct pair_out *p = &d->pairs[k];
		if (p->failed == 1)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (p->failed == 2)
			return err_set(e, ERR_INPUT, "fingerprints %s/%s and %s/%s: Spop + Si + Sj + "
			    "lambda I is not positive definite (lambda %g): register a larger lambda",
			    d->fp[p->a].family, d->fp[p->a].replication, d->fp[p->b].family,
			    d->fp[p->b].replication, d->lambda);
	}
	return 0;
}

/* -------- test-retest and separation -------- */

static const struct pair_out *
pair_of(const struct dist *d, size_t i, size_t j)
{
	size_t a = i < j ? i : j, b = i < j ? j : i;

	return &d->pairs[a * d->nfp - a * (a + 1) / 2 + (b - a - 1)];
}

/* The pairs of fingerprints of families fa and fb (fa == fb: its
 * replications among themselves), found once. */
struct fset {
	const struct pair_out **p;
	size_t n;
};

static int
fset_of(const struct dist *d, const char *fa, const char *fb, struct fset *s)
{
	s->n = 0;
	if ((s->p = malloc((d->npairs + 1) * sizeof *s->p)) == NULL)
		return -1;
	for (size_t i = 0; i < d->nfp; i++)
		for (size_t j = i + 1; j < d->nfp; j++) {
			const char *x = d->fp[i].family, *y = d->fp[j].family;
			if ((strcmp(x, fa) == 0 && strcmp(y, fb) == 0) ||
			    (strcmp(x, fb) == 0 && strcmp(y, fa) == 0))
				s->p[s->n++] = pair_of(d, i, j);
		}
	return 0;
}

/* Their mean d2 for the estimate (r < 0) or replicate r; NAN when there
 * is no pair or one is undefined. */
static double
fset_mean(const struct fset *s, long r)
{
	double t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += r < 0 ? s->p[i]->d2 : s->p[i]->d2r[r];
	return s->n ? t / (double)s->n : NAN;
}

static cJSON *
rnum(double x, double step)
{
	return isfinite(x) ? cJSON_CreateNumber(json_round(x, step)) : cJSON_CreateNull();
}

/* The families, as first met in the panel. */
static size_t
families(const struct dist *d, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nfp; i++) {
		size_t j;
		for (j = 0; j < n && strcmp(out[j], d->fp[i].family) != 0; j++)
			;
		if (j == n)
			out[n++] = d->fp[i].family;
	}
	return n;
}

static size_t
replications(const struct dist *d, const char *fam)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nfp; i++)
		n += strcmp(d->fp[i].family, fam) == 0;
	return n;
}

static cJSON *
retest_json(struct json_bld *k, const struct dist *d, const char *fam, double *tmp)
{
	cJSON *o = cJSON_CreateObject();
	size_t nrep = replications(d, fam), n = 0;
	double lo, hi;
	struct fset ff;

	if (o == NULL || fset_of(d, fam, fam, &ff) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	json_bld_put(k, o, "family", cJSON_CreateString(fam));
	json_bld_put(k, o, "replications", cJSON_CreateNumber((double)nrep));
	for (size_t r = 0; nrep >= 2 && r < d->R; r++) {
		double v = fset_mean(&ff, (long)r);
		if (!isnan(v))
			tmp[n++] = v;
	}
	interval(tmp, n, &lo, &hi);
	json_bld_put(k, o, "d2", rnum(fset_mean(&ff, -1), 1e-6));
	free(ff.p);
	json_bld_put(k, o, "lo", rnum(lo, 1e-6));
	json_bld_put(k, o, "hi", rnum(hi, 1e-6));
	if (nrep < 2)
		json_bld_put(k, o, "reason", cJSON_CreateString("one replication: no test-retest distance"));
	return o;
}

static cJSON *
separation_json(struct json_bld *k, const struct dist *d, const char *fa, const char *fb)
{
	cJSON *o = cJSON_CreateObject();
	struct fset sa = { NULL, 0 }, sb = { NULL, 0 }, sab = { NULL, 0 };
	double wa, wb, bt, p = NAN;
	size_t n = 0, le = 0;

	if (o == NULL || fset_of(d, fa, fa, &sa) < 0 || fset_of(d, fb, fb, &sb) < 0 ||
	    fset_of(d, fa, fb, &sab) < 0) {
		free(sa.p);
		free(sb.p);
		free(sab.p);
		cJSON_Delete(o);
		return NULL;
	}
	wa = fset_mean(&sa, -1), wb = fset_mean(&sb, -1), bt = fset_mean(&sab, -1);
	for (size_t r = 0; !isnan(wa) && !isnan(wb) && r < d->R; r++) {
		double b = fset_mean(&sab, (long)r), x = fset_mean(&sa, (long)r);
		double y = fset_mean(&sb, (long)r);
		if (isnan(b) || isnan(x) || isnan(y))
			continue;
		n++;
		le += b <= fmax(x, y);
	}
	if (n > 0)
		p = (double)le / (double)n;
	free(sa.p);
	free(sb.p);
	free(sab.p);
	json_bld_put(k, o, "a", cJSON_CreateString(fa));
	json_bld_put(k, o, "b", cJSON_CreateString(fb));
	json_bld_put(k, o, "between", rnum(bt, 1e-6));
	json_bld_put(k, o, "within_a", rnum(wa, 1e-6));
	json_bld_put(k, o, "within_b", rnum(wb, 1e-6));
	json_bld_put(k, o, "p", rnum(p, 1e-6));
	if (isnan(p)) {
		json_bld_put(k, o, "exceeds", cJSON_CreateNull());
		json_bld_put(k, o, "reason", cJSON_CreateString(isnan(wa) || isnan(wb) ?
		    "a family with one replication: no within-family distance" :
		    "no bootstrap replicate where all three distances are defined"));
	} else {
		json_bld_put(k, o, "exceeds", cJSON_CreateBool(bt > fmax(wa, wb) && p < 1 - FP_LEVEL));
	}
	return o;
}

static cJSON *
who(const struct dfp *x)
{
	cJSON *o = cJSON_CreateObject();

	if (o != NULL && (!json_add_string(o, "family", x->family) ||
	    !json_add_string(o, "replication", x->replication) ||
	    (x->split != NULL && !json_add_string(o, "split", x->split)))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *
pair_json(struct json_bld *k, const struct dist *d, const struct pair_out *p)
{
	cJSON *o = cJSON_CreateObject(), *c = cJSON_CreateObject();

	json_bld_put(k, o, "a", who(&d->fp[p->a]));
	json_bld_put(k, o, "b", who(&d->fp[p->b]));
	json_bld_put(k, o, "d2", rnum(p->d2, 1e-6));
	json_bld_put(k, o, "lo", rnum(p->lo, 1e-6));
	json_bld_put(k, o, "hi", rnum(p->hi, 1e-6));
	json_bld_put(k, o, "null_mean", rnum(p->null_mean, 1e-6));
	json_bld_put(k, o, "replicates", cJSON_CreateNumber((double)p->n));
	json_bld_put(k, o, "components", c);
	for (int i = 0; c != NULL && i < NCOMP; i++) {
		cJSON *x = cJSON_CreateObject();
		json_bld_put(k, c, comp_names[i], x);
		if (x == NULL)
			break;
		json_bld_put(k, x, "estimate", rnum(p->comp[i], comp_step[i]));
		json_bld_put(k, x, "lo", rnum(p->clo[i], comp_step[i]));
		json_bld_put(k, x, "hi", rnum(p->chi[i], comp_step[i]));
		if (p->why[i] != NULL)
			json_bld_put(k, x, "reason", cJSON_CreateString(p->why[i]));
	}
	return o;
}

static int
build(struct json_bld *k, struct dist *d, const cJSON *const *docs, size_t ndocs, cJSON *doc,
    struct err *e)
{
	const cJSON *ds = json_get(docs[0], "distance");
	cJSON *a;
	const char **fam = calloc(d->nfp + 1, sizeof *fam);
	double *tmp = malloc((d->R + 1) * sizeof *tmp);
	size_t nf;
	char id[HASH_ID_LEN + 1];

	if (fam == NULL || tmp == NULL) {
		free(fam);
		free(tmp);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	nf = families(d, fam);
	json_bld_put(k, doc, "kind", cJSON_CreateString("cohort.distance/1"));
	json_bld_put(k, doc, "prereg", cJSON_Duplicate(json_get(docs[0], "prereg"), 1));
	json_bld_put(k, doc, "inputs", a = cJSON_CreateObject());
	if (a != NULL) {
		cJSON *ids = cJSON_CreateArray();
		json_bld_put(k, a, "fingerprints", ids);
		for (size_t i = 0; ids != NULL && i < ndocs; i++)
			json_bld_push(k, ids, d->ids != NULL ? cJSON_CreateString(d->ids[i]) :
			    canon_id(docs[i], id, e) < 0 ? NULL : cJSON_CreateString(id));
	}
	json_bld_put(k, doc, "lambda", cJSON_Duplicate(json_get(ds, "lambda"), 1));
	json_bld_put(k, doc, "population", cJSON_Duplicate(json_get(ds, "population"), 1));
	json_bld_put(k, doc, "level", cJSON_CreateNumber(FP_LEVEL));
	json_bld_put(k, doc, "features", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < d->F; i++)
		json_bld_push(k, a, cJSON_CreateString(d->feat[i]));
	json_bld_put(k, doc, "scales", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < d->F; i++)
		json_bld_push(k, a, cJSON_CreateNumber(d->scale[i]));
	json_bld_put(k, doc, "dropped", d->dropped);
	d->dropped = NULL;
	json_bld_put(k, doc, "fingerprints", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < d->nfp; i++)
		json_bld_push(k, a, who(&d->fp[i]));
	json_bld_put(k, doc, "pairs", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < d->npairs && !k->oom; i++)
		json_bld_push(k, a, pair_json(k, d, &d->pairs[i]));
	json_bld_put(k, doc, "test_retest", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < nf; i++)
		json_bld_push(k, a, retest_json(k, d, fam[i], tmp));
	json_bld_put(k, doc, "separation", a = cJSON_CreateArray());
	for (size_t i = 0; a != NULL && i < nf; i++)
		for (size_t j = i + 1; j < nf; j++)
			json_bld_push(k, a, separation_json(k, d, fam[i], fam[j]));
	json_bld_put(k, doc, "deviations", cJSON_CreateArray());
	free(fam);
	free(tmp);
	return k->oom ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

static void
dist_release(struct dist *d)
{
	for (size_t i = 0; d->fp && i < d->nfp; i++) {
		free(d->fp[i].z);
		free(d->fp[i].S);
		free(d->fp[i].zr);
		free(d->fp[i].cx);
		free(d->fp[i].cse);
		free(d->fp[i].cr);
	}
	for (size_t k = 0; d->pairs && k < d->npairs; k++)
		free(d->pairs[k].d2r);
	free(d->fp);
	free(d->feat);
	free(d->scale);
	free(d->Spop);
	free(d->widths);
	free(d->pairs);
	cJSON_Delete(d->dropped);
}

/* The panel of docs up to the pairs: features, scales, components. */
static int
dist_setup(struct dist *d, const cJSON *const *docs, size_t ndocs, const struct fp_rows *rows,
    struct err *e)
{
	const char *pop;

	memset(d, 0, sizeof *d);
	d->rows = rows;
	d->avx2 = __builtin_cpu_supports("avx2") != 0;
	if (ndocs == 0)
		return err_set(e, ERR_USAGE, "no fingerprint document given");
	for (size_t i = 0; i < ndocs; i++) {
		const char *kind = cJSON_GetStringValue(json_get(docs[i], "kind"));
		if (kind == NULL || strcmp(kind, "cohort.fingerprint/1") != 0)
			return err_set(e, ERR_INPUT, "input %zu: not a cohort.fingerprint/1 document", i + 1);
	}
	pop = cJSON_GetStringValue(json_get(json_get(docs[0], "distance"), "population"));
	d->lambda = numv(json_get(json_get(docs[0], "distance"), "lambda"));
	if (pop == NULL || !(d->lambda >= 0))
		return err_set(e, ERR_INPUT, "input 1: \"distance\": expected lambda and population");
	return panel(d, docs, ndocs, e) == 0 && features(d, e) == 0 && extract(d, e) == 0 &&
	    scales(d, pop, e) == 0 && components_in(d, e) == 0 ? 0 : -1;
}

/* The document of d, its pairs computed. */
static int
dist_document(struct dist *d, const cJSON *const *docs, size_t ndocs, cJSON **out, struct err *e)
{
	struct json_bld k = { 0 };
	cJSON *doc = cJSON_CreateObject();

	if (doc == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (build(&k, d, docs, ndocs, doc, e) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	*out = doc;
	return 0;
}

int
fp_distance(const cJSON *const *docs, size_t ndocs, const struct fp_dist_opts *o, cJSON **out,
    struct err *e)
{
	struct dist d;
	int rc = -1;

	*out = NULL;
	/* a tree whose rows are held flat no longer has the input's identity */
	if (o != NULL && o->rows != NULL && o->ids == NULL)
		return err_set(e, ERR_USAGE, "distance: rows held flat without the inputs' identities");
	if (dist_setup(&d, docs, ndocs, o ? o->rows : NULL, e) == 0) {
		d.ids = o ? o->ids : NULL;
		d.avx2 = d.avx2 && !(o && o->plain);
		if (all_pairs(&d, o, e) == 0 && (o == NULL || o->ids_wait == NULL ||
		    o->ids_wait(o->ids_arg, e) == 0) && dist_document(&d, docs, ndocs, out, e) == 0)
			rc = 0;
	}
	dist_release(&d);
	return rc;
}

/* -------- table and re-computation -------- */

static void
label(char *s, size_t n, const cJSON *w)
{
	const char *split = cJSON_GetStringValue(json_get(w, "split"));

	snprintf(s, n, "%s/%s%s%s", cJSON_GetStringValue(json_get(w, "family")),
	    cJSON_GetStringValue(json_get(w, "replication")), split ? "/" : "", split ? split : "");
}

static void
cell(char *s, size_t n, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		snprintf(s, n, "%.2f", v->valuedouble);
	else
		snprintf(s, n, "-");
}

/* The d2 matrix: each pair placed once (the last pair of two fingerprints
 * fills their cells), where a search of every pair for every cell took
 * n^2 times the pairs. */
static int
matrix(const cJSON *doc, const cJSON *fps, int n, int w, struct buf *out)
{
	const cJSON **at = calloc((size_t)n * (size_t)n + 1, sizeof *at), *p, *x;
	char a[64], c[32];

	if (at == NULL)
		return -1;
	cJSON_ArrayForEach(p, json_get(doc, "pairs")) {
		int ai = -1, bi = -1, k = 0;
		cJSON_ArrayForEach(x, fps) {
			if (cJSON_Compare(x, json_get(p, "a"), 1))
				ai = k;
			if (cJSON_Compare(x, json_get(p, "b"), 1))
				bi = k;
			k++;
		}
		if (ai >= 0 && bi >= 0)
			at[ai * n + bi] = at[bi * n + ai] = p;
	}
	buf_printf(out, "%-*s", w, "d2");
	for (int j = 0; j < n; j++)
		buf_printf(out, " %8d", j + 1);
	buf_printf(out, "\n");
	for (int i = 0; i < n; i++) {
		label(a, sizeof a, cJSON_GetArrayItem(fps, i));
		buf_printf(out, "%-*s", w, a);
		for (int j = 0; j < n; j++) {
			snprintf(c, sizeof c, "%s", i == j ? "0" : "-");
			if (at[i * n + j] != NULL)
				cell(c, sizeof c, json_get(at[i * n + j], "d2"));
			buf_printf(out, " %8s", c);
		}
		buf_printf(out, "\n");
	}
	free(at);
	return 0;
}

int
fp_distance_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *fps = json_get(doc, "fingerprints"), *p;
	int n = cJSON_GetArraySize(fps);
	char a[64], b[64], c[32], lo[32], hi[32];
	int w = 12, wf = 12, ws = 25;

	/* Names are printed whole: the widest sets each column's width, and
	 * the matrix's columns are numbered in its rows' order. */
	for (int i = 0; i < n; i++) {
		label(a, sizeof a, cJSON_GetArrayItem(fps, i));
		w = (int)strlen(a) > w ? (int)strlen(a) : w;
	}
	cJSON_ArrayForEach(p, json_get(doc, "test_retest")) {
		const char *f = cJSON_GetStringValue(json_get(p, "family"));
		wf = f != NULL && (int)strlen(f) > wf ? (int)strlen(f) : wf;
	}
	cJSON_ArrayForEach(p, json_get(doc, "separation")) {
		snprintf(a, sizeof a, "%s ~ %s", cJSON_GetStringValue(json_get(p, "a")),
		    cJSON_GetStringValue(json_get(p, "b")));
		ws = (int)strlen(a) > ws ? (int)strlen(a) : ws;
	}
	if (matrix(doc, fps, n, w, out) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	buf_printf(out, "\n%-*s %9s   95%% interval\n", wf, "test-retest", "d2");
	cJSON_ArrayForEach(p, json_get(doc, "test_retest")) {
		cell(c, sizeof c, json_get(p, "d2"));
		cell(lo, sizeof lo, json_get(p, "lo"));
		cell(hi, sizeof hi, json_get(p, "hi"));
		buf_printf(out, "%-*s %9s   %s .. %s\n", wf, cJSON_GetStringValue(json_get(p, "family")),
		    c, lo, hi);
	}
	buf_printf(out, "\n%-*s %9s %9s %9s %8s  exceeds\n", ws, "separation", "between", "within a",
	    "within b", "p");
	cJSON_ArrayForEach(p, json_get(doc, "separation")) {
		const cJSON *ex = json_get(p, "exceeds");
		snprintf(a, sizeof a, "%s ~ %s", cJSON_GetStringValue(json_get(p, "a")),
		    cJSON_GetStringValue(json_get(p, "b")));
		cell(c, sizeof c, json_get(p, "between"));
		cell(lo, sizeof lo, json_get(p, "within_a"));
		cell(hi, sizeof hi, json_get(p, "within_b"));
		cell(b, sizeof b, json_get(p, "p"));
		buf_printf(out, "%-*s %9s %9s %9s %8s  %s\n", ws, a, c, lo, hi, b,
		    cJSON_IsBool(ex) ? (cJSON_IsTrue(ex) ? "yes" : "no") : "-");
	}
	return out->p == NULL ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
fp_distance_refit_check(const cJSON *doc, const cJSON *const *docs, size_t ndocs, int *same,
    struct err *e)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	cJSON *again = NULL;
	int rc = -1;

	*same = 0;
	if (fp_distance(docs, ndocs, NULL, &again, e) == 0 && canon_write(doc, &x, e) == 0 &&
	    canon_write(again, &y, e) == 0) {
		*same = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
		rc = 0;
	}
	cJSON_Delete(again);
	buf_release(&x);
	buf_release(&y);
	return rc;
}

/* -------- shards of pairs (fppart.h) -------- */

static cJSON *
num_json(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static int
add_vec(struct json_bld *k, cJSON *o, const char *key, const double *x, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	json_bld_put(k, o, key, a);
	for (size_t i = 0; a != NULL && i < n; i++)
		json_bld_push(k, a, num_json(x[i]));
	return !k->oom;
}

/* Pair u's figures, exactly: every double as it is (null when not finite). */
static cJSON *
pair_unit(struct json_bld *k, const struct dist *d, size_t u)
{
	const struct pair_out *p = &d->pairs[u];
	cJSON *o = cJSON_CreateObject(), *w;

	if (o == NULL)
		return NULL;
	json_bld_put(k, o, "unit", cJSON_CreateNumber((double)u));
	json_bld_put(k, o, "d2", num_json(p->d2));
	json_bld_put(k, o, "null_mean", num_json(p->null_mean));
	json_bld_put(k, o, "lo", num_json(p->lo));
	json_bld_put(k, o, "hi", num_json(p->hi));
	json_bld_put(k, o, "n", cJSON_CreateNumber((double)p->n));
	add_vec(k, o, "d2r", p->d2r, d->R);
	add_vec(k, o, "comp", p->comp, NCOMP);
	add_vec(k, o, "clo", p->clo, NCOMP);
	add_vec(k, o, "chi", p->chi, NCOMP);
	json_bld_put(k, o, "why", w = cJSON_CreateArray());
	for (int c = 0; w != NULL && c < NCOMP; c++)
		json_bld_push(k, w, p->why[c] ? cJSON_CreateString(p->why[c]) : cJSON_CreateNull());
	return o;
}

static cJSON *
dist_settings(const cJSON *const *docs, size_t ndocs)
{
	cJSON *s = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(s, "fingerprints");

	for (size_t i = 0; a != NULL && i < ndocs; i++) {
		cJSON *c = cJSON_Duplicate(docs[i], 1);
		if (c == NULL || !cJSON_AddItemToArray(a, c)) {
			cJSON_Delete(c);
			a = NULL;
		}
	}
	if (a == NULL)
		cJSON_Delete(s), s = NULL;
	return s;
}

int
fp_distance_part(const cJSON *const *docs, size_t ndocs, const struct fp_dist_opts *o,
    const struct part_shard *s, cJSON **out, struct err *e)
{
	struct dist d;
	struct json_bld k = { 0 };
	cJSON *set = NULL, *part = NULL;
	int rc = -1;

	*out = NULL;
	/* the part carries the trees, which must hold their rows */
	if (o != NULL && o->rows != NULL)
		return err_set(e, ERR_USAGE, "distance: a part of documents whose rows are held flat");
	if (dist_setup(&d, docs, ndocs, NULL, e) < 0 || pairs_new(&d, e) < 0)
		goto done;
	part_slice(d.npairs, s, &d.p0, &d.p1);
	if (d.p1 > d.p0 && all_pairs(&d, o, e) < 0)
		goto done;
	if ((set = dist_settings(docs, ndocs)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((part = part_new("cohort.distance/1", s, set, e)) == NULL)
		goto done;
	for (size_t u = d.p0; u < d.p1 && !k.oom; u++)
		json_bld_push(&k, part_units_of(part), pair_unit(&k, &d, u));
	if (k.oom) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = part;
	part = NULL;
	rc = 0;
done:
	cJSON_Delete(part);
	cJSON_Delete(set);
	dist_release(&d);
	return rc;
}

/* The fingerprint documents of a part's settings, borrowed. */
static const cJSON **
settings_docs(const cJSON *settings, const char *name, size_t *n, struct err *e)
{
	const cJSON *a = json_get(settings, "fingerprints"), *it;
	const cJSON **docs;

	*n = 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0) {
		err_set(e, ERR_INPUT, "%s: \"settings\": \"fingerprints\": expected the documents", name);
		return NULL;
	}
	if ((docs = calloc((size_t)cJSON_GetArraySize(a), sizeof *docs)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	cJSON_ArrayForEach(it, a)
		docs[(*n)++] = it;
	return docs;
}

long
fp_distance_part_total(const cJSON *settings, const char *name, struct err *e)
{
	struct dist d;
	size_t n;
	const cJSON **docs = settings_docs(settings, name, &n, e);
	long total = -1;

	memset(&d, 0, sizeof d);
	if (docs != NULL && dist_setup(&d, docs, n, NULL, e) == 0)
		total = (long)(d.nfp * (d.nfp - 1) / 2);
	else if (docs != NULL)
		err_prefix(e, "%s: \"settings\"", name);
	dist_release(&d);
	free(docs);
	return total;
}

static int
read_vec(const cJSON *a, double *x, size_t n)
{
	const cJSON *it;
	size_t i = 0;

	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != n)
		return -1;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it) && !cJSON_IsNull(it))
			return -1;
		x[i++] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
	}
	return 0;
}

/* Unit u back into its pair (the reasons borrowed from the unit). */
static int
pair_read(const struct dist *d, const cJSON *u, struct pair_out *p, const char *name, size_t k,
    struct err *e)
{
	double x[5];
	const char *keys[5] = { "d2", "null_mean", "lo", "hi", "n" };
	const cJSON *w = json_get(u, "why"), *it;
	int c = 0;

	for (int i = 0; i < 5; i++) {
		const cJSON *v = json_get(u, keys[i]);
		if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
			return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"%s\": expected a number",
			    name, k, keys[i]);
		x[i] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	p->d2 = x[0], p->null_mean = x[1], p->lo = x[2], p->hi = x[3];
	p->n = x[4] >= 0 ? (size_t)x[4] : 0;
	if ((p->d2r = malloc((d->R + 1) * sizeof *p->d2r)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (read_vec(json_get(u, "d2r"), p->d2r, d->R) < 0 ||
	    read_vec(json_get(u, "comp"), p->comp, NCOMP) < 0 ||
	    read_vec(json_get(u, "clo"), p->clo, NCOMP) < 0 ||
	    read_vec(json_get(u, "chi"), p->chi, NCOMP) < 0 || !cJSON_IsArray(w) ||
	    cJSON_GetArraySize(w) != NCOMP)
		return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: expected d2r (%zu), comp, clo, "
		    "chi and why (%d each)", name, k, d->R, NCOMP);
	cJSON_ArrayForEach(it, w)
		p->why[c++] = cJSON_IsString(it) ? it->valuestring : NULL;
	return 0;
}

int
fp_distance_part_merge(const cJSON *settings, const cJSON *const *units,
    const char *const *names, size_t total, cJSON **out, struct err *e)
{
	struct dist d;
	size_t n;
	const char *name = total ? names[0] : "<parts>";
	const cJSON **docs = settings_docs(settings, name, &n, e);
	int rc = -1;

	*out = NULL;
	memset(&d, 0, sizeof d);
	if (docs == NULL || dist_setup(&d, docs, n, NULL, e) < 0 || pairs_new(&d, e) < 0)
		goto done;
	if (total != d.npairs) {
		err_set(e, ERR_INPUT, "%s: \"units\": %zu, but the settings make %zu pairs", name, total,
		    d.npairs);
		goto done;
	}
	for (size_t u = 0; u < total; u++)
		if (pair_read(&d, units[u], &d.pairs[u], names[u], u, e) < 0)
			goto done;
	rc = dist_document(&d, docs, n, out, e);
done:
	dist_release(&d);
	free(docs);
	return rc;
}
