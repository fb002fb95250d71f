/* gate_cd.c: gate C (test-retest reliability: fingerprints and
 * distances) and gate D (architectural prediction: fingerprints of the
 * heldout split), against the predictions the prereg registers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>

#include "../json/json.h"
#include "../protocol/prereg.h"
#include "internal.h"

#define MAX_FAMILIES 256
#define MAX_PREDICTORS 16

static const char *
str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
is_heldout(const cJSON *fp)
{
	const char *s = str(fp, "split");

	return s != NULL && strcmp(s, "heldout") == 0;
}

/* A fingerprint document's split is known, one split, and not heldout:
 * "all" holds the heldout positions too, so it is neither side. */
static int
is_training(const cJSON *fp)
{
	const char *s = str(fp, "split");

	return s != NULL && strcmp(s, "heldout") != 0 && strcmp(s, "all") != 0;
}

/* A feature of one fingerprint entry: 0 with its estimate (and interval
 * ends, which may be NULL), 1 when it is absent or null. */
static int
feature(const cJSON *entry, const char *name, double *est, double *lo, double *hi)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, json_get(entry, "features"))
		if (str(f, "name") && strcmp(str(f, "name"), name) == 0) {
			const cJSON *x = json_get(f, "estimate"), *l = json_get(f, "lo"),
			    *h = json_get(f, "hi");
			if (!cJSON_IsNumber(x))
				return 1;
			*est = x->valuedouble;
			if (lo)
				*lo = cJSON_IsNumber(l) ? l->valuedouble : NAN;
			if (hi)
				*hi = cJSON_IsNumber(h) ? h->valuedouble : NAN;
			return 0;
		}
	return 1;
}

/* ---- C1, C2: the distances ---- */

/* C1: each family's test-retest distance (and a distance between two
 * fingerprints of one family and replication, as of the explore and the
 * heldout openings) is within what sampling alone gives: d2 at most the
 * 0.95 quantile of chi-square on the number of features. */
static void
c_replicate(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *d;
	const cJSON *t, *pr;
	size_t i = 0;
	char a[32], b[32];
	long across = 0, across_ok = 0;

	while ((d = gate_next(g, "cohort.distance/1", &i)) != NULL) {
		int p = cJSON_GetArraySize(json_get(d->doc, "features"));
		double q = p > 0 ? gsl_cdf_chisq_Pinv(0.95, p) : NAN;
		verdict_evidence(v, d->id);
		gate_num(q, b);
		cJSON_ArrayForEach(t, json_get(d->doc, "test_retest")) {
			const cJSON *d2 = json_get(t, "d2");
			v->checked++;
			if (!cJSON_IsNumber(d2) || !(p > 0)) {
				verdict_gap(v, "%.40s: no test-retest distance", str(t, "family") ?
				    str(t, "family") : "?");
				continue;
			}
			gate_num(d2->valuedouble, a);
			if (d2->valuedouble > q)
				verdict_fail(v, "%.40s: test-retest d2 %s above %s", str(t, "family") ?
				    str(t, "family") : "?", a, b);
			else
				verdict_note(v, "%.40s: test-retest d2 %s within %s", str(t, "family") ?
				    str(t, "family") : "?", a, b);
		}
		cJSON_ArrayForEach(pr, json_get(d->doc, "pairs")) {
			const cJSON *x = json_get(pr, "a"), *y = json_get(pr, "b"), *d2 = json_get(pr, "d2");
			if (!str(x, "family") || !str(y, "family") || !str(x, "replication") ||
			    !str(y, "replication") || strcmp(str(x, "family"), str(y, "family")) != 0 ||
			    strcmp(str(x, "replication"), str(y, "replication")) != 0 || !cJSON_IsNumber(d2))
				continue;
			v->checked++;
			across++;
			gate_num(d2->valuedouble, a);
			if (d2->valuedouble > q)
				verdict_fail(v, "%.40s %.40s across openings: d2 %s above %s", str(x, "family"),
				    str(x, "replication"), a, b);
			else
				across_ok++;
		}
	}
	if (across > 0)
		verdict_note(v, "%ld of %ld fingerprints of one family and replication across "
		    "splits within the bound", across_ok, across);
	if (v->checked == 0 && i > 0)
		verdict_gap(v, "no family has two replications");
	i = 0;
	while ((d = gate_next(g, "cohort.distance/1", &i)) != NULL)
		cJSON_ArrayForEach(pr, json_get(d->doc, "pairs"))
			for (int side = 0; side < 2; side++) {
				const char *f = str(json_get(pr, side ? "b" : "a"), "family");
				int found = 0;
				cJSON_ArrayForEach(t, json_get(d->doc, "test_retest"))
					found |= f && str(t, "family") && strcmp(str(t, "family"), f) == 0;
				if (f != NULL && !found && !strstr(v->detail, f))
					verdict_gap(v, "%.40s: one replication, no test-retest distance", f);
			}
}

