/* features.c: one fingerprint's feature values from (resampled) sums.
 * cohort-fingerprint(1) defines each feature; this file is that list. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fit/davidson.h"
#include "../protocol/decision.h"
#include "internal.h"

const struct fp_def fp_defs[FB_N] = {
	[FB_UNAIDED] = { "unaided", FX_ONE, 0.01 },
	[FB_R_K] = { "r_k", FX_NONZERO, 0.01 },
	[FB_DELTA_R] = { "delta_r", FX_NONZERO, 0.01 },
	[FB_K_STAR] = { "k_star", FX_ONE, 1 },
	[FB_P_K_STAR] = { "p_k_star", FX_ALL, 1e-6 },
	[FB_OVERLOAD] = { "overload_2_10", FX_ONE, 0.01 },
	[FB_SLOPE] = { "slope", FX_FROM1, 1e-4 },
	[FB_CURVATURE] = { "curvature", FX_INNER, 1e-4 },
	[FB_REVERSALS] = { "reversals", FX_ONE, 1 },
	[FB_AUC] = { "auc", FX_ONE, 1e-6 },
	[FB_RECALL] = { "recall_unaided", FX_ONE, 1e-6 },
	[FB_COVERAGE] = { "coverage", FX_ONE, 1e-6 },
	[FB_ORACLE] = { "oracle_regret", FX_NONZERO, 0.01 },
	[FB_RANK] = { "chosen_rank", FX_ONE, 1e-6 },
	[FB_VALUE_LOSS] = { "value_loss", FX_ONE, 0.01 },
	[FB_OMIT] = { "omit_best", FX_ONE, 0.01 },
	[FB_ENGINE] = { "engine_selects", FX_ONE, 0.01 },
	[FB_CALIBRATION] = { "calibration", FX_ONE, 1e-6 },
	[FB_ORDER] = { "order_change", FX_ONE, 1e-6 },
	[FB_REGRET_VAR] = { "regret_var_seeds", FX_ONE, 0.01 },
	[FB_ILLEGAL] = { "illegal_rate", FX_ONE, 1e-6 },
	[FB_TOOL] = { "tool_failure_rate", FX_ONE, 1e-6 },
	[FB_BLUNDER] = { "blunder_hazard", FX_PHASE, 1e-6 },
	[FB_HISTORY] = { "history_vs_fresh", FX_ONE, 0.01 },
	[FB_FAILURE] = { "failure_labels", FX_LABEL, 1e-6 },
	[FB_TOKENS] = { "tokens_per_decision", FX_ONE, 0.01 },
	[FB_LATENCY] = { "latency_per_decision", FX_ONE, 0.01 },
	[FB_TOKENS_GAME] = { "tokens_per_game", FX_ONE, 0.01 },
	[FB_WALL_GAME] = { "wall_per_game", FX_ONE, 0.001 },
	[FB_HOURS_GAME] = { "worker_hours_per_game", FX_ONE, 1e-6 },
	[FB_GAIN] = { "gain_per_1k_tokens", FX_ONE, 1e-4 },
	[FB_WXB] = { "width_x_budget", FX_ONE, 0.01 },
	[FB_RETRIES] = { "retries_per_legal", FX_ONE, 1e-6 },
	[FB_PARETO] = { "pareto", FX_ALL, 1 },
};

/* The decision sums of one fingerprint, pooled by what the features ask. */
enum { P_ALL, P_NONE, P_TOP, P_OMIT, P_PROPOSE_, P_ENG, NPOOL };

struct pools {
	struct paired_sums p[NPOOL];
	struct paired_sums *topk; /* per width */
	struct paired_sums *b_all, *b_top, *b_none; /* per registered budget */
};

/* What a fingerprint's games give: R(k) in Elo per width, saturation. */
struct strength {
	double *R, *bound; /* NAN where not finite */
	int *sat;          /* FIT_* per width */
	double *games, *tok; /* per width; games, tokens (all games: [nwidths]) */
	double wall, hours;
	const char *fail;  /* the fit's message when it could not run */
};

