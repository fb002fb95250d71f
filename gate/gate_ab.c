/* gate_ab.c: gate A (terminal descriptive replication: freezes,
 * reconciliations, fits) and gate B (paired causal candidate curves:
 * paired documents and the candidate manifest's verify report). */
#include <string.h>

#include "../json/json.h"
#include "../protocol/decision.h"
#include "internal.h"

static const char *
str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The first document of kind whose identity field (path: key, or key.sub)
 * names the freeze id. */
static const struct gate_in *
naming(const struct gate_ctx *g, const char *kind, const char *key, const char *sub,
    const char *id)
{
	const struct gate_in *x;
	size_t i = 0;

	while ((x = gate_next(g, kind, &i)) != NULL) {
		const cJSON *v = json_get(x->doc, key);
		const char *s = sub ? str(v, sub) : cJSON_IsString(v) ? v->valuestring : NULL;
		if (s != NULL && strcmp(s, id) == 0)
			return x;
	}
	return NULL;
}

/* A1: every condition of every freeze reached its stopping rule. */
static void
a_terminal(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *f;
	const cJSON *c;
	size_t i = 0;

	while ((f = gate_next(g, "cohort.freeze/1", &i)) != NULL) {
		const char *fam = str(json_get(f->doc, "spec"), "name");
		verdict_evidence(v, f->id);
		v->checked++;
		cJSON_ArrayForEach(c, json_get(f->doc, "conditions"))
			if (!str(c, "state") || strcmp(str(c, "state"), "terminal") != 0)
				verdict_fail(v, "%.60s: %.40s is %.20s", fam ? fam : f->label,
				    str(c, "condition") ? str(c, "condition") : "?",
				    str(c, "state") ? str(c, "state") : "without a state");
	}
}

static long
excluded_for(const cJSON *freeze, const char *reason)
{
	const cJSON *x;
	long n = 0;

	cJSON_ArrayForEach(x, json_get(freeze, "excluded"))
		n += str(x, "reason") && strcmp(str(x, "reason"), reason) == 0;
	return n;
}

/* A2 and A3: each freeze has a reconciliation naming it, which reports
 * its provider-error games (as many as the freeze left out) and
 * reconciles. */
static void
a_reconciled(const struct gate_ctx *g, struct verdict *errs, struct verdict *rec)
{
	const struct gate_in *f, *r;
	size_t i = 0;

	while ((f = gate_next(g, "cohort.freeze/1", &i)) != NULL) {
		long pe = excluded_for(f->doc, "provider_error");
		verdict_evidence(errs, f->id);
		verdict_evidence(rec, f->id);
		const struct gate_in *x;
		size_t j = 0;
		r = NULL;
		while (r == NULL && (x = gate_next(g, "cohort.reconcile/1", &j)) != NULL)
			if (str(json_get(json_get(x->doc, "inputs"), "freeze"), "id") &&
			    strcmp(str(json_get(json_get(x->doc, "inputs"), "freeze"), "id"), f->id) == 0)
				r = x;
		if (r == NULL) {
			verdict_gap(errs, "%.80s: no reconciliation names it", f->label);
			verdict_gap(rec, "%.80s: no reconciliation names it", f->label);
			continue;
		}
		verdict_evidence(errs, r->id);
		verdict_evidence(rec, r->id);
		errs->checked++;
		rec->checked++;
		double reported = num(json_get(r->doc, "totals"), "provider_error_games");
		if (reported != (double)pe)
			verdict_fail(errs, "%.80s excludes %ld provider-error games, %.80s reports %.0f",
			    f->label, pe, r->label, reported);
		else
			verdict_note(errs, "%.80s: %ld provider-error games excluded and reported", f->label,
			    pe);
		if (!cJSON_IsTrue(json_get(r->doc, "reconciled")))
			verdict_fail(rec, "%.80s does not reconcile (%.0f findings)", r->label,
			    (double)cJSON_GetArraySize(json_get(r->doc, "findings")));
		else
			verdict_note(rec, "%.80s reconciles %.80s", r->label, f->label);
	}
}

/* A4: in each freeze's fit, a condition all won or all lost has no point
 * rating, only a one-sided bound; every other condition with games has a
 * rating. */