/* C2: every pair of families' distance exceeds both within-family ones
 * (as the distance document judges it, with its uncertainty). */
static void
c_separate(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *d;
	const cJSON *s;
	size_t i = 0;
	long pairs = 0;

	while ((d = gate_next(g, "cohort.distance/1", &i)) != NULL) {
		verdict_evidence(v, d->id);
		cJSON_ArrayForEach(s, json_get(d->doc, "separation")) {
			const cJSON *x = json_get(s, "exceeds");
			const char *a = str(s, "a") ? str(s, "a") : str(json_get(s, "a"), "family"),
			    *b = str(s, "b") ? str(s, "b") : str(json_get(s, "b"), "family");
			v->checked++;
			pairs++;
			if (!cJSON_IsBool(x))
				verdict_gap(v, "%.40s and %.40s: separation not judged", a ? a : "?",
				    b ? b : "?");
			else if (!cJSON_IsTrue(x))
				verdict_fail(v, "%.40s and %.40s: between does not exceed within", a ? a : "?",
				    b ? b : "?");
		}
	}
	if (pairs > 0 && !v->fail && !v->gap)
		verdict_note(v, "%ld pairs of families separate", pairs);
}

/* ---- C3: the held-out prediction ---- */

/* Per family, the mean of a feature over the entries (replications) of
 * the fingerprints of one side (heldout or training).  Families are named
 * in fam[0..*n) in the order met. */
struct table {
	const char *fam[MAX_FAMILIES];
	double sum[MAX_FAMILIES][MAX_PREDICTORS + 1];
	int count[MAX_FAMILIES][MAX_PREDICTORS + 1];
	int missing[MAX_FAMILIES];
	size_t n;
};

static size_t
family_slot(struct table *t, const char *f)
{
	size_t k = 0;

	while (k < t->n && strcmp(t->fam[k], f) != 0)
		k++;
	if (k == t->n && t->n < MAX_FAMILIES)
		t->fam[t->n++] = f;
	return k;
}

/* Fill column col of t with feature name from the fingerprints whose side
 * is heldout (or, with heldout 0, training). */
static void
collect(const struct gate_ctx *g, struct verdict *v, struct table *t, int heldout, int col,
    const char *name)
{
	const struct gate_in *fp;
	const cJSON *e;
	size_t i = 0;

	while ((fp = gate_next(g, "cohort.fingerprint/1", &i)) != NULL) {
		if (heldout ? !is_heldout(fp->doc) : !is_training(fp->doc))
			continue;
		verdict_evidence(v, fp->id);
		cJSON_ArrayForEach(e, json_get(fp->doc, "fingerprints")) {
			double x;
			const char *f = str(e, "family");
			if (f == NULL)
				continue;
			size_t k = family_slot(t, f);
			if (k >= MAX_FAMILIES)
				continue;
			if (feature(e, name, &x, NULL, NULL) != 0) {
				t->missing[k]++;
				continue;
			}
			t->sum[k][col] += x;
			t->count[k][col]++;
		}
	}
}

/* Leave-one-family-out least squares of y on an intercept and x[.][0..p):
 * the mean squared error of the n held-out predictions, or -1 when some
 * fit is singular. */
static double
loo_mse(const double (*x)[MAX_PREDICTORS], const double *y, size_t n, size_t p)
{
	size_t q = p + 1;
	double sse = 0;
	gsl_matrix *a = gsl_matrix_alloc(q, q);
	gsl_vector *b = gsl_vector_alloc(q), *beta = gsl_vector_alloc(q);

	if (a == NULL || b == NULL || beta == NULL)
		goto bad;
	for (size_t out = 0; out < n; out++) {
		gsl_matrix_set_zero(a);
		gsl_vector_set_zero(b);
		for (size_t i = 0; i < n; i++) {
			if (i == out)
				continue;
			for (size_t r = 0; r < q; r++) {
				double xr = r ? x[i][r - 1] : 1;
				for (size_t c = 0; c < q; c++)
					*gsl_matrix_ptr(a, r, c) += xr * (c ? x[i][c - 1] : 1);
				*gsl_vector_ptr(b, r) += xr * y[i];
			}
		}
		if (gsl_linalg_cholesky_decomp1(a) != 0 || gsl_linalg_cholesky_solve(a, b, beta) != 0)
			goto bad;
		double pred = gsl_vector_get(beta, 0);
		for (size_t c = 1; c < q; c++)
			pred += gsl_vector_get(beta, c) * x[out][c - 1];
		sse += (y[out] - pred) * (y[out] - pred);
	}
	gsl_matrix_free(a);
	gsl_vector_free(b);
	gsl_vector_free(beta);
	return sse / (double)n;
bad:
	gsl_matrix_free(a);
	gsl_vector_free(b);
	gsl_vector_free(beta);
	return -1;
}

