/* davidson.h: the joint Davidson win/draw/loss likelihood, its Newton
 * solver and its profile-likelihood intervals.
 *
 * Units: inside this module ratings, anchors and the color penalty are in
 * natural-log strength units, theta = Elo * ln(10) / 400, and the draw
 * parameter is phi = ln(nu).  A game of condition c at anchor a is played
 * at s = theta_c + sp * pen - a, with sp = -1 for a Black game and +1 for a
 * White one, and
 *     P(win) = e^s / D,  P(draw) = e^(phi + s/2) / D,  P(loss) = 1 / D,
 *     D = e^s + 1 + e^(phi + s/2).
 *
 * Ownership: fit_model_new copies nothing it is not given; a struct
 * fit_model owns its arrays and fit_model_free releases them.  struct
 * fit_result is filled by fit_solve_all and released by fit_result_release.
 * Nothing here allocates a cJSON tree.
 */
#ifndef COHORT_DAVIDSON_H
#define COHORT_DAVIDSON_H

#include <stddef.h>

#include "../common/err.h"

/* Elo to log-strength units. */
#define FIT_LOG_PER_ELO 0.005756462732485115 /* ln(10) / 400 */
/* Convergence: max |gradient| in log-strength units; a gradient summed
 * over many games is allowed its rounding level, FIT_ROUND_PER_GAME per
 * game, where that is larger (from 100,000 games on). */
#define FIT_GRAD_TOL 1e-9
#define FIT_ROUND_PER_GAME 1e-14

/* The data of one fit: blocks grouped by condition. */
struct fit_model {
	size_t ncond;  /* conditions, in report order */
	size_t nblock; /* blocks with at least one game */
	size_t *start; /* ncond + 1: condition c owns blocks [start[c], start[c+1]) */
	double *a;     /* anchor, log-strength units */
	double *sp;    /* ds/dpen: -1 Black, +1 White */
	double *n;     /* games */
	double *w;     /* wins */
	double *d;     /* draws */
	int *sat;      /* per condition: FIT_FINITE, FIT_SAT_UP, FIT_SAT_DOWN, FIT_EMPTY */
};

enum {
	FIT_FINITE = 0,   /* a non-win and a non-loss: finite estimate */
	FIT_SAT_UP = 1,   /* all wins: the rating has no finite upper end */
	FIT_SAT_DOWN = 2, /* all losses: no finite lower end */
	FIT_EMPTY = 3     /* no game */
};

/* One block as given to fit_model_new (Elo units). */
struct fit_block_in {
	size_t cond;   /* index < ncond */
	double anchor; /* Elo */
	int black;     /* 1 Black, 0 White */
	long w, d, l;
};

/* Build a model; blocks with no game are dropped.  NULL on allocation
 * failure (e set). */
struct fit_model *fit_model_new(size_t ncond, const struct fit_block_in *b, size_t nb,
                                struct err *e);
void fit_model_free(struct fit_model *m);

/* What one fit asks for. */
struct fit_spec {
	double pen;       /* color penalty (log units); the start when estimated */
	int estimate_pen; /* estimate the penalty jointly */
	double level;     /* profile level in (0,1) */
	int profiles;     /* compute the profile intervals */
	int direct;       /* profiles by full re-optimisation at every point */
};

/* An interval end that is open is NAN. */
struct fit_result {
	size_t ncond;
	double *theta;   /* MLE per condition (NAN unless FIT_FINITE) */
	double *lo, *hi; /* profile interval per condition (NAN where open) */
	double *bound;   /* saturated conditions: the exact bound (fit_exact_bound); NAN else */
	double phi, phi_lo, phi_hi;
	double pen, pen_lo, pen_hi; /* pen_lo/hi NAN unless estimated */
	double loglik;
	int iterations;      /* Newton iterations of the main fit */
	double max_gradient; /* at the solution */
	double tolerance;    /* the largest gradient tolerance allowed (FIT_GRAD_TOL up to 1e5 games) */
	int converged;
	long evaluations; /* likelihood passes, all included */
};

#define FIT_RESULT_INIT                                                                            \
	{                                                                                          \
		0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0                      \
	}

/* Fit the model: MLE, then (if spec->profiles) every profile interval.
 * Refuses (ERR_INPUT) a cohort whose draw parameter or penalty has no finite
 * estimate; ERR_NUMERIC if the solver fails. */
int fit_solve_all(const struct fit_model *m, const struct fit_spec *spec, struct fit_result *r,
                  struct err *e);
void fit_result_release(struct fit_result *r);

/* The exact bound of a saturated condition c (all wins or all losses) at
 * nu = e^phi (phi = -inf: nu = 0) and penalty pen, log units: the rating at
 * which the chance that every one of its games goes as it went, at its
 * blocks' anchors and colors, is tail.  For all wins it is a lower bound
 * (that chance rises with the rating), for all losses an upper one: the
 * joint model's Clopper-Pearson end.  fit_solve_all uses tail = (1 -
 * level) / 2.  -1 (ERR_INPUT) when c is not saturated. */
int fit_exact_bound(const struct fit_model *m, size_t c, double phi, double pen, double tail,
                    double *theta, struct err *e);

/* The chi-square(1) quantile at level. */
double fit_chi2_quantile(double level);

#endif
