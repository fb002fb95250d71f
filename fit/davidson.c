/* davidson.c: maximum likelihood for the joint Davidson model by Newton's
 * method on its arrowhead Hessian, and profile-likelihood intervals by
 * bracketing and Brent's method (GSL).
 *
 * The log-likelihood of one block is w s + d (phi + s/2) - n log D, the
 * log-partition of a three-point exponential family in (s, phi): its
 * Hessian is minus the covariance of (score, draw), so the whole
 * likelihood is concave and the Newton direction always climbs.  Each
 * rating couples only with phi and the penalty, so a Newton step is a
 * block elimination: a diagonal part and a Schur complement of size 1
 * or 2.  A pass over the data costs O(blocks).
 */
#include "davidson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#define MAX_NEWTON 300
/* A gradient within STALL_OVER times its tolerance that has not halved
 * in STALL_STEPS Newton steps is at the rounding floor (solve) */
#define STALL_OVER 10.0
#define STALL_STEPS 5
#define THETA_LIMIT 120.0 /* 20,000 Elo beyond a condition's anchors: diverging */
#define PHI_LIMIT 40.0
#define PROFILE_REACH 60.0 /* a profile end farther than this is open */
#define ROOT_XTOL 1e-10
/* nu = e^-30: with no draw, where the profile of nu starts its walk up;
 * within rounding of nu = 0 for any cohort below 1e12 games */
#define NU_ZERO_START -30.0

struct par {
	double *th;
	double phi, pen;
};

/* Sums gathered by one pass over the data. */
struct pass {
	double L;
	double *g, *h, *hphi, *hpen; /* per condition: dL/dth, d2/dth2, d2/dth dphi, d2/dth dpen */
	double gphi, gpen, hpp, hpq, hqq; /* phi/pen gradient; phi-phi, phi-pen, pen-pen */
};

struct ctx {
	const struct fit_model *m;
	const struct fit_spec *spec;
	int nu_zero;        /* no draw: nu is 0 (phi = -inf), Bradley-Terry */
	double q;           /* chi-square(1) quantile at level */
	unsigned char *act; /* conditions in the likelihood */
	struct par best;    /* the MLE */
	double Lbest;
	struct par trial; /* line-search point */
	struct par warm;  /* profile warm start */
	struct par tmp;
	struct pass ps;
	double *dth;      /* Newton step */
	double *infodiag; /* -d2L/dth2 at the MLE */
	double info_phi, info_pen;
	long evals;
	double *tol;   /* per condition: the tolerance of its rating's gradient */
	double *amin, *amax; /* per condition: its lowest and highest anchor */
	double tol_all; /* of the gradients in phi and the penalty */
	/* the reduced profile (see below) */
	struct cheb *fphi;
	struct cheb2 *fphi2; /* the same in (phi, pen) when pen is estimated */
};

/* Profile of phi with the penalty fixed, as a Chebyshev interpolant:
 * F(phi) = max over all finite ratings of L, and F'(phi). */
struct cheb {
	double lo, hi;
	int n;
	double *cf, *cd; /* coefficients of F - Lbest and of F' */
};

/* One block's log-likelihood at s (nu = e^phi given too), and with derivs
 * its gradient and Hessian in (s, phi): out = {dL/ds, dL/dphi, d2/ds2,
 * d2/ds dphi, d2/dphi2}.  With h = s/2 and r = e^(-|h|) <= 1,
 * D = e^s + 1 + nu e^h is e^(2h) (1 + r^2 + nu r) or (r^2 + 1 + nu r):
 * one exp and one log, and nothing overflows. */
static double
block_terms(double s, double phi, double nu, double n, double w, double d, int derivs,
            double out[5])
{
	double h = 0.5 * s, r = exp(-fabs(h)), r2 = r * r, nr = nu * r;
	double D = 1 + r2 + nr, logD = log(D) + (h > 0 ? s : 0);
	double L = w * s + (d > 0 ? d * (phi + h) : 0) - n * logD; /* phi = -inf has no draw */

	if (derivs) {
		double pd = nr / D, pw, pl;
		if (h > 0) {
			pw = 1 / D;
			pl = r2 / D;
		} else {
			pw = r2 / D;
			pl = 1 / D;
		}
		out[0] = w + 0.5 * d - n * (pw + 0.5 * pd);
		out[1] = d - n * pd;
		out[2] = -n * (0.25 * pw * pd + pw * pl + 0.25 * pd * pl);
		out[3] = -n * 0.5 * pd * (pl - pw);
		out[4] = -n * pd * (pw + pl);
	}
	return L;
}

static double
cond_pass(const struct fit_model *m, size_t c, double th, double phi, double pen, int derivs,
          double *g, double *h, double *hphi, double *hpen, double gl[5])
{
	double L = 0, o[5], nu = exp(phi);

	*g = *h = *hphi = *hpen = 0;
	for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
		double s = th + m->sp[b] * pen - m->a[b];
		L += block_terms(s, phi, nu, m->n[b], m->w[b], m->d[b], derivs, o);
		if (!derivs)
			continue;
		*g += o[0];
		*h += o[2];
		*hphi += o[3];
		*hpen += m->sp[b] * o[2];
		gl[0] += o[1];            /* dL/dphi */
		gl[1] += m->sp[b] * o[0]; /* dL/dpen */
		gl[2] += o[4];            /* phi-phi */
		gl[3] += m->sp[b] * o[3]; /* phi-pen */
		gl[4] += o[2];            /* pen-pen */
	}
	return L;
}

static double
pass_eval(struct ctx *x, const struct par *p, int derivs)
{
	const struct fit_model *m = x->m;
	struct pass *ps = &x->ps;
	double L = 0, gl[5] = {0, 0, 0, 0, 0};

	for (size_t c = 0; c < m->ncond; c++) {
		if (!x->act[c]) {
			ps->g[c] = ps->h[c] = ps->hphi[c] = ps->hpen[c] = 0;
			continue;
		}
		L += cond_pass(m, c, p->th[c], p->phi, p->pen, derivs, &ps->g[c], &ps->h[c],
		               &ps->hphi[c], &ps->hpen[c], gl);
	}
	ps->L = L;
	ps->gphi = gl[0];
	ps->gpen = gl[1];
	ps->hpp = gl[2];
	ps->hpq = gl[3];
	ps->hqq = gl[4];
	x->evals++;
	return L;
}

static void
par_copy(const struct fit_model *m, struct par *dst, const struct par *src)
{
	memcpy(dst->th, src->th, m->ncond * sizeof *dst->th);
	dst->phi = src->phi;
	dst->pen = src->pen;
}

/* The tolerance of a gradient that sums over n games: FIT_GRAD_TOL, or
 * where that is larger the rounding level of such a sum, FIT_ROUND_PER_GAME
 * per game (which 1e-9 is from about 100,000 games on). */
static double
grad_tol(double n)
{
	return fmax(FIT_GRAD_TOL, FIT_ROUND_PER_GAME * n);
}

/* The largest free gradient at the last pass, and in *over the largest
 * relative to its tolerance. */
static double
free_gradient(const struct ctx *x, long fixc, int fphi, int fpen, double *over)
{
	const struct pass *ps = &x->ps;
	double mg = 0;

	*over = 0;
	for (size_t c = 0; c < x->m->ncond; c++)
		if (x->act[c] && (long)c != fixc) {
			mg = fmax(mg, fabs(ps->g[c]));
			*over = fmax(*over, fabs(ps->g[c]) / x->tol[c]);
		}
	if (fphi) {
		mg = fmax(mg, fabs(ps->gphi));
		*over = fmax(*over, fabs(ps->gphi) / x->tol_all);
	}
	if (fpen) {
		mg = fmax(mg, fabs(ps->gpen));
		*over = fmax(*over, fabs(ps->gpen) / x->tol_all);
	}
	return mg;
}

/* The Newton step from the last pass: x->dth, *dphi and *dpen, with *big
 * its largest component and *slope its gain along the gradient. */