static void
a_bounded(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *f, *fit;
	const cJSON *c;
	size_t i = 0;

	while ((f = gate_next(g, "cohort.freeze/1", &i)) != NULL) {
		verdict_evidence(v, f->id);
		if ((fit = naming(g, "cohort.fit/1", "input", NULL, f->id)) == NULL) {
			verdict_gap(v, "%.80s: no fit names it", f->label);
			continue;
		}
		verdict_evidence(v, fit->id);
		v->checked++;
		long sat = 0;
		cJSON_ArrayForEach(c, json_get(fit->doc, "conditions")) {
			double games = num(c, "games"), w = num(c, "w"), l = num(c, "l");
			const cJSON *rating = json_get(c, "rating"), *bound = json_get(c, "bound");
			const char *cond = str(c, "condition") ? str(c, "condition") : "?";
			if (games <= 0)
				continue;
			if (w == games || l == games) {
				sat++;
				if (!cJSON_IsNull(rating) || !cJSON_IsObject(bound))
					verdict_fail(v, "%.80s: %.40s is saturated but has %s", fit->label, cond,
					    cJSON_IsNull(rating) ? "no one-sided bound" : "a point rating");
			} else if (!cJSON_IsNumber(rating)) {
				verdict_fail(v, "%.80s: %.40s has games of both results and no rating",
				    fit->label, cond);
			}
		}
		verdict_note(v, "%.80s: %ld saturated condition%s", fit->label, sat, sat == 1 ? "" : "s");
	}
}

int
gate_a(struct gate_ctx *g)
{
	struct verdict t = { 0 }, p = { 0 }, r = { 0 }, b = { 0 };

	a_terminal(g, &t);
	a_reconciled(g, &p, &r);
	a_bounded(g, &b);
	return verdict_add(g, "A1", "Every variant reaches its registered stopping condition.", &t) < 0 ||
	    verdict_add(g, "A2", "Provider-error games are excluded and separately reported.", &p) < 0 ||
	    verdict_add(g, "A3", "Raw W-D-L, anchors, tokens, and timing reconcile to a frozen cohort "
	    "manifest.", &r) < 0 ||
	    verdict_add(g, "A4", "Saturated blocks receive one-sided bounds, never invented point "
	    "estimates.", &b) < 0 ? -1 : 0;
}

/* ---- gate B ---- */

/* B1: the paired documents name one candidate manifest, and a verify
 * report of that manifest holds. */
static void
b_cached(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *p, *r;
	const char *cand = NULL;
	size_t i = 0;

	while ((p = gate_next(g, "cohort.paired/1", &i)) != NULL) {
		const char *c = str(p->doc, "candidates");
		verdict_evidence(v, p->id);
		if (c != NULL && cand == NULL)
			cand = c;
		else if (c == NULL || strcmp(c, cand) != 0)
			verdict_fail(v, "%.80s was paired on another candidate manifest", p->label);
	}
	if (cand == NULL)
		return;
	i = 0;
	while ((r = gate_next(g, "cohort.verify/1", &i)) != NULL) {
		const cJSON *s;
		cJSON_ArrayForEach(s, json_get(r->doc, "subject"))
			if (str(s, "id") && strcmp(str(s, "id"), cand) == 0 && str(s, "kind") &&
			    strcmp(str(s, "kind"), "cohort.candidates/1") == 0) {
				verdict_evidence(v, r->id);
				v->checked++;
				if (!cJSON_IsTrue(json_get(r->doc, "ok")))
					verdict_fail(v, "%.80s: the candidate manifest does not verify", r->label);
				else
					verdict_note(v, "%.80s verified by %.80s (top-k are prefixes of one "
					    "cached list)", cand, r->label);
			}
	}
	if (!v->checked)
		verdict_gap(v, "no verify report of the candidate manifest %.80s", cand);
}

/* A cell's place: family and replication; its content: condition, budget
 * and decisions. */