/* The names of a prediction's array field, at most MAX_PREDICTORS. */
static size_t
names_of(const cJSON *pred, const char *key, const char **out)
{
	const cJSON *c;
	size_t n = 0;

	cJSON_ArrayForEach(c, json_get(pred, key))
		if (cJSON_IsString(c) && n < MAX_PREDICTORS)
			out[n++] = c->valuestring;
	return n;
}

/* The LOO error of the target on the heldout side against names on the
 * training side, over the families that have all of them; -1 (with a gap
 * noted) when too few do. */
static double
score(const struct gate_ctx *g, struct verdict *v, const char *id, const char *target,
    const char **names, size_t k, size_t *nfam)
{
	struct table *tr = calloc(1, sizeof *tr), *ho = calloc(1, sizeof *ho);
	double (*x)[MAX_PREDICTORS] = calloc(MAX_FAMILIES, sizeof *x);
	double *y = calloc(MAX_FAMILIES, sizeof *y), mse = -1;
	size_t n = 0;

	if (tr == NULL || ho == NULL || x == NULL || y == NULL)
		goto done;
	collect(g, v, ho, 1, 0, target);
	for (size_t c = 0; c < k; c++)
		collect(g, v, tr, 0, (int)c, names[c]);
	for (size_t f = 0; f < ho->n; f++) {
		size_t t = 0, c;
		while (t < tr->n && strcmp(tr->fam[t], ho->fam[f]) != 0)
			t++;
		if (t == tr->n || ho->count[f][0] == 0)
			continue;
		for (c = 0; c < k && tr->count[t][c] > 0; c++)
			x[n][c] = tr->sum[t][c] / tr->count[t][c];
		if (c < k)
			continue;
		y[n++] = ho->sum[f][0] / ho->count[f][0];
	}
	*nfam = n;
	if (n < k + 3)
		verdict_gap(v, "%.64s: %zu families with every feature, %zu needed", id, n, k + 3);
	else if ((mse = loo_mse((const double (*)[MAX_PREDICTORS])x, y, n, k)) < 0)
		verdict_gap(v, "%.64s: the predictors are collinear across families", id);
done:
	free(tr);
	free(ho);
	free(x);
	free(y);
	return mse;
}

static void
c_predicts(const struct gate_ctx *g, struct verdict *v)
{
	const cJSON *pred;
	char a[32], b[32];

	if (g->p == NULL) {
		verdict_gap(v, "no prereg: no registered prediction");
		return;
	}
	cJSON_ArrayForEach(pred, g->p->predictions) {
		const char *names[MAX_PREDICTORS], *base[MAX_PREDICTORS], *id = str(pred, "id");
		size_t k, kb, n1 = 0, n2 = 0;
		if (prereg_prediction_text(pred) != NULL ||
		    strcmp(str(pred, "kind"), "heldout_assistance") != 0)
			continue;
		k = names_of(pred, "predictors", names);
		kb = names_of(pred, "baseline", base);
		double mf = score(g, v, id, str(pred, "target"), names, k, &n1);
		double mb = score(g, v, id, str(pred, "target"), base, kb, &n2);
		if (mf < 0 || mb < 0)
			continue;
		v->checked++;
		gate_num(mf, a);
		gate_num(mb, b);
		if (mf < mb)
			verdict_note(v, "%.64s: held-out error %s against the baseline's %s (%zu families)",
			    id, a, b, n1);
		else
			verdict_fail(v, "%.64s: held-out error %s, not below the baseline's %s (%zu "
			    "families)", id, a, b, n1);
	}
	if (!v->checked && !v->gap)
		verdict_gap(v, "the prereg registers no heldout_assistance prediction");
}

int
gate_c(struct gate_ctx *g)
{
	struct verdict r = { 0 }, s = { 0 }, p = { 0 };

	c_replicate(g, &r);
	c_separate(g, &s);
	c_predicts(g, &p);
	return verdict_add(g, "C1", "Within-model fingerprints replicate across seeds, days, and "
	    "held-out openings.", &r) < 0 ||
	    verdict_add(g, "C2", "Between-family distances exceed within-family distances with "
	    "uncertainty.", &s) < 0 ||
	    verdict_add(g, "C3", "The feature set predicts held-out assistance response better than "
	    "unaided Elo alone.", &p) < 0 ? -1 : 0;
}

/* ---- gate D ---- */

/* Each heldout fingerprint entry of family: fn(entry) over all of them;
 * the number seen. */