static int
newton_step(struct ctx *x, long fixc, int fphi, int fpen, double *dphi, double *dpen,
            double *big, double *slope, struct err *e)
{
	const struct fit_model *m = x->m;
	const struct pass *ps = &x->ps;

	/* Block elimination: S = C - B' D^-1 B, S dg = -gg + B' D^-1 g. */
	double S00 = fphi ? ps->hpp : -1, S01 = 0, S11 = fpen ? ps->hqq : -1;
	double r0 = fphi ? -ps->gphi : 0, r1 = fpen ? -ps->gpen : 0;
	if (fphi && fpen)
		S01 = ps->hpq;
	for (size_t c = 0; c < m->ncond; c++) {
		if (!x->act[c] || (long)c == fixc)
			continue;
		double dc = ps->h[c] < -1e-300 ? ps->h[c] : -1e-300;
		double b0 = fphi ? ps->hphi[c] : 0, b1 = fpen ? ps->hpen[c] : 0;
		S00 -= b0 * b0 / dc;
		S01 -= b0 * b1 / dc;
		S11 -= b1 * b1 / dc;
		r0 += b0 * ps->g[c] / dc;
		r1 += b1 * ps->g[c] / dc;
	}
	double det = S00 * S11 - S01 * S01;
	if (!(det > 0) || !(S00 < 0))
		return err_set(e, ERR_NUMERIC, "Hessian is not negative definite");
	*dphi = (r0 * S11 - r1 * S01) / det;
	*dpen = (S00 * r1 - S01 * r0) / det;
	if (!fphi)
		*dphi = 0;
	if (!fpen)
		*dpen = 0;
	*big = fabs(*dphi) > fabs(*dpen) ? fabs(*dphi) : fabs(*dpen);
	*slope = 0;
	for (size_t c = 0; c < m->ncond; c++) {
		x->dth[c] = 0;
		if (!x->act[c] || (long)c == fixc)
			continue;
		double dc = ps->h[c] < -1e-300 ? ps->h[c] : -1e-300;
		x->dth[c] = (-ps->g[c] - ps->hphi[c] * *dphi - ps->hpen[c] * *dpen) / dc;
		*slope += ps->g[c] * x->dth[c];
		if (fabs(x->dth[c]) > *big)
			*big = fabs(x->dth[c]);
	}
	*slope += ps->gphi * *dphi + ps->gpen * *dpen;
	return 0;
}

/* Cap a long step, then backtrack (Armijo) until L rises; near
 * the top the full Newton step is taken as it is.  The point taken is
 * left in x->trial and its likelihood in *Lt. */
static int
line_search(struct ctx *x, const struct par *p, double L, double mg, double big, double slope,
            double dphi, double dpen, double *Lt, struct err *e)
{
	const struct fit_model *m = x->m;
	double alpha = big > 2 ? 2 / big : 1;

	for (;;) {
		for (size_t c = 0; c < m->ncond; c++)
			x->trial.th[c] = p->th[c] + alpha * x->dth[c];
		x->trial.phi = p->phi + alpha * dphi;
		x->trial.pen = p->pen + alpha * dpen;
		*Lt = pass_eval(x, &x->trial, 1);
		/* L is a sum over every block: its rounding noise grows
		 * with |L|, and a step whose gain is below it is a step
		 * at the top. */
		double noise = 1e-12 * (1 + fabs(L));
		if (isfinite(*Lt) && (mg < 1e-6 || *Lt >= L + 1e-4 * alpha * slope - noise))
			return 0;
		alpha *= 0.5;
		if (alpha < 1e-14)
			return err_set(e, ERR_NUMERIC,
			               "line search failed (max gradient %g)", mg);
	}
}

/* Refuse a point that ran off to infinity: a rating far past its
 * anchors, the draw parameter or the penalty past their limits. */
static int
check_finite(const struct ctx *x, const struct par *p, int fphi, struct err *e)
{
	for (size_t c = 0; c < x->m->ncond; c++)
		if (x->act[c] && (p->th[c] < x->amin[c] - THETA_LIMIT ||
		                  p->th[c] > x->amax[c] + THETA_LIMIT))
			return err_set(e, ERR_INPUT, "a rating has no finite estimate");
	if (fphi && fabs(p->phi) > PHI_LIMIT)
		return err_set(e, ERR_INPUT, "the draw parameter has no finite estimate");
	if (fabs(p->pen) > THETA_LIMIT)
		return err_set(e, ERR_INPUT, "the black penalty has no finite estimate");
	return 0;
}

/* Maximise L over the free parameters: every active condition but fixc
 * (-1: none), phi unless fixphi, the penalty when estimated and not
 * fixpen.  On success p holds the maximum and x->ps the derivatives
 * there. */
static int
solve(struct ctx *x, struct par *p, long fixc, int fixphi, int fixpen, int *iters, double *maxg,
      struct err *e)
{
	int fphi = !fixphi && !x->nu_zero, fpen = x->spec->estimate_pen && !fixpen, flat = 0;
	double L = pass_eval(x, p, 1), best = INFINITY;

	for (int it = 0;; it++) {
		double over, dphi = 0, dpen = 0, big = 0, slope = 0, Lt = 0;
		double mg = free_gradient(x, fixc, fphi, fpen, &over);
		if (!isfinite(L) || !isfinite(mg))
			return err_set(e, ERR_NUMERIC, "likelihood is not finite");
		if (over < 0.5 * best) {
			best = over;
			flat = 0;
		} else {
			flat++;
		}
		/* At the rounding floor: the gradient near its tolerance and no
		 * longer falling.  Newton from near the top halves it every
		 * step, so only rounding keeps it there; stepping on wanders. */
		if (over <= 1 || (over <= STALL_OVER && flat >= STALL_STEPS)) {
			if (iters)
				*iters = it;
			if (maxg)
				*maxg = mg;
			return 0;
		}
		if (it >= MAX_NEWTON)
			return err_set(e, ERR_NUMERIC,
			               "no convergence after %d Newton steps (max gradient %g)",
			               MAX_NEWTON, mg);
		if (newton_step(x, fixc, fphi, fpen, &dphi, &dpen, &big, &slope, e) < 0)
			return -1;
		if (line_search(x, p, L, mg, big, slope, dphi, dpen, &Lt, e) < 0)
			return -1;
		par_copy(x->m, p, &x->trial);
		L = Lt;
		if (check_finite(x, p, fphi, e) < 0)
			return -1;
	}
}

/* ---- profiles ---- */

enum { PROF_COND, PROF_PHI, PROF_PEN };

struct prof {
	struct ctx *x;
	int kind;
	size_t c;
	int failed;
	struct err *e;
};

struct fval {
	double F, dF, d2F;
};

static double cheb_profile_cond(struct ctx *x, size_t c, double t, struct err *e, int *failed);
static double cond_alone_profile(struct ctx *x, size_t c, double t);
static double cheb2_profile_cond(struct ctx *x, size_t c, double t, struct err *e, int *failed);
static int f_value(struct ctx *x, double phi, struct fval *out, struct err *e);