/* The first reason given is kept. */
static void
why_set(struct fp_why *w, const char *text)
{
	if (w != NULL && w->reason[0] == '\0')
		snprintf(w->reason, sizeof w->reason, "%s", text);
}

static long
budget_index(const struct prereg *pr, const char *b)
{
	for (size_t i = 0; b != NULL && i < pr->nbudgets; i++)
		if (strcmp(pr->budgets[i], b) == 0)
			return (long)i;
	return -1;
}

static long
width_index(const struct fp_run *r, int k)
{
	for (size_t i = 0; i < r->nwidths; i++)
		if (r->widths[i] == k)
			return (long)i;
	return -1;
}

/* Add one block's sums of the fingerprint's cells into their pools. */
static void
pool_block(const struct fp_run *r, const struct fp_fam *f, long block, struct pools *P)
{
	const struct paired_data *d = &r->pd[f->in];

	for (size_t c = 0; c < f->ncells; c++) {
		const struct paired_cell *cell = &d->cells[f->cells[c]];
		const struct paired_sums *t = &cell->by_open[block];
		long b = budget_index(r->pr, cell->budget), w;
		paired_sums_add(&P->p[P_ALL], t);
		if (b >= 0)
			paired_sums_add(&P->b_all[b], t);
		switch (cell->dc.kind) {
		case DK_NONE:
			paired_sums_add(&P->p[P_NONE], t);
			if (b >= 0)
				paired_sums_add(&P->b_none[b], t);
			break;
		case DK_TOP:
			paired_sums_add(&P->p[P_TOP], t);
			if ((w = width_index(r, cell->dc.k)) >= 0)
				paired_sums_add(&P->topk[w], t);
			if (b >= 0)
				paired_sums_add(&P->b_top[b], t);
			break;
		case DK_OMIT_BEST: paired_sums_add(&P->p[P_OMIT], t); break;
		case DK_PROPOSE: paired_sums_add(&P->p[P_PROPOSE_], t); break;
		case DK_ENGINE_SELECTS: paired_sums_add(&P->p[P_ENG], t); break;
		}
	}
}

/* The sums the features read, and only those: a unit's pools packed
 * into a short vector, so that a replicate adds a few dozen numbers a
 * unit rather than every field of every cell. */
#define F(x) offsetof(struct paired_sums, x) / sizeof(double)
static const size_t f_all[] = { F(n), F(status[0]), F(status[1]), F(status[2]), F(failures[0]),
	F(failures[1]), F(failures[2]), F(failures[3]), F(failures[4]), F(failures[5]), F(tok),
	F(lat), F(retries), F(ctx_n[0]), F(ctx_n[1]), F(ctx_reg[0]), F(ctx_reg[1]),
	F(blunder_n[0]), F(blunder_n[1]), F(blunder_n[2]), F(blunder_k[0]), F(blunder_k[1]),
	F(blunder_k[2]), F(pairs), F(differ), F(var), F(nvar) };
static const size_t f_none[] = { F(n), F(recall), F(reg_nomate), F(nomate) };
static const size_t f_top[] = { F(nrank), F(rank), F(nvl), F(vl), F(reg_nomate), F(nomate) };
static const size_t f_reg[] = { F(reg_nomate), F(nomate) };
static const size_t f_prop[] = { F(ncov), F(cov) };
static const size_t f_budget[] = { F(n), F(ctok), F(reg_nomate), F(nomate) };
#undef F
#define N(a) (sizeof a / sizeof a[0])