static int
same_cells(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;
	int n = 0, m = 0;

	cJSON_ArrayForEach(x, a) {
		int found = 0;
		n++;
		cJSON_ArrayForEach(y, b)
			found |= strcmp(str(x, "condition"), str(y, "condition")) == 0 &&
			    cJSON_Compare(json_get(x, "budget"), json_get(y, "budget"), 1) &&
			    num(x, "decisions") == num(y, "decisions");
		if (!found)
			return 0;
	}
	cJSON_ArrayForEach(y, b)
		m++;
	return n == m;
}

/* The cells of one family and replication, as a new array of borrowed
 * references. */
static cJSON *
cells_of(const struct gate_ctx *g, const char *fam, const char *rep)
{
	const struct gate_in *p;
	const cJSON *c;
	cJSON *arr = cJSON_CreateArray();
	size_t i = 0;

	while (arr != NULL && (p = gate_next(g, "cohort.paired/1", &i)) != NULL)
		cJSON_ArrayForEach(c, json_get(p->doc, "cells"))
			if (str(c, "family") && str(c, "replication") && strcmp(str(c, "family"), fam) == 0 &&
			    strcmp(str(c, "replication"), rep) == 0)
				cJSON_AddItemReferenceToArray(arr, (cJSON *)c);
	return arr;
}

/* B2: every family and replication has the same cells with the same
 * numbers of decisions. */
#define B_MAX_UNITS 256

static void
b_same_cells(const struct gate_ctx *g, struct verdict *v)
{
	const char *fam[B_MAX_UNITS], *rep[B_MAX_UNITS];
	const struct gate_in *p;
	const cJSON *c;
	size_t i = 0, n = 0, families = 0;

	while ((p = gate_next(g, "cohort.paired/1", &i)) != NULL) {
		verdict_evidence(v, p->id);
		cJSON_ArrayForEach(c, json_get(p->doc, "cells")) {
			const char *f = str(c, "family"), *r = str(c, "replication");
			size_t k = 0, newfam = 1;
			if (f == NULL || r == NULL || !str(c, "condition"))
				continue;
			for (; k < n && !(strcmp(fam[k], f) == 0 && strcmp(rep[k], r) == 0); k++)
				newfam &= strcmp(fam[k], f) != 0;
			for (size_t j = k; j < n; j++)
				newfam &= strcmp(fam[j], f) != 0;
			if (k < n || n == B_MAX_UNITS)
				continue;
			families += newfam;
			fam[n] = f;
			rep[n++] = r;
		}
	}
	if (families < 2) {
		if (n > 0)
			verdict_gap(v, "one family only: nothing to pair it with");
		return;
	}
	v->checked++;
	cJSON *first = cells_of(g, fam[0], rep[0]);
	for (size_t k = 1; k < n && first != NULL; k++) {
		cJSON *mine = cells_of(g, fam[k], rep[k]);
		if (mine != NULL && !same_cells(first, mine))
			verdict_fail(v, "%.40s %.40s and %.40s %.40s have different paired cells", fam[0],
			    rep[0], fam[k], rep[k]);
		cJSON_Delete(mine);
	}
	cJSON_Delete(first);
	if (!v->fail)
		verdict_note(v, "%zu families, %zu family replications: the same cells and decisions",
		    families, n);
}

/* An effect statistic is estimated: a number with its interval. */
static int
estimated_stat(const cJSON *x)
{
	return cJSON_IsNumber(json_get(x, "estimate")) &&
	    cJSON_GetArraySize(json_get(x, "interval")) == 2;
}

/* A factor of a cell's effects (cohort-paired(1)) is estimated for both
 * recall and regret; else why not (the first reason found). */
static int
estimated(const cJSON *cell, const char *factor, const char **why)
{
	const cJSON *f = json_get(json_get(cell, "effects"), factor);
	const char *stats[2] = { "recall", "regret" };

	if (!cJSON_IsObject(f)) {
		*why = "no effects in the paired document";
		return 0;
	}
	for (int s = 0; s < 2; s++)
		if (!estimated_stat(json_get(f, stats[s]))) {
			const char *r = str(json_get(f, stats[s]), "reason");
			*why = r ? r : "no interval";
			return 0;
		}
	return 1;
}

/* B3: in every cell, the colour, phase and stratum effects on recall and
 * regret are estimated with their intervals; in every top<k> cell (k >=
 * 2, where the order of the shown moves varies), the order-change
 * probability and the order effect too.  "Estimated" is the criterion:
 * an effect of any size passes; one the data cannot give is a gap. */