/* 2 (Lbest - PL(v)) - q: zero at an interval end. */
static double
prof_f(double v, void *arg)
{
	struct prof *pr = arg;
	struct ctx *x = pr->x;
	struct par *p = &x->warm;
	int rc;

	if (pr->failed)
		return NAN;
	if (pr->kind == PROF_COND && x->nu_zero && !x->spec->estimate_pen)
		return cond_alone_profile(x, pr->c, v);
	if (pr->kind == PROF_COND && x->fphi != NULL)
		return cheb_profile_cond(x, pr->c, v, pr->e, &pr->failed);
	if (pr->kind == PROF_COND && x->fphi2 != NULL)
		return cheb2_profile_cond(x, pr->c, v, pr->e, &pr->failed);
	if (pr->kind == PROF_PHI && x->fphi != NULL) {
		struct fval f;
		if (f_value(x, v, &f, pr->e) < 0) {
			pr->failed = 1;
			return NAN;
		}
		return -2 * f.F - x->q;
	}
	if (pr->kind == PROF_COND) {
		p->th[pr->c] = v;
		rc = solve(x, p, (long)pr->c, 0, 0, NULL, NULL, pr->e);
	} else if (pr->kind == PROF_PHI) {
		p->phi = v;
		rc = solve(x, p, -1, 1, 0, NULL, NULL, pr->e);
	} else {
		p->pen = v;
		rc = solve(x, p, -1, 0, 1, NULL, NULL, pr->e);
	}
	if (rc < 0) {
		/* Far out a profile may not be solvable; fall back to the MLE
		 * as a warm start once before giving up. */
		par_copy(x->m, p, &x->best);
		if (pr->kind == PROF_COND)
			p->th[pr->c] = v;
		else if (pr->kind == PROF_PHI)
			p->phi = v;
		else
			p->pen = v;
		rc = solve(x, p, pr->kind == PROF_COND ? (long)pr->c : -1, pr->kind == PROF_PHI,
		           pr->kind == PROF_PEN, NULL, NULL, pr->e);
		if (rc < 0) {
			pr->failed = 1;
			return NAN;
		}
	}
	return 2 * (x->Lbest - x->ps.L) - x->q;
}

/* From start (where f < 0) walk in direction dir with growing steps until
 * f >= 0, then refine the root with Brent.  *end is NAN when the profile
 * never reaches the cut within PROFILE_REACH. */
static int
prof_end(struct prof *pr, double start, double dir, double h, double *end)
{
	double a = start, b = start, fb = -1;

	for (int k = 0; k < 80; k++) {
		b = a + dir * h;
		if (fabs(b - start) > PROFILE_REACH) {
			*end = NAN;
			return 0;
		}
		fb = prof_f(b, pr);
		if (pr->failed)
			return -1;
		if (fb >= 0)
			break;
		a = b;
		h *= 2;
	}
	if (fb < 0) {
		*end = NAN;
		return 0;
	}
	if (fb == 0) {
		*end = b;
		return 0;
	}
	gsl_function F = {prof_f, pr};
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (s == NULL)
		return err_set(pr->e, ERR_NOMEM, "out of memory");
	double lo = a < b ? a : b, hi = a < b ? b : a;
	int st = gsl_root_fsolver_set(s, &F, lo, hi);
	if (st == GSL_EINVAL && !pr->failed) {
		/* No sign change: at a tiny level the cut q is below the
		 * rounding noise of the likelihood: the end is the inner
		 * point. */
		gsl_root_fsolver_free(s);
		*end = a;
		return 0;
	}
	for (int it = 0; st == GSL_SUCCESS && it < 200; it++) {
		st = gsl_root_fsolver_iterate(s);
		if (st != GSL_SUCCESS)
			break;
		lo = gsl_root_fsolver_x_lower(s);
		hi = gsl_root_fsolver_x_upper(s);
		if (gsl_root_test_interval(lo, hi, ROOT_XTOL, 0) == GSL_SUCCESS)
			break;
	}
	*end = gsl_root_fsolver_root(s);
	gsl_root_fsolver_free(s);
	if (pr->failed)
		return -1;
	if (st != GSL_SUCCESS)
		return err_set(pr->e, ERR_NUMERIC, "profile root: %s", gsl_strerror(st));
	return 0;
}

/* Both ends of a finite parameter's profile interval. */
static int
prof_both(struct ctx *x, int kind, size_t c, double mle, double info, double *lo, double *hi,
          struct err *e)
{
	struct prof pr = {x, kind, c, 0, e};
	double h = info > 0 ? sqrt(x->q / info) : 0.5;

	par_copy(x->m, &x->warm, &x->best);
	if (prof_end(&pr, mle, -1, h, lo) < 0)
		return -1;
	par_copy(x->m, &x->warm, &x->best);
	if (prof_end(&pr, mle, +1, h, hi) < 0)
		return -1;
	return 0;
}

/* nu's interval when its estimate is 0: from 0 (phi = -inf, a closed end)
 * to where the profile, falling as nu grows, crosses the cut. */
static int
prof_nu_zero(struct ctx *x, double *lo, double *hi, struct err *e)
{
	struct prof pr = {x, PROF_PHI, 0, 0, e};

	*lo = -INFINITY;
	par_copy(x->m, &x->warm, &x->best);
	x->warm.phi = NU_ZERO_START;
	return prof_end(&pr, NU_ZERO_START, +1, 1.0, hi);
}

/* A saturated condition: its rating enters the likelihood only while it is
 * profiled; the profile rises towards Lbest at the open side, so walk out
 * until it is inside the cut, then find the one finite end. */
static int
prof_saturated(struct ctx *x, size_t c, double *lo, double *hi, struct err *e)
{
	const struct fit_model *m = x->m;
	struct prof pr = {x, PROF_COND, c, 0, e};
	double dir = m->sat[c] == FIT_SAT_UP ? 1 : -1, t = dir > 0 ? -INFINITY : INFINITY, f;
	int rc;

	for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
		double at = m->a[b] - m->sp[b] * x->best.pen;
		if (dir > 0 ? at > t : at < t)
			t = at;
	}
	/* The direct profile needs c in the likelihood; the reduced one
	 * keeps it out of F and adds it by hand. */
	x->act[c] = x->fphi == NULL && x->fphi2 == NULL;
	par_copy(m, &x->warm, &x->best);
	for (int k = 0;; k++) {
		f = prof_f(t, &pr);
		if (pr.failed) {
			x->act[c] = 0;
			return -1;
		}
		if (f < 0)
			break;
		if (k > 60) {
			x->act[c] = 0;
			return err_set(e, ERR_NUMERIC,
			               "profile of a saturated rating does not level off");
		}
		t += dir * 1.0;
	}
	if (dir > 0) {
		*hi = NAN;
		rc = prof_end(&pr, t, -1, 0.5, lo);
	} else {
		*lo = NAN;
		rc = prof_end(&pr, t, +1, 0.5, hi);
	}
	x->act[c] = 0;
	return rc;
}

/* With nu = 0 and the penalty fixed the conditions share nothing: the
 * profile of c is its own likelihood against its own maximum (0, the
 * supremum, for a saturated c). */
static double
cond_alone_profile(struct ctx *x, size_t c, double t)
{
	double g, h, hp, hq, gl[5] = {0, 0, 0, 0, 0}, top = 0;
	double pen = x->best.pen;

	if (x->m->sat[c] == FIT_FINITE)
		top = cond_pass(x->m, c, x->best.th[c], -INFINITY, pen, 0, &g, &h, &hp, &hq, gl);
	x->evals++;
	return 2 * (top - cond_pass(x->m, c, t, -INFINITY, pen, 0, &g, &h, &hp, &hq, gl)) - x->q;
}

/* ---- exact bounds of saturated conditions ---- */

/* ln P(every game of c goes as it went) at theta, and its derivative. */
static double
all_same_log(const struct fit_model *m, size_t c, double th, double phi, double pen, double *dl)
{
	double L = 0, o[5], nu = exp(phi);
	int up = m->sat[c] == FIT_SAT_UP;

	*dl = 0;
	for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
		double s = th + m->sp[b] * pen - m->a[b];
		L += block_terms(s, phi, nu, m->n[b], up ? m->n[b] : 0, 0, 1, o);
		*dl += o[0];
	}
	return L;
}