/* Call fn(k, category sums, field) for each packed number k. */
static size_t
packing(const struct fp_run *r, struct pools *P, void (*fn)(double *, double *, void *), double *v,
    void *arg)
{
	size_t k = 0, nw = r->nwidths, nb = r->pr->nbudgets;
	const struct {
		struct paired_sums *s;
		const size_t *f;
		size_t n;
	} cat[] = { { &P->p[P_ALL], f_all, N(f_all) }, { &P->p[P_NONE], f_none, N(f_none) },
		{ &P->p[P_TOP], f_top, N(f_top) }, { &P->p[P_OMIT], f_reg, N(f_reg) },
		{ &P->p[P_ENG], f_reg, N(f_reg) }, { &P->p[P_PROPOSE_], f_prop, N(f_prop) } };

	for (size_t c = 0; c < N(cat); c++)
		for (size_t i = 0; i < cat[c].n; i++, k++)
			if (fn)
				fn(&((double *)cat[c].s)[cat[c].f[i]], v ? &v[k] : NULL, arg);
	for (size_t w = 0; w < nw; w++)
		for (size_t i = 0; i < N(f_reg); i++, k++)
			if (fn)
				fn(&((double *)&P->topk[w])[f_reg[i]], v ? &v[k] : NULL, arg);
	for (size_t b = 0; b < nb; b++) {
		for (size_t i = 0; i < N(f_budget); i++, k++)
			if (fn)
				fn(&((double *)&P->b_all[b])[f_budget[i]], v ? &v[k] : NULL, arg);
		for (size_t i = 0; i < N(f_reg); i++, k += 2)
			if (fn) {
				fn(&((double *)&P->b_top[b])[f_reg[i]], v ? &v[k] : NULL, arg);
				fn(&((double *)&P->b_none[b])[f_reg[i]], v ? &v[k + 1] : NULL, arg);
			}
	}
	return k;
}
#undef N

static void
to_vec(double *field, double *v, void *arg)
{
	*v = *field;
}

static void
from_vec(double *field, double *v, void *arg)
{
	*field = *v;
}

/* The pools of the drawn units: their packed sums, m[u] times each. */
static void
pool_sums(const struct fp_run *r, const struct fp_fam *f, const uint32_t *m, struct pools *P,
    double *v)
{
	size_t k = f->npack;

	memset(v, 0, k * sizeof *v);
	for (size_t u = 0; u < f->nunits; u++)
		if (m[u] != 0 && f->dblock[u] >= 0) {
			const double *x = &f->pack[u * k];
			double c = (double)m[u];
			for (size_t i = 0; i < k; i++)
				v[i] += c * x[i];
		}
	packing(r, P, from_vec, v, NULL);
}

static int
pools_alloc(const struct fp_run *r, struct pools *P, struct paired_sums **ps)
{
	size_t nw = r->nwidths, nb = r->pr->nbudgets;

	memset(P, 0, sizeof *P);
	if ((*ps = calloc(nw + 3 * nb + 1, sizeof **ps)) == NULL)
		return -1;
	P->topk = *ps;
	P->b_all = *ps + nw;
	P->b_top = P->b_all + nb;
	P->b_none = P->b_top + nb;
	return 0;
}