enum { B_COLOUR, B_PHASE, B_STRATUM, B_ORDER, B_NF };

static void
b_effects(const struct gate_ctx *g, struct verdict *v)
{
	static const char *const fname[B_NF] = { "colour", "phase", "stratum", "order" };
	const struct gate_in *p;
	const cJSON *c;
	const char *why[B_NF] = { 0 };
	size_t i = 0;
	long cells = 0, need_order = 0, got[B_NF] = { 0 };

	while ((p = gate_next(g, "cohort.paired/1", &i)) != NULL) {
		verdict_evidence(v, p->id);
		cJSON_ArrayForEach(c, json_get(p->doc, "cells")) {
			struct decision_cond dc;
			const char *w = NULL;
			cells++;
			for (int f = B_COLOUR; f < B_ORDER; f++) {
				if (estimated(c, fname[f], &w))
					got[f]++;
				else if (why[f] == NULL)
					why[f] = w;
			}
			if (!str(c, "condition") || decision_cond_parse(str(c, "condition"), &dc) != 0 ||
			    dc.kind != DK_TOP || dc.k < 2)
				continue;
			need_order++;
			if (!cJSON_IsNumber(json_get(json_get(c, "order"), "change_probability")))
				w = "no order-change probability";
			else if (estimated(c, "order", &w))
				got[B_ORDER]++, w = NULL;
			if (w != NULL && why[B_ORDER] == NULL)
				why[B_ORDER] = w;
		}
	}
	if (cells == 0)
		return;
	v->checked++;
	for (int f = B_COLOUR; f < B_NF; f++) {
		long need = f == B_ORDER ? need_order : cells;
		if (got[f] < need)
			verdict_gap(v, "%s effect estimated in %ld of %ld %s (%.80s)", fname[f], got[f],
			    need, f == B_ORDER ? "top-k cells" : "cells", why[f]);
		else
			verdict_note(v, "%s effect estimated in %ld %s", fname[f], need,
			    f == B_ORDER ? "top-k cells" : "cells");
	}
}

/* B4: every cell that shows or proposes moves reports coverage of the best
 * move and the value loss against the best shown. */
static void
b_controls(const struct gate_ctx *g, struct verdict *v)
{
	const struct gate_in *p;
	const cJSON *c;
	size_t i = 0;
	long cells = 0;

	while ((p = gate_next(g, "cohort.paired/1", &i)) != NULL) {
		verdict_evidence(v, p->id);
		cJSON_ArrayForEach(c, json_get(p->doc, "cells")) {
			const char *cond = str(c, "condition");
			if (cond == NULL || strcmp(cond, "none") == 0)
				continue;
			cells++;
			if ((cJSON_IsNull(json_get(c, "coverage")) || !json_get(c, "coverage") ||
			    cJSON_IsNull(json_get(c, "value_loss")) || !json_get(c, "value_loss")) &&
			    v->fail < 4)
				verdict_fail(v, "%.40s %.40s %.40s: coverage or value loss not reported",
				    str(c, "family") ? str(c, "family") : "?",
				    str(c, "replication") ? str(c, "replication") : "?", cond);
		}
	}
	if (cells > 0)
		v->checked++;
	if (cells > 0 && !v->fail)
		verdict_note(v, "%ld cells report coverage and value loss", cells);
}

int
gate_b(struct gate_ctx *g)
{
	struct verdict c = { 0 }, s = { 0 }, f = { 0 }, k = { 0 };

	b_cached(g, &c);
	b_same_cells(g, &s);
	b_effects(g, &f);
	b_controls(g, &k);
	return verdict_add(g, "B1", "Candidate sets are cached and nested.", &c) < 0 ||
	    verdict_add(g, "B2", "Every family completes the same paired position cells.", &s) < 0 ||
	    verdict_add(g, "B3", "Order, color, phase, and position-stratum effects are estimated.",
	    &f) < 0 ||
	    verdict_add(g, "B4", "Candidate value gaps and best-move coverage are controlled.", &k) < 0
	    ? -1 : 0;
}