int
fit_exact_bound(const struct fit_model *m, size_t c, double phi, double pen, double tail,
                double *theta, struct err *e)
{
	int up = m->sat[c] == FIT_SAT_UP;
	double lt = log(tail), lo = -INFINITY, hi = INFINITY, t = up ? -INFINITY : INFINITY;

	if (m->sat[c] != FIT_SAT_UP && m->sat[c] != FIT_SAT_DOWN)
		return err_set(e, ERR_INPUT, "an exact bound needs all wins or all losses");
	for (size_t b = m->start[c]; b < m->start[c + 1]; b++) /* the outermost anchor */
		t = up ? fmax(t, m->a[b] - m->sp[b] * pen) : fmin(t, m->a[b] - m->sp[b] * pen);
	/* ln P is concave and monotone in theta: Newton, inside the bracket
	 * each evaluation narrows, steps of at most 5 log units. */
	for (int it = 0; it < 400; it++) {
		double dl, g = all_same_log(m, c, t, phi, pen, &dl) - lt, next;
		int below = (g < 0) == up; /* the bound lies above t */
		if (g == 0) {
			*theta = t;
			return 0;
		}
		if (below)
			lo = t;
		else
			hi = t;
		next = t - fmin(fmax(g / dl, -5), 5);
		if (!(next > lo && next < hi))
			next = isfinite(lo) && isfinite(hi) ? lo + (hi - lo) / 2 : t + (below ? 5 : -5);
		if (fabs(next - t) <= 1e-13 * fmax(1, fabs(t)) || next <= lo || next >= hi) {
			*theta = next;
			return 0;
		}
		t = next;
	}
	return err_set(e, ERR_NUMERIC, "the exact bound of a saturated rating was not found");
}

/* ---- the reduced profile for a fixed penalty ----
 *
 * With the penalty fixed, a condition's ratings interact with the others
 * only through phi.  Let F(phi) be the likelihood maximised over every
 * finite rating at that phi, and M_c(phi) the same for condition c alone.
 * Then the profile of condition c at theta_c = t is
 *     PL_c(t) = max over phi of  F(phi) - M_c(phi) + L_c(t, phi)
 * (for a saturated c, M_c is absent: c is not in F).  F needs a pass over
 * every condition; it is smooth in phi, and every optimum phi of a profile
 * inside the cut lies inside the profile interval of phi itself (because
 * PL_c(t) <= F(phi*)), so F and F' are interpolated once on that interval
 * (plus a margin) by Chebyshev series converged to rounding; outside it F
 * is computed exactly.  Each profile point then costs a pass over one
 * condition's blocks only. */

/* F(phi) and its derivatives exactly: every finite rating re-optimised. */
static int
f_exact(struct ctx *x, double phi, struct fval *out, struct err *e)
{
	par_copy(x->m, &x->tmp, &x->best);
	x->tmp.phi = phi;
	if (solve(x, &x->tmp, -1, 1, 1, NULL, NULL, e) < 0)
		return -1;
	/* Envelope theorem: dF = dL/dphi; d2F is the Schur complement. */
	double S = x->ps.hpp;
	for (size_t c = 0; c < x->m->ncond; c++)
		if (x->act[c] && x->ps.h[c] < 0)
			S -= x->ps.hphi[c] * x->ps.hphi[c] / x->ps.h[c];
	out->F = x->ps.L;
	out->dF = x->ps.gphi;
	out->d2F = S;
	return 0;
}

static void
cheb_free(struct cheb *ch)
{
	if (ch == NULL)
		return;
	free(ch->cf);
	free(ch->cd);
	free(ch);
}

/* Chebyshev series of the values v[k] at the nodes cos(pi (k + 1/2) / n). */
static void
cheb_coef(const double *v, int n, double *cf)
{
	for (int j = 0; j < n; j++) {
		double s = 0;
		for (int k = 0; k < n; k++)
			s += v[k] * cos(M_PI * j * (k + 0.5) / n);
		cf[j] = 2.0 * s / n;
	}
}

/* Value and first derivative of a series at phi. */
static void
cheb_eval(const struct cheb *ch, const double *cf, double phi, double *val, double *der)
{
	double u = (2 * phi - ch->lo - ch->hi) / (ch->hi - ch->lo);
	double b1 = 0, b2 = 0, d1 = 0, d2 = 0;

	/* Clenshaw for the value, and for the derivative series via
	 * T_j' = j U_{j-1}. */
	for (int j = ch->n - 1; j >= 1; j--) {
		double t = 2 * u * b1 - b2 + cf[j];
		b2 = b1;
		b1 = t;
	}
	*val = u * b1 - b2 + 0.5 * cf[0];
	if (der) {
		for (int j = ch->n - 1; j >= 1; j--) {
			double t = 2 * u * d1 - d2 + j * cf[j];
			d2 = d1;
			d1 = t;
		}
		*der = d1 * 2 / (ch->hi - ch->lo);
	}
}

