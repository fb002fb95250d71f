/* beta.h: the regularized incomplete beta function I_q(a, b) and its
 * inverse, for exact Clopper-Pearson ends at any number of games.
 *
 * GSL's gsl_cdf_beta_Pinv gives NaN from a few thousand games on (5000 of
 * 10000) and does not return for millions; these keep their relative
 * accuracy (about 1e-12 in the tail) for shapes from 1/2 to 1e10.
 * Nothing here allocates or keeps state.
 */
#ifndef COHORT_BETA_H
#define COHORT_BETA_H

/* ln I_q(a, b), ln(1 - I_q(a, b)) and ln of the beta density at q, for
 * 0 < q < 1, a, b > 0.  Returns -1 when the continued fraction does not
 * converge (not seen for shapes up to 1e10). */
int beta_log_tails(double q, double a, double b, double *log_lower, double *log_upper,
    double *log_f);

/* The q in (0, 1) whose lower tail I_q(a, b) is p (upper: whose upper tail
 * 1 - I_q(a, b) is p), 0 < p < 1, to about an ulp of q or of 1 - q,
 * whichever is smaller.  Returns -1 when no q is found (a failure of
 * beta_log_tails, or more than 400 steps). */
int beta_quantile(double p, double a, double b, int upper, double *q);

#endif