int
fp_pack_units(const struct fp_run *r, struct fp_fam *f, struct err *e)
{
	struct pools P;
	struct paired_sums *ps;
	size_t k;

	if (pools_alloc(r, &P, &ps) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	k = f->npack = packing(r, &P, NULL, NULL, NULL);
	if ((f->pack = calloc(f->nunits * k + 1, sizeof *f->pack)) == NULL) {
		free(ps);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t u = 0; u < f->nunits; u++) {
		if (f->dblock[u] < 0)
			continue;
		struct paired_sums *keep = ps;
		memset(P.p, 0, sizeof P.p);
		memset(ps, 0, (r->nwidths + 3 * r->pr->nbudgets + 1) * sizeof *ps);
		P.topk = keep;
		pool_block(r, f, f->dblock[u], &P);
		packing(r, &P, to_vec, &f->pack[u * k], NULL);
	}
	free(ps);
	return 0;
}

/* The joint Davidson fit of the games drawn; R per width in Elo. */
static int
fit_games(const struct fp_run *r, const struct fp_fam *f, const uint32_t *m, int estimate,
    struct strength *S, struct err *e)
{
	size_t nw = r->nwidths, nb = 0;
	struct fit_block_in *b = calloc(f->nkeys + 1, sizeof *b);
	double *gk = calloc(f->nkeys * 3 + 1, sizeof *gk);
	struct fit_model *mod = NULL;
	struct fit_result res = FIT_RESULT_INIT;
	struct fit_spec spec = { f->penalty * FIT_LOG_PER_ELO, 0, FP_LEVEL, estimate, 0 };
	struct err fe = ERR_INIT;
	int rc = -1;

	if (b == NULL || gk == NULL)
		goto nomem;
	for (size_t u = 0; u < f->nunits; u++)
		for (size_t i = 0; m[u] && i < f->nkeys * 3; i++)
			gk[i] += m[u] * f->gk[u * f->nkeys * 3 + i];
	for (size_t k = 0; k < f->nkeys; k++)
		if (gk[3 * k] + gk[3 * k + 1] + gk[3 * k + 2] > 0)
			b[nb++] = (struct fit_block_in){ (size_t)f->kwidth[k], f->kanchor[k], f->kblack[k],
				(long)gk[3 * k], (long)gk[3 * k + 1], (long)gk[3 * k + 2] };
	for (size_t w = 0; w < nw; w++) {
		S->R[w] = S->bound[w] = NAN;
		S->sat[w] = FIT_EMPTY;
	}
	if (nb == 0) {
		S->fail = "no games";
		rc = 0;
		goto done;
	}
	if ((mod = fit_model_new(nw, b, nb, e)) == NULL)
		goto done;
	for (size_t w = 0; w < nw; w++)
		S->sat[w] = mod->sat[w];
	if (fit_solve_all(mod, &spec, &res, &fe) < 0) {
		if (fe.code == ERR_NOMEM)
			goto nomem;
		/* an unidentified replicate has no strength figures; the
		 * estimate's reason says why */
		S->fail = estimate ? "the joint fit cannot run on these games" : "the fit";
		rc = 0;
		goto done;
	}
	for (size_t w = 0; w < nw; w++) {
		if (isfinite(res.theta[w]))
			S->R[w] = res.theta[w] / FIT_LOG_PER_ELO;
		if (estimate && isfinite(res.bound[w]))
			S->bound[w] = res.bound[w] / FIT_LOG_PER_ELO;
	}
	rc = 0;
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	fit_result_release(&res);
	fit_model_free(mod);
	free(b);
	free(gk);
	return rc;
}

static void
game_sums(const struct fp_run *r, const struct fp_fam *f, const uint32_t *m, struct strength *S)
{
	size_t nw = r->nwidths;

	for (size_t w = 0; w <= nw; w++)
		S->games[w] = S->tok[w] = 0;
	S->wall = S->hours = 0;
	for (size_t u = 0; u < f->nunits; u++) {
		const double *g = &f->gw[u * (nw + 1) * 4];
		if (m[u] == 0)
			continue;
		for (size_t w = 0; w <= nw; w++) {
			S->games[w] += m[u] * g[4 * w];
			S->tok[w] += m[u] * g[4 * w + 1];
		}
		S->wall += m[u] * g[4 * nw + 2];
		S->hours += m[u] * g[4 * nw + 3];
	}
}

static double
ratio(double a, double b)
{
	return paired_ratio(a, b);
}

/* Mean regret over the decisions whose values are not mate scores: one
 * missed mate would move a mean by hundreds of centipawns (the blunder
 * hazard counts it). */
static double
regret(const struct paired_sums *s)
{
	return ratio(s->reg_nomate, s->nomate);
}

/* The reason a width's R is not a number. */
static void
width_why(const struct strength *S, size_t w, int k, struct fp_why *y)
{
	if (y == NULL || y->reason[0] != '\0')
		return;
	if (S->fail != NULL && S->sat[w] != FIT_EMPTY)
		snprintf(y->reason, sizeof y->reason, "%s", S->fail);
	else if (S->sat[w] == FIT_EMPTY)
		snprintf(y->reason, sizeof y->reason, "no games at width %d", k);
	else if (S->sat[w] == FIT_SAT_UP)
		snprintf(y->reason, sizeof y->reason, "every game at width %d was won: R(%d) has only "
		    "a lower bound", k, k);
	else
		snprintf(y->reason, sizeof y->reason, "every game at width %d was lost: R(%d) has only "
		    "an upper bound", k, k);
}

static void
bound_of(const struct strength *S, size_t w, double shift, struct fp_why *y)
{
	if (y != NULL && isfinite(S->bound[w]) && isfinite(shift) &&
	    (S->sat[w] == FIT_SAT_UP || S->sat[w] == FIT_SAT_DOWN)) {
		y->bound = S->sat[w] == FIT_SAT_UP ? 1 : 2;
		y->value = S->bound[w] - shift;
	}
}

/* The index of the largest R, or -1 when one is not a number. */
static long
argmax(const struct strength *S, size_t nw)
{
	long best = -1;

	for (size_t w = 0; w < nw; w++) {
		if (isnan(S->R[w]))
			return -1;
		if (best < 0 || S->R[w] > S->R[best])
			best = (long)w;
	}
	return best;
}

static double
slope(const struct fp_run *r, const struct strength *S, size_t i)
{
	return (S->R[i] - S->R[i - 1]) / (double)(r->widths[i] - r->widths[i - 1]);
}

/* Normalized AUC: the lift curve over its largest absolute lift,
 * integrated by trapezoids over the widths, over the width range. */
static double
auc(const struct fp_run *r, const struct strength *S, long z)
{
	size_t nw = r->nwidths;
	double mx = 0, a = 0;

	if (z < 0 || nw < 2)
		return NAN;
	for (size_t i = 0; i < nw; i++)
		mx = fmax(mx, fabs(S->R[i] - S->R[z]));
	if (!(mx > 0))
		return NAN;
	for (size_t i = 1; i < nw; i++)
		a += (double)(r->widths[i] - r->widths[i - 1]) *
		    ((S->R[i] - S->R[z]) + (S->R[i - 1] - S->R[z])) / (2 * mx);
	return a / (double)(r->widths[nw - 1] - r->widths[0]);
}

static double
reversals(const struct fp_run *r, const struct strength *S)
{
	double n = 0;

	for (size_t i = 2; i < r->nwidths; i++)
		n += (S->R[i] - S->R[i - 1]) * (S->R[i - 1] - S->R[i - 2]) < 0;
	return n;
}

/* Width i is on the strength-efficiency front: no other width is as
 * strong for as few tokens a game, and better in one. */
static double
pareto(const struct fp_run *r, const struct strength *S, size_t i)
{
	double ti = ratio(S->tok[i], S->games[i]);

	for (size_t j = 0; j < r->nwidths; j++) {
		double tj = ratio(S->tok[j], S->games[j]);
		if (isnan(tj) || isnan(ti))
			return NAN;
		if (j != i && S->R[j] >= S->R[i] && tj <= ti && (S->R[j] > S->R[i] || tj < ti))
			return 0;
	}
	return 1;
}

static double
strength_value(const struct fp_run *r, const struct strength *S, const struct fp_feat *ft,
    struct fp_why *y)
{
	long z = width_index(r, 0), i = ft->idx, w2, w10, am;
	int k = ft->idx >= 0 ? r->widths[ft->idx] : 0;
	double v;

	switch (ft->base) {
	case FB_UNAIDED:
		if (z < 0)
			return why_set(y, "width 0 is not registered"), NAN;
		width_why(S, (size_t)z, 0, y);
		bound_of(S, (size_t)z, 0, y);
		return S->R[z];
	case FB_R_K:
		width_why(S, (size_t)i, k, y);
		bound_of(S, (size_t)i, 0, y);
		return S->R[i];
	case FB_DELTA_R:
		if (z < 0)
			return why_set(y, "width 0 is not registered"), NAN;
		if (isnan(S->R[z]))
			width_why(S, (size_t)z, 0, y);
		width_why(S, (size_t)i, k, y);
		bound_of(S, (size_t)i, S->R[z], y);
		return S->R[i] - S->R[z];
	case FB_K_STAR:
	case FB_P_K_STAR:
		am = argmax(S, r->nwidths);
		for (size_t w = 0; am < 0 && w < r->nwidths; w++)
			if (isnan(S->R[w]))
				width_why(S, w, r->widths[w], y);
		if (am < 0)
			return NAN;
		return ft->base == FB_K_STAR ? r->widths[am] : (double)(am == i);
	case FB_OVERLOAD:
		w2 = width_index(r, 2), w10 = width_index(r, 10);
		if (w2 < 0 || w10 < 0)
			return why_set(y, "widths 2 and 10 are not both registered"), NAN;
		width_why(S, (size_t)w2, 2, y);
		width_why(S, (size_t)w10, 10, y);
		return S->R[w2] - S->R[w10];
	case FB_SLOPE:
		width_why(S, (size_t)i - 1, r->widths[i - 1], y);
		width_why(S, (size_t)i, k, y);
		return slope(r, S, (size_t)i);
	case FB_CURVATURE:
		for (long w = i - 1; w <= i + 1; w++)
			width_why(S, (size_t)w, r->widths[w], y);
		return 2 * (slope(r, S, (size_t)i + 1) - slope(r, S, (size_t)i)) /
		    (double)(r->widths[i + 1] - r->widths[i - 1]);
	default:
		break;
	}
	for (size_t w = 0; w < r->nwidths; w++)
		if (isnan(S->R[w]))
			width_why(S, w, r->widths[w], y);
	switch (ft->base) {
	case FB_REVERSALS: return argmax(S, r->nwidths) < 0 ? NAN : reversals(r, S);
	case FB_AUC:
		v = argmax(S, r->nwidths) < 0 ? NAN : auc(r, S, z);
		if (isnan(v) && argmax(S, r->nwidths) >= 0)
			why_set(y, "no lift at any width, or width 0 not registered");
		return v;
	default:
		v = argmax(S, r->nwidths) < 0 ? NAN : pareto(r, S, (size_t)i);
		if (isnan(v) && argmax(S, r->nwidths) >= 0)
			why_set(y, "a width without games' tokens");
		return v;
	}
}

/* The first and last registered budgets with decisions, or -1. */
static void
budget_ends(const struct fp_run *r, const struct pools *P, long *lo, long *hi)
{
	*lo = *hi = -1;
	for (size_t b = 0; b < r->pr->nbudgets; b++)
		if (P->b_all[b].n > 0) {
			if (*lo < 0)
				*lo = (long)b;
			*hi = (long)b;
		}
}

static double
budget_value(const struct fp_run *r, const struct pools *P, const struct fp_feat *ft,
    struct fp_why *y)
{
	long lo, hi;

	budget_ends(r, P, &lo, &hi);
	if (lo < 0 || lo == hi)
		return why_set(y, "decisions under fewer than two registered budgets"), NAN;
	if (ft->base == FB_GAIN) {
		double dt = (ratio(P->b_all[hi].ctok, P->b_all[hi].n) -
		    ratio(P->b_all[lo].ctok, P->b_all[lo].n)) / 1000;
		if (dt == 0)
			return why_set(y, "the same completion tokens under every budget"), NAN;
		return (regret(&P->b_all[lo]) - regret(&P->b_all[hi])) / dt;
	}
	return (regret(&P->b_top[lo]) - regret(&P->b_top[hi])) -
	    (regret(&P->b_none[lo]) - regret(&P->b_none[hi]));
}

static double
decision_value(const struct fp_run *r, const struct pools *P, const struct strength *S,
    const struct fp_feat *ft, struct fp_why *y)
{
	const struct paired_sums *a = &P->p[P_ALL];
	double nf = 0;

	switch (ft->base) {
	case FB_RECALL: return ratio(P->p[P_NONE].recall, P->p[P_NONE].n);
	case FB_COVERAGE: return ratio(P->p[P_PROPOSE_].cov, P->p[P_PROPOSE_].ncov);
	case FB_ORACLE: return regret(&P->topk[ft->idx]);
	case FB_RANK: return ratio(P->p[P_TOP].rank, P->p[P_TOP].nrank);
	case FB_VALUE_LOSS: return ratio(P->p[P_TOP].vl, P->p[P_TOP].nvl);
	case FB_OMIT: return regret(&P->p[P_OMIT]);
	case FB_ENGINE: return regret(&P->p[P_ENG]) - regret(&P->p[P_TOP]);
	case FB_CALIBRATION:
		return why_set(y, "decision logs record no value ranking of successor positions"), NAN;
	case FB_ORDER: return ratio(a->differ, a->pairs);
	case FB_REGRET_VAR: return ratio(a->var, a->nvar);
	case FB_ILLEGAL: return ratio(a->status[1], a->n);
	case FB_TOOL: return ratio(a->status[2], a->n);
	case FB_BLUNDER: return ratio(a->blunder_k[ft->idx], a->blunder_n[ft->idx]);
	case FB_HISTORY:
		return ratio(a->ctx_reg[1], a->ctx_n[1]) - ratio(a->ctx_reg[0], a->ctx_n[0]);
	case FB_FAILURE:
		for (int l = 0; l < DF_N; l++)
			nf += a->failures[l];
		return ratio(a->failures[ft->idx], nf);
	case FB_TOKENS: return ratio(a->tok, a->n);
	case FB_LATENCY: return ratio(a->lat, a->n);
	case FB_TOKENS_GAME: return ratio(S->tok[r->nwidths], S->games[r->nwidths]);
	case FB_WALL_GAME: return ratio(S->wall, S->games[r->nwidths]);
	case FB_HOURS_GAME: return ratio(S->hours, S->games[r->nwidths]);
	case FB_GAIN:
	case FB_WXB: return budget_value(r, P, ft, y);
	case FB_RETRIES: return ratio(a->retries, a->status[0]);
	default: return NAN;
	}
}

static int
is_strength(enum fp_base b)
{
	return b <= FB_AUC || b == FB_PARETO;
}

int
fp_values(const struct fp_run *r, size_t fi, const uint32_t *m, double *v, struct fp_why *why,
    struct err *e)
{
	const struct fp_fam *f = &r->fam[fi];
	size_t nw = r->nwidths;
	struct pools P;
	struct strength S = { 0 };
	double *mem = calloc(4 * (nw + 1) + 1, sizeof *mem);
	double *pv = calloc(f->npack + 1, sizeof *pv);
	int *sat = calloc(nw + 1, sizeof *sat);
	struct paired_sums *ps = NULL;
	int rc = -1;

	if (mem == NULL || sat == NULL || pv == NULL || pools_alloc(r, &P, &ps) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	S = (struct strength){ mem, mem + nw + 1, sat, mem + 2 * (nw + 1), mem + 3 * (nw + 1), 0, 0,
		NULL };
	if (f->pack != NULL)
		pool_sums(r, f, m, &P, pv);
	game_sums(r, f, m, &S);
	if (fit_games(r, f, m, why != NULL, &S, e) < 0)
		goto done;
	for (size_t i = 0; i < r->nfeat; i++) {
		const struct fp_feat *ft = &r->feat[i];
		struct fp_why *y = why ? &why[i] : NULL;
		v[i] = is_strength(ft->base) ? strength_value(r, &S, ft, y) :
		    decision_value(r, &P, &S, ft, y);
		if (!isfinite(v[i])) {
			v[i] = NAN;
			why_set(y, "no decisions or games this feature is measured on");
		}
	}
	rc = 0;
done:
	free(mem);
	free(sat);
	free(pv);
	free(ps);
	return rc;
}