static int
cheb_build(struct ctx *x, double lo, double hi, struct err *e)
{
	int n = 16;
	double *v = NULL, *dv = NULL;
	struct cheb *ch = calloc(1, sizeof *ch);

	if (ch == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	ch->lo = lo;
	ch->hi = hi;
	for (;;) {
		free(v);
		free(dv);
		free(ch->cf);
		free(ch->cd);
		v = malloc(n * sizeof *v);
		dv = malloc(n * sizeof *dv);
		ch->cf = malloc(n * sizeof *ch->cf);
		ch->cd = malloc(n * sizeof *ch->cd);
		if (!v || !dv || !ch->cf || !ch->cd) {
			free(v);
			free(dv);
			cheb_free(ch);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		for (int k = 0; k < n; k++) {
			double u = cos(M_PI * (k + 0.5) / n);
			struct fval f;
			if (f_exact(x, 0.5 * (lo + hi) + 0.5 * (hi - lo) * u, &f, e) < 0) {
				free(v);
				free(dv);
				cheb_free(ch);
				return -1;
			}
			v[k] = f.F - x->Lbest;
			dv[k] = f.dF;
		}
		ch->n = n;
		cheb_coef(v, n, ch->cf);
		cheb_coef(dv, n, ch->cd);
		/* Converged when the last quarter of the coefficients is
		 * below 1e-9 in log-likelihood (an interval end then moves by
		 * less than 1e-8 log units), or at the rounding level of a sum
		 * as large as Lbest. */
		double floor = 1e-9 + 1e-14 * fabs(x->Lbest), tail = 0, dtail = 0;
		for (int j = n - n / 4; j < n; j++) {
			if (fabs(ch->cf[j]) > tail)
				tail = fabs(ch->cf[j]);
			if (fabs(ch->cd[j]) > dtail)
				dtail = fabs(ch->cd[j]);
		}
		if ((tail <= floor && dtail <= 10 * floor) || n >= 128)
			break;
		n *= 2;
	}
	free(v);
	free(dv);
	x->fphi = ch;
	return 0;
}

static int
f_value(struct ctx *x, double phi, struct fval *out, struct err *e)
{
	const struct cheb *ch = x->fphi;

	if (phi < ch->lo || phi > ch->hi) {
		if (f_exact(x, phi, out, e) < 0)
			return -1;
		out->F -= x->Lbest;
		return 0;
	}
	double dd;
	cheb_eval(ch, ch->cf, phi, &out->F, NULL);
	cheb_eval(ch, ch->cd, phi, &out->dF, &dd);
	out->d2F = dd;
	return 0;
}

/* Maximise one condition's likelihood over its rating at fixed phi and
 * pen: out = {M_c, dM/dphi, d2M/dphi2, dM/dpen, d2M/dphi dpen,
 * d2M/dpen2}; *th is the warm start and the answer. */
static int
cond_max(struct ctx *x, size_t c, double phi, double pen, double *th, double out[6], struct err *e)
{
	double g, h, hp, hq, gl[5], lo = -INFINITY, hi = INFINITY, tol = x->tol[c];

	/* Newton, kept inside the bracket that the sign of the (decreasing)
	 * derivative gives; bisection when a step would leave it.  A step
	 * that does not move the rating is the top at rounding level. */
	for (int it = 0; it < 400; it++) {
		memset(gl, 0, sizeof gl);
		double L = cond_pass(x->m, c, *th, phi, pen, 1, &g, &h, &hp, &hq, gl), next;
		int done = fabs(g) <= tol * 1e-2 || (it > 0 && fabs(g) <= tol);
		if (!done) {
			if (g > 0)
				lo = *th;
			else
				hi = *th;
			double step = h < 0 ? -g / h : (g > 0 ? 2 : -2);
			next = *th + fmin(fmax(step, -2), 2);
			if (!(next > lo && next < hi) && isfinite(lo) && isfinite(hi))
				next = 0.5 * (lo + hi);
			done = next == *th;
			*th = next;
		}
		if (done) {
			out[0] = L;
			out[1] = gl[0];
			out[2] = gl[2] - hp * hp / h;
			out[3] = gl[1];
			out[4] = gl[3] - hp * hq / h;
			out[5] = gl[4] - hq * hq / h;
			return 0;
		}
	}
	return err_set(e, ERR_NUMERIC, "no convergence of a condition's rating");
}

static double
cheb_profile_cond(struct ctx *x, size_t c, double t, struct err *e, int *failed)
{
	const struct fit_model *m = x->m;
	int finite = m->sat[c] == FIT_FINITE;
	double phi = x->warm.phi, th = finite ? x->best.th[c] : 0, val = 0;
	double lo = -INFINITY, hi = INFINITY;

	/* Newton on phi for the concave G(phi) = F - M_c + L_c(t, .),
	 * safeguarded by the bracket the derivative's sign gives. */
	for (int it = 0;; it++) {
		struct fval f;
		double mc[6] = {0, 0, 0, 0, 0, 0}, g, h, hp, hq, gl[5] = {0, 0, 0, 0, 0};
		if (f_value(x, phi, &f, e) < 0 ||
		    (finite && cond_max(x, c, phi, x->best.pen, &th, mc, e) < 0)) {
			*failed = 1;
			return NAN;
		}
		double Lc = cond_pass(m, c, t, phi, x->best.pen, 1, &g, &h, &hp, &hq, gl);
		double G = f.F - mc[0] + Lc, dG = f.dF - mc[1] + gl[0];
		double d2G = f.d2F - mc[2] + gl[2];
		val = G;
		if (fabs(dG) <= x->tol_all || it >= 100)
			break;
		if (dG > 0)
			lo = phi;
		else
			hi = phi;
		double next = d2G < 0 ? phi - dG / d2G : phi + (dG > 0 ? 1 : -1);
		if (next - phi > 2)
			next = phi + 2;
		if (next - phi < -2)
			next = phi - 2;
		if (!(next > lo && next < hi))
			next = isfinite(lo) && isfinite(hi) ? 0.5 * (lo + hi)
			                                    : (dG > 0 ? phi + 1 : phi - 1);
		if (next == phi)
			break;
		phi = next;
	}
	x->warm.phi = phi;
	x->evals++;
	return -2 * val - x->q;
}

/* ---- the reduced profile for an estimated penalty ----
 *
 * The same construction in two dimensions: F(phi, pen) maximised over
 * every finite rating, interpolated (with its gradient, by the envelope
 * theorem) on a tensor Chebyshev grid over the box spanned by the profile
 * intervals of phi and of the penalty, which is the bounding box of the
 * region where 2 (Lbest - F) <= q and so holds every profile optimum
 * inside the cut.  A profile point is a safeguarded 2-D Newton ascent of
 * F - M_c + L_c(t, ., .). */

struct cheb2 {
	double lo[2], hi[2];
	int n;
	double *cf, *c0, *c1; /* n x n coefficients of F - Lbest, dF/dphi, dF/dpen */
};

struct fval2 {
	double F, g[2], H[3]; /* value, gradient, Hessian (phi-phi, phi-pen, pen-pen) */
};

static void
cheb2_free(struct cheb2 *ch)
{
	if (ch == NULL)
		return;
	free(ch->cf);
	free(ch->c0);
	free(ch->c1);
	free(ch);
}

/* Value and derivative of a 1-D series at u in [-1, 1]. */
static void
cheb1(const double *cf, int n, double u, double *val, double *der)
{
	double b1 = 0, b2 = 0, d1 = 0, d2 = 0;

	for (int j = n - 1; j >= 1; j--) {
		double t = 2 * u * b1 - b2 + cf[j];
		b2 = b1;
		b1 = t;
	}
	*val = u * b1 - b2 + 0.5 * cf[0];
	if (der) {
		for (int j = n - 1; j >= 1; j--) {
			double t = 2 * u * d1 - d2 + j * cf[j];
			d2 = d1;
			d1 = t;
		}
		*der = d1;
	}
}

/* A tensor series at (u, v): value and its two partial derivatives. */
static void
cheb2_eval(const double *cf, int n, double u, double v, double *val, double *du, double *dv)
{
	double r[128] = {0}, rd[128] = {0};

	for (int i = 0; i < n; i++)
		cheb1(&cf[i * n], n, v, &r[i], &rd[i]);
	cheb1(r, n, u, val, du);
	cheb1(rd, n, u, dv, NULL);
}

/* Coefficients of the values v[k * n + l] at the node pairs. */
static void
cheb2_coef(const double *v, int n, double *cf, double *tmp)
{
	for (int k = 0; k < n; k++)
		cheb_coef(&v[k * n], n, &tmp[k * n]);
	for (int j = 0; j < n; j++) {
		double col[128], out[128];
		for (int k = 0; k < n; k++)
			col[k] = tmp[k * n + j];
		cheb_coef(col, n, out);
		for (int i = 0; i < n; i++)
			cf[i * n + j] = out[i];
	}
}

static int
f_exact2(struct ctx *x, double phi, double pen, struct fval2 *out, struct err *e)
{
	par_copy(x->m, &x->tmp, &x->best);
	x->tmp.phi = phi;
	x->tmp.pen = pen;
	if (solve(x, &x->tmp, -1, 1, 1, NULL, NULL, e) < 0)
		return -1;
	double a = x->ps.hpp, b = x->ps.hpq, d = x->ps.hqq;
	for (size_t c = 0; c < x->m->ncond; c++)
		if (x->act[c] && x->ps.h[c] < 0) {
			a -= x->ps.hphi[c] * x->ps.hphi[c] / x->ps.h[c];
			b -= x->ps.hphi[c] * x->ps.hpen[c] / x->ps.h[c];
			d -= x->ps.hpen[c] * x->ps.hpen[c] / x->ps.h[c];
		}
	out->F = x->ps.L - x->Lbest;
	out->g[0] = x->ps.gphi;
	out->g[1] = x->ps.gpen;
	out->H[0] = a;
	out->H[1] = b;
	out->H[2] = d;
	return 0;
}

/* F and its gradient at the n x n Chebyshev points of [lo, hi]: into v,
 * v0 and v1, row k the k-th point in phi. */
static int
cheb2_sample(struct ctx *x, const double lo[2], const double hi[2], int n, double *v, double *v0,
             double *v1, struct err *e)
{
	for (int k = 0; k < n; k++) {
		double phi = 0.5 * (lo[0] + hi[0]) +
		             0.5 * (hi[0] - lo[0]) * cos(M_PI * (k + 0.5) / n);
		for (int l = 0; l < n; l++) {
			double pen = 0.5 * (lo[1] + hi[1]) +
			             0.5 * (hi[1] - lo[1]) * cos(M_PI * (l + 0.5) / n);
			struct fval2 f;
			if (f_exact2(x, phi, pen, &f, e) < 0)
				return -1;
			v[k * n + l] = f.F;
			v0[k * n + l] = f.g[0];
			v1[k * n + l] = f.g[1];
		}
	}
	return 0;
}

/* The same rule as in one dimension, on the coefficients with
 * either index in its last quarter. */
static int
cheb2_converged(const struct cheb2 *ch, int n, double Lbest)
{
	double floor = 1e-9 + 1e-14 * fabs(Lbest), tail = 0, gtail = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i < n - n / 4 && j < n - n / 4)
				continue;
			size_t k = (size_t)i * n + j;
			if (fabs(ch->cf[k]) > tail)
				tail = fabs(ch->cf[k]);
			if (fabs(ch->c0[k]) > gtail)
				gtail = fabs(ch->c0[k]);
			if (fabs(ch->c1[k]) > gtail)
				gtail = fabs(ch->c1[k]);
		}
	return tail <= floor && gtail <= 10 * floor;
}