static int
heldout_entries(const struct gate_ctx *g, struct verdict *v, const char *family,
    const cJSON **out, int cap)
{
	const struct gate_in *fp;
	const cJSON *e;
	size_t i = 0;
	int n = 0;

	while ((fp = gate_next(g, "cohort.fingerprint/1", &i)) != NULL) {
		if (!is_heldout(fp->doc))
			continue;
		verdict_evidence(v, fp->id);
		cJSON_ArrayForEach(e, json_get(fp->doc, "fingerprints"))
			if (str(e, "family") && strcmp(str(e, "family"), family) == 0 && n < cap)
				out[n++] = e;
	}
	return n;
}

/* An architectural prediction: every heldout replication of family
 * separates from every one of family2 on feature in the registered
 * direction (interval ends apart). */
static void
d_architectural(const struct gate_ctx *g, struct verdict *v, const cJSON *pred)
{
	const cJSON *x[64], *y[64];
	const char *id = str(pred, "id"), *f = str(pred, "feature");
	int gt = strcmp(str(pred, "relation"), ">") == 0;
	int nx = heldout_entries(g, v, str(pred, "family"), x, 64);
	int ny = heldout_entries(g, v, str(pred, "family2"), y, 64);

	if (nx == 0 || ny == 0) {
		verdict_gap(v, "%.64s: no heldout fingerprint of %.40s", id,
		    nx == 0 ? str(pred, "family") : str(pred, "family2"));
		return;
	}
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++) {
			double ea, la, ha, eb, lb, hb;
			if (feature(x[i], f, &ea, &la, &ha) || feature(y[j], f, &eb, &lb, &hb) ||
			    isnan(la) || isnan(ha) || isnan(lb) || isnan(hb)) {
				verdict_gap(v, "%.64s: %.40s has no interval", id, f);
				return;
			}
			if (gt ? !(la > hb) : !(ha < lb)) {
				verdict_fail(v, "%.64s: %.40s %.40s %s %.40s does not hold on the heldout split",
				    id, str(pred, "family"), f, gt ? ">" : "<", str(pred, "family2"));
				return;
			}
		}
	v->checked++;
	verdict_note(v, "%.64s holds on the heldout split", id);
}

/* An intervention: on every heldout replication of family, the target's
 * interval and the control's (the gain with the best candidate withheld)
 * lie above zero. */
static void
d_intervention(const struct gate_ctx *g, struct verdict *v, const cJSON *pred)
{
	const cJSON *x[64];
	const char *id = str(pred, "id");
	int n = heldout_entries(g, v, str(pred, "family"), x, 64);

	if (n == 0) {
		verdict_gap(v, "%.64s: no heldout fingerprint of %.40s", id, str(pred, "family"));
		return;
	}
	for (int i = 0; i < n; i++) {
		double e1, l1, h1, e2, l2, h2;
		if (feature(x[i], str(pred, "target"), &e1, &l1, &h1) ||
		    feature(x[i], str(pred, "control"), &e2, &l2, &h2) || isnan(l1) || isnan(l2)) {
			verdict_gap(v, "%.64s: the target or the control has no interval", id);
			return;
		}
		if (!(l1 > 0)) {
			verdict_fail(v, "%.64s: no held-out improvement", id);
			return;
		}
		if (!(l2 > 0)) {
			verdict_fail(v, "%.64s: the improvement is not there without the best candidate",
			    id);
			return;
		}
	}
	v->checked++;
	verdict_note(v, "%.64s improves held-out games, the best candidate withheld too", id);
}

int
gate_d(struct gate_ctx *g)
{
	struct verdict a = { 0 }, b = { 0 };
	const cJSON *pred, *list = g->p ? g->p->predictions : NULL;
	int i = 0;

	if (g->p == NULL) {
		verdict_gap(&a, "no prereg: no registered prediction");
		verdict_gap(&b, "no prereg: no registered prediction");
	}
	cJSON_ArrayForEach(pred, list) {
		if (prereg_prediction_text(pred) != NULL)
			verdict_note(&a, "prediction %d is text, not checked by machine", i);
		i++;
		if (prereg_prediction_text(pred) != NULL)
			continue;
		if (strcmp(str(pred, "kind"), "architectural") == 0)
			d_architectural(g, &a, pred);
		else if (strcmp(str(pred, "kind"), "intervention") == 0)
			d_intervention(g, &b, pred);
	}
	if (g->p != NULL && !a.checked && !a.gap && !a.fail)
		verdict_gap(&a, "the prereg registers no architectural prediction");
	if (g->p != NULL && !b.checked && !b.gap && !b.fail)
		verdict_gap(&b, "the prereg registers no intervention");
	return verdict_add(g, "D1", "Fingerprints predict which models benefit from shortlist "
	    "compression, branch-isolated comparison, or uncertainty-triggered widening.", &a) < 0 ||
	    verdict_add(g, "D2", "Interventions selected from the first split improve held-out games "
	    "without merely increasing oracle leakage.", &b) < 0 ? -1 : 0;
}