static int
cheb2_build(struct ctx *x, const double lo[2], const double hi[2], struct cheb2 **out,
            struct err *e)
{
	struct cheb2 *ch = calloc(1, sizeof *ch);
	double *v = NULL, *v0 = NULL, *v1 = NULL, *tmp = NULL;
	int n = 12;

	if (ch == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	memcpy(ch->lo, lo, sizeof ch->lo);
	memcpy(ch->hi, hi, sizeof ch->hi);
	for (;;) {
		size_t nn = (size_t)n * n;
		free(v), free(v0), free(v1), free(tmp);
		free(ch->cf), free(ch->c0), free(ch->c1);
		v = malloc(nn * sizeof *v);
		v0 = malloc(nn * sizeof *v0);
		v1 = malloc(nn * sizeof *v1);
		tmp = malloc(nn * sizeof *tmp);
		ch->cf = malloc(nn * sizeof *ch->cf);
		ch->c0 = malloc(nn * sizeof *ch->c0);
		ch->c1 = malloc(nn * sizeof *ch->c1);
		if (!v || !v0 || !v1 || !tmp || !ch->cf || !ch->c0 || !ch->c1) {
			err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (cheb2_sample(x, lo, hi, n, v, v0, v1, e) < 0)
			goto fail;
		ch->n = n;
		cheb2_coef(v, n, ch->cf, tmp);
		cheb2_coef(v0, n, ch->c0, tmp);
		cheb2_coef(v1, n, ch->c1, tmp);
		if (cheb2_converged(ch, n, x->Lbest) || n >= 32)
			break;
		n = n < 24 ? 24 : 32;
	}
	free(v), free(v0), free(v1), free(tmp);
	*out = ch;
	return 0;
fail:
	free(v), free(v0), free(v1), free(tmp);
	cheb2_free(ch);
	return -1;
}

static int
f_value2(struct ctx *x, double phi, double pen, struct fval2 *out, struct err *e)
{
	const struct cheb2 *ch = x->fphi2;

	if (phi < ch->lo[0] || phi > ch->hi[0] || pen < ch->lo[1] || pen > ch->hi[1])
		return f_exact2(x, phi, pen, out, e);
	double u = (2 * phi - ch->lo[0] - ch->hi[0]) / (ch->hi[0] - ch->lo[0]);
	double v = (2 * pen - ch->lo[1] - ch->hi[1]) / (ch->hi[1] - ch->lo[1]);
	double su = 2 / (ch->hi[0] - ch->lo[0]), sv = 2 / (ch->hi[1] - ch->lo[1]);
	double du, dv, g0u, g0v, g1u, g1v;
	cheb2_eval(ch->cf, ch->n, u, v, &out->F, &du, &dv);
	cheb2_eval(ch->c0, ch->n, u, v, &out->g[0], &g0u, &g0v);
	cheb2_eval(ch->c1, ch->n, u, v, &out->g[1], &g1u, &g1v);
	out->H[0] = g0u * su;
	out->H[1] = 0.5 * (g0v * sv + g1u * su);
	out->H[2] = g1v * sv;
	return 0;
}

/* G = F - M_c + L_c(t) at (phi, pen), with gradient and Hessian. */
static int
g2_eval(struct ctx *x, size_t c, double t, double phi, double pen, double *th, double *G,
        double g[2], double H[3], struct err *e)
{
	struct fval2 f;
	double mc[6] = {0, 0, 0, 0, 0, 0}, gc, hc, hp, hq, gl[5] = {0, 0, 0, 0, 0};

	if (f_value2(x, phi, pen, &f, e) < 0)
		return -1;
	if (x->m->sat[c] == FIT_FINITE && cond_max(x, c, phi, pen, th, mc, e) < 0)
		return -1;
	double Lc = cond_pass(x->m, c, t, phi, pen, 1, &gc, &hc, &hp, &hq, gl);
	*G = f.F - mc[0] + Lc;
	g[0] = f.g[0] - mc[1] + gl[0];
	g[1] = f.g[1] - mc[3] + gl[1];
	H[0] = f.H[0] - mc[2] + gl[2];
	H[1] = f.H[1] - mc[4] + gl[3];
	H[2] = f.H[2] - mc[5] + gl[4];
	return 0;
}

static double
cheb2_profile_cond(struct ctx *x, size_t c, double t, struct err *e, int *failed)
{
	double phi = x->warm.phi, pen = x->warm.pen;
	double th = x->m->sat[c] == FIT_FINITE ? x->best.th[c] : 0, G, g[2], H[3];

	if (g2_eval(x, c, t, phi, pen, &th, &G, g, H, e) < 0)
		goto fail;
	for (int it = 0; it < 100; it++) {
		double mg = fabs(g[0]) > fabs(g[1]) ? fabs(g[0]) : fabs(g[1]);
		if (mg <= x->tol_all)
			break;
		double det = H[0] * H[2] - H[1] * H[1], d0, d1;
		if (H[0] < 0 && det > 0) {
			d0 = (-g[0] * H[2] + g[1] * H[1]) / det;
			d1 = (-g[1] * H[0] + g[0] * H[1]) / det;
		} else {
			d0 = g[0];
			d1 = g[1];
		}
		double big = fabs(d0) > fabs(d1) ? fabs(d0) : fabs(d1);
		double alpha = big > 1 ? 1 / big : 1, slope = g[0] * d0 + g[1] * d1;
		double Gt, gt[2], Ht[3], tht;
		for (;;) {
			tht = th;
			if (g2_eval(x, c, t, phi + alpha * d0, pen + alpha * d1, &tht, &Gt, gt, Ht,
			            e) < 0)
				goto fail;
			if (mg < 1e-6 ||
			    Gt >= G + 1e-4 * alpha * slope - 1e-12 * (1 + fabs(x->Lbest)))
				break;
			alpha *= 0.5;
			if (alpha < 1e-12)
				break;
		}
		phi += alpha * d0;
		pen += alpha * d1;
		th = tht;
		G = Gt;
		memcpy(g, gt, sizeof gt);
		memcpy(H, Ht, sizeof Ht);
	}
	x->warm.phi = phi;
	x->warm.pen = pen;
	x->evals++;
	return -2 * G - x->q;
fail:
	*failed = 1;
	return NAN;
}

/* ---- driver ---- */

/* Directions in which the likelihood never falls (recession directions)
 * when the penalty is estimated.  Along a direction (dtheta, dphi, dpen)
 * a block's log-likelihood has asymptotic slope
 *     sum over outcomes of count * l_o  -  games * max_o l_o,
 * l_win = ds, l_draw = dphi + ds/2, l_loss = 0, ds = dtheta + sp dpen;
 * it never falls exactly when every observed outcome attains the max.
 * That confines ds of a color's games to an interval given dphi.  With
 * the earlier checks no such direction has dpen = 0, so scale dpen to +-1;
 * the constraints are then piecewise linear in dphi with kinks and
 * crossings only at 0, +-1/2, +-1, and the feasible dphi form a closed
 * interval, so trying those points and a few beyond decides it. */
enum { O_W = 1, O_D = 2, O_L = 4 };

static int
ds_range(int o, double dphi, double *lo, double *hi)
{
	*lo = -INFINITY;
	*hi = INFINITY;
	if (o == 0)
		return 1;
	if ((o & O_W) && (o & O_L)) {
		*lo = *hi = 0;
		return (o & O_D) ? dphi == 0 : dphi <= 0;
	}
	if (o == (O_W | O_D)) {
		*lo = *hi = 2 * dphi;
		return dphi >= 0;
	}
	if (o == (O_D | O_L)) {
		*lo = *hi = -2 * dphi;
		return dphi >= 0;
	}
	if (o == O_D) {
		*lo = -2 * dphi;
		*hi = 2 * dphi;
		return dphi >= 0;
	}
	if (o == O_W) {
		*lo = dphi > 0 ? 2 * dphi : 0;
		return 1;
	}
	*hi = dphi > 0 ? -2 * dphi : 0; /* O_L */
	return 1;
}

static int
penalty_recedes(const struct fit_model *m)
{
	static const double cand[] = {-8, -2, -1, -0.5, 0, 0.5, 1, 2, 8};

	for (int sgn = -1; sgn <= 1; sgn += 2) {
		for (size_t k = 0; k < sizeof cand / sizeof cand[0]; k++) {
			int all = 1;
			for (size_t c = 0; c < m->ncond && all; c++) {
				int ob = 0, ow = 0;
				if (m->sat[c] != FIT_FINITE)
					continue;
				for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
					int o = (m->w[b] > 0 ? O_W : 0) | (m->d[b] > 0 ? O_D : 0) |
					        (m->n[b] - m->w[b] - m->d[b] > 0 ? O_L : 0);
					if (m->sp[b] < 0)
						ob |= o;
					else
						ow |= o;
				}
				double bl, bh, wl, wh;
				/* dtheta = ds - sp dpen: Black sp = -1, White +1. */
				if (!ds_range(ob, cand[k], &bl, &bh) ||
				    !ds_range(ow, cand[k], &wl, &wh)) {
					all = 0;
					break;
				}
				double lo1 = bl + sgn, hi1 = bh + sgn, lo2 = wl - sgn,
				       hi2 = wh - sgn;
				double lo = lo1 > lo2 ? lo1 : lo2, hi = hi1 < hi2 ? hi1 : hi2;
				all = lo <= hi;
			}
			if (all)
				return 1;
		}
	}
	return 0;
}

/* Refuse what has no finite estimate; *no_draw when no game of a finite
 * condition is drawn (nu's estimate is then 0, on the boundary). */
static int
check_identified(const struct fit_model *m, const struct fit_spec *spec, int *no_draw,
                 struct err *e)
{
	size_t nfin = 0;
	int draws = 0, wl = 0, black = 0, white = 0, both = 0;

	for (size_t c = 0; c < m->ncond; c++) {
		if (m->sat[c] != FIT_FINITE)
			continue;
		nfin++;
		int cw = 0, cl = 0, cb = 0, cwh = 0;
		for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
			cw |= m->w[b] > 0;
			cl |= m->n[b] - m->w[b] - m->d[b] > 0;
			draws |= m->d[b] > 0;
			cb |= m->sp[b] < 0;
			cwh |= m->sp[b] > 0;
		}
		wl |= cw && cl;
		black |= cb;
		white |= cwh;
		both |= cb && cwh;
	}
	if (nfin == 0)
		return err_set(
		    e, ERR_INPUT,
		    "no condition has a finite rating: each is all wins, all losses or empty");
	*no_draw = !draws;
	if (!wl)
		return err_set(e, ERR_INPUT,
		               "the draw parameter has no finite estimate: no condition has both a "
		               "win and a loss");
	if (spec->estimate_pen && !(black && white))
		return err_set(
		    e, ERR_INPUT,
		    "\"black_penalty\": cannot be estimated: the games are all of one color");
	if (spec->estimate_pen && !both)
		return err_set(e, ERR_INPUT,
		               "\"black_penalty\": cannot be estimated: no condition has games of "
		               "both colors");
	if (spec->estimate_pen && penalty_recedes(m))
		return err_set(e, ERR_INPUT,
		               "\"black_penalty\": no finite estimate: the likelihood keeps rising "
		               "as the penalty grows without bound");
	return 0;
}

static void
ctx_release(struct ctx *x)
{
	free(x->act);
	free(x->best.th);
	free(x->trial.th);
	free(x->warm.th);
	free(x->tmp.th);
	free(x->ps.g);
	free(x->ps.h);
	free(x->ps.hphi);
	free(x->ps.hpen);
	free(x->dth);
	free(x->infodiag);
	free(x->tol);
	free(x->amin);
	free(x->amax);
	cheb_free(x->fphi);
	cheb2_free(x->fphi2);
}

static int
ctx_init(struct ctx *x, const struct fit_model *m, const struct fit_spec *spec, struct err *e)
{
	size_t k = m->ncond ? m->ncond : 1;

	memset(x, 0, sizeof *x);
	x->m = m;
	x->spec = spec;
	x->act = calloc(k, 1);
	x->best.th = calloc(k, sizeof(double));
	x->trial.th = calloc(k, sizeof(double));
	x->warm.th = calloc(k, sizeof(double));
	x->tmp.th = calloc(k, sizeof(double));
	x->ps.g = calloc(k, sizeof(double));
	x->ps.h = calloc(k, sizeof(double));
	x->ps.hphi = calloc(k, sizeof(double));
	x->ps.hpen = calloc(k, sizeof(double));
	x->dth = calloc(k, sizeof(double));
	x->infodiag = calloc(k, sizeof(double));
	x->tol = calloc(k, sizeof(double));
	x->amin = calloc(k, sizeof(double));
	x->amax = calloc(k, sizeof(double));
	if (!x->act || !x->best.th || !x->trial.th || !x->warm.th || !x->tmp.th || !x->ps.g ||
	    !x->ps.h || !x->ps.hphi || !x->ps.hpen || !x->dth || !x->infodiag || !x->tol ||
	    !x->amin || !x->amax) {
		ctx_release(x);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	double all = 0;
	for (size_t c = 0; c < m->ncond; c++) {
		double n = 0;
		x->amin[c] = INFINITY;
		x->amax[c] = -INFINITY;
		for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
			n += m->n[b];
			x->amin[c] = fmin(x->amin[c], m->a[b]);
			x->amax[c] = fmax(x->amax[c], m->a[b]);
		}
		x->tol[c] = grad_tol(n);
		all += n;
	}
	x->tol_all = grad_tol(all);
	return 0;
}

/* Starting values: pooled logistic score per condition, draw rate. */
static void
start_values(struct ctx *x)
{
	const struct fit_model *m = x->m;
	double N = 0, D = 0, pen = x->spec->pen;

	for (size_t c = 0; c < m->ncond; c++) {
		double n = 0, sc = 0, at = 0;
		for (size_t b = m->start[c]; b < m->start[c + 1]; b++) {
			n += m->n[b];
			sc += m->w[b] + 0.5 * m->d[b];
			at += m->n[b] * (m->a[b] - m->sp[b] * pen);
			if (m->sat[c] == FIT_FINITE) {
				N += m->n[b];
				D += m->d[b];
			}
		}
		x->act[c] = m->sat[c] == FIT_FINITE;
		double S = (sc + 0.5) / (n + 1);
		x->best.th[c] = x->act[c] ? at / n + log(S / (1 - S)) : NAN;
	}
	double pd = (D + 0.5) / (N + 1);
	x->best.phi = x->nu_zero ? -INFINITY : log(2 * pd / (1 - pd));
	x->best.pen = pen;
}

/* The MLE at x->best into r (ratings of inactive conditions NaN, every
 * interval NaN until profiled), with the Fisher information of each
 * rating and the profile information of phi and pen. */
static void
take_mle(struct ctx *x, struct fit_result *r)
{
	size_t K = x->m->ncond;

	x->Lbest = x->ps.L;
	r->loglik = x->Lbest;
	for (size_t c = 0; c < K; c++) {
		r->theta[c] = x->act[c] ? x->best.th[c] : NAN;
		r->lo[c] = r->hi[c] = r->bound[c] = NAN;
		x->infodiag[c] = -x->ps.h[c];
	}
	r->phi = x->best.phi;
	r->pen = x->best.pen;
	r->phi_lo = r->phi_hi = r->pen_lo = r->pen_hi = NAN;
	/* Profile information of phi and pen (Schur complements). */
	double S = x->ps.hpp, Sq = x->ps.hqq;
	for (size_t c = 0; c < K; c++)
		if (x->act[c]) {
			S -= x->ps.hphi[c] * x->ps.hphi[c] / x->ps.h[c];
			Sq -= x->ps.hpen[c] * x->ps.hpen[c] / x->ps.h[c];
		}
	x->info_phi = -S;
	x->info_pen = -Sq;
}

/* The draw parameter's profile interval into r->phi_lo and r->phi_hi. */
static int
profile_draw(struct ctx *x, struct fit_result *r, struct err *e)
{
	const struct fit_spec *spec = x->spec;

	if (x->nu_zero)
		return prof_nu_zero(x, &r->phi_lo, &r->phi_hi, e);
	if (spec->estimate_pen || spec->direct)
		return prof_both(x, PROF_PHI, 0, x->best.phi, x->info_phi, &r->phi_lo, &r->phi_hi,
		                 e);
	/* Interpolate F over the quadratic guess of nu's interval, find
	 * nu's ends on it (exactly where they fall outside), and rebuild
	 * around them if they come near its edges. */
	double w = x->info_phi > 0 ? sqrt(x->q / x->info_phi) : 1;
	double lo = x->best.phi - 1.6 * w, hi = x->best.phi + 1.6 * w;
	if (cheb_build(x, lo, hi, e) < 0)
		return -1;
	if (prof_both(x, PROF_PHI, 0, x->best.phi, x->info_phi, &r->phi_lo, &r->phi_hi, e) < 0)
		return -1;
	double pad = 0.05 * (hi - lo);
	if (!(r->phi_lo > lo + pad && r->phi_hi < hi - pad)) {
		lo = isfinite(r->phi_lo) ? r->phi_lo : x->best.phi - 3;
		hi = isfinite(r->phi_hi) ? r->phi_hi : x->best.phi + 3;
		pad = 0.25 * (hi - lo);
		cheb_free(x->fphi);
		x->fphi = NULL;
		if (cheb_build(x, lo - pad, hi + pad, e) < 0)
			return -1;
	}
	return 0;
}

/* With the penalty estimated: its profile interval into r->pen_lo and
 * r->pen_hi, then (unless direct or drawless) the interpolant of F over
 * both intervals, padded. */
static int
profile_pen(struct ctx *x, struct fit_result *r, struct err *e)
{
	const struct fit_spec *spec = x->spec;

	if (!spec->estimate_pen)
		return 0;
	if (prof_both(x, PROF_PEN, 0, x->best.pen, x->info_pen, &r->pen_lo, &r->pen_hi, e) < 0)
		return -1;
	if (spec->direct || x->nu_zero)
		return 0;
	double lo[2] = {r->phi_lo, r->pen_lo}, hi[2] = {r->phi_hi, r->pen_hi};
	double mid[2] = {x->best.phi, x->best.pen};
	for (int k = 0; k < 2; k++) {
		if (!isfinite(lo[k]))
			lo[k] = mid[k] - 3;
		if (!isfinite(hi[k]))
			hi[k] = mid[k] + 3;
		double pad = 0.25 * (hi[k] - lo[k]);
		lo[k] -= pad;
		hi[k] += pad;
	}
	return cheb2_build(x, lo, hi, &x->fphi2, e);
}

/* Each condition's profile interval, and a saturated one's exact bound. */
static int
profile_conditions(struct ctx *x, struct fit_result *r, struct err *e)
{
	const struct fit_model *m = x->m;

	for (size_t c = 0; c < m->ncond; c++) {
		int rc;
		if (m->sat[c] == FIT_EMPTY)
			continue;
		if (m->sat[c] == FIT_FINITE)
			rc = prof_both(x, PROF_COND, c, x->best.th[c], x->infodiag[c], &r->lo[c],
			               &r->hi[c], e);
		else if ((rc = prof_saturated(x, c, &r->lo[c], &r->hi[c], e)) == 0)
			rc = fit_exact_bound(m, c, x->best.phi, x->best.pen,
			                     (1 - x->spec->level) / 2, &r->bound[c], e);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
fit_solve_all(const struct fit_model *m, const struct fit_spec *spec, struct fit_result *r,
              struct err *e)
{
	struct ctx x;
	size_t K = m->ncond;
	int no_draw = 0;

	memset(r, 0, sizeof *r);
	if (check_identified(m, spec, &no_draw, e) < 0)
		return -1;
	if (ctx_init(&x, m, spec, e) < 0)
		return -1;
	x.nu_zero = no_draw;
	r->ncond = K;
	r->theta = malloc((K ? K : 1) * sizeof(double));
	r->lo = malloc((K ? K : 1) * sizeof(double));
	r->hi = malloc((K ? K : 1) * sizeof(double));
	r->bound = malloc((K ? K : 1) * sizeof(double));
	if (!r->theta || !r->lo || !r->hi || !r->bound) {
		ctx_release(&x);
		fit_result_release(r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	x.q = fit_chi2_quantile(spec->level);
	start_values(&x);
	if (solve(&x, &x.best, -1, 0, 0, &r->iterations, &r->max_gradient, e) < 0)
		goto fail;
	r->converged = 1;
	r->tolerance = x.tol_all;
	take_mle(&x, r);
	if (spec->profiles && (profile_draw(&x, r, e) < 0 || profile_pen(&x, r, e) < 0 ||
	                       profile_conditions(&x, r, e) < 0))
		goto fail;
	r->evaluations = x.evals;
	ctx_release(&x);
	return 0;
fail:
	ctx_release(&x);
	fit_result_release(r);
	return -1;
}

void
fit_result_release(struct fit_result *r)
{
	if (r == NULL)
		return;
	free(r->theta);
	free(r->lo);
	free(r->hi);
	free(r->bound);
	r->theta = r->lo = r->hi = r->bound = NULL;
}

double
fit_chi2_quantile(double level)
{
	return gsl_cdf_chisq_Pinv(level, 1.0);
}

struct fit_model *
fit_model_new(size_t ncond, const struct fit_block_in *b, size_t nb, struct err *e)
{
	struct fit_model *m = calloc(1, sizeof *m);
	size_t k = 0, *count;

	if (m == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	m->ncond = ncond;
	m->start = calloc(ncond + 1, sizeof *m->start);
	m->sat = calloc(ncond ? ncond : 1, sizeof *m->sat);
	count = calloc(ncond + 1, sizeof *count);
	m->a = malloc((nb ? nb : 1) * sizeof(double));
	m->sp = malloc((nb ? nb : 1) * sizeof(double));
	m->n = malloc((nb ? nb : 1) * sizeof(double));
	m->w = malloc((nb ? nb : 1) * sizeof(double));
	m->d = malloc((nb ? nb : 1) * sizeof(double));
	if (!m->start || !m->sat || !count || !m->a || !m->sp || !m->n || !m->w || !m->d) {
		free(count);
		fit_model_free(m);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	/* Counting sort by condition, stable: blocks keep their order. */
	for (size_t i = 0; i < nb; i++)
		if (b[i].w + b[i].d + b[i].l > 0)
			count[b[i].cond + 1]++;
	for (size_t c = 0; c < ncond; c++)
		count[c + 1] += count[c];
	for (size_t c = 0; c <= ncond; c++)
		m->start[c] = count[c];
	for (size_t i = 0; i < nb; i++) {
		if (b[i].w + b[i].d + b[i].l <= 0)
			continue;
		size_t j = count[b[i].cond]++;
		m->a[j] = b[i].anchor * FIT_LOG_PER_ELO;
		m->sp[j] = b[i].black ? -1 : 1;
		m->n[j] = (double)(b[i].w + b[i].d + b[i].l);
		m->w[j] = (double)b[i].w;
		m->d[j] = (double)b[i].d;
		k++;
	}
	m->nblock = k;
	free(count);
	for (size_t c = 0; c < ncond; c++) {
		double w = 0, l = 0, n = 0;
		for (size_t j = m->start[c]; j < m->start[c + 1]; j++) {
			n += m->n[j];
			w += m->w[j];
			l += m->n[j] - m->w[j] - m->d[j];
		}
		m->sat[c] = n == 0   ? FIT_EMPTY
		            : w == n ? FIT_SAT_UP
		            : l == n ? FIT_SAT_DOWN
		                     : FIT_FINITE;
	}
	return m;
}

void
fit_model_free(struct fit_model *m)
{
	if (m == NULL)
		return;
	free(m->start);
	free(m->sat);
	free(m->a);
	free(m->sp);
	free(m->n);
	free(m->w);
	free(m->d);
	free(m);
}
