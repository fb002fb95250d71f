/* beta.c: the regularized incomplete beta function and its inverse.
 *
 * I_q(a, b) = q^a (1 - q)^b / (a B(a, b)) times a continued fraction that
 * converges quickly below the mean (q < (a + 1)/(a + b + 2); above it,
 * I_q(a, b) = 1 - I_{1-q}(b, a)), evaluated by Lentz's method.  The
 * prefactor's logarithm is a difference of terms of size a ln q, 1e9 at a
 * billion games; written as Loader's saddle-point form of the binomial
 * density (Stirling's error terms and the deviance bd0, "Fast and accurate
 * computation of binomial probabilities", 2000) it is computed from terms
 * of its own size instead.  The quantile is Newton's method on the
 * logarithm of the tail asked for, started from the normal approximation
 * and kept inside a bracket that every evaluation narrows (a step outside
 * it bisects); the unknown is q or 1 - q, whichever is below 1/2, so that
 * its own digits are kept. */
#include "beta.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_cdf.h>

#define LN_2PI 1.8378770664093454836

/* ln Gamma(z + 1) - (z + 1/2) ln z + z - ln sqrt(2 pi), for z > 0. */
static double
stirling_error(double z)
{
	const double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680,
	             s4 = 1.0 / 1188;
	double zz = z * z;

	if (z <= 15)
		return lgamma(z + 1) - (z + 0.5) * log(z) + z - LN_2PI / 2;
	if (z > 500)
		return (s0 - s1 / zz) / z;
	if (z > 80)
		return (s0 - (s1 - s2 / zz) / zz) / z;
	if (z > 35)
		return (s0 - (s1 - (s2 - s3 / zz) / zz) / zz) / z;
	return (s0 - (s1 - (s2 - (s3 - s4 / zz) / zz) / zz) / zz) / z;
}

/* x ln(x / m) + m - x without cancellation when x is near m. */
static double
deviance(double x, double m)
{
	if (fabs(x - m) < 0.1 * (x + m)) {
		double v = (x - m) / (x + m), s = (x - m) * v, ej = 2 * x * v;
		v *= v;
		for (int j = 1; j < 100; j++) {
			double s1;
			ej *= v;
			s1 = s + ej / (2 * j + 1);
			if (s1 == s)
				break;
			s = s1;
		}
		return s;
	}
	return x * log(x / m) + m - x;
}

/* ln(q^a (1 - q)^b / B(a, b)): with n = a + b, (a b / n) times the
 * binomial density of a in n at q, in Loader's form. */
static double
log_prefactor(double q, double a, double b)
{
	double n = a + b;
	double lc = stirling_error(n) - stirling_error(a) - stirling_error(b) -
	            deviance(a, n * q) - deviance(b, n * (1 - q));

	return lc + 0.5 * (log(a) + log(b) - log(n) - LN_2PI);
}

/* The continued fraction of I_x(a, b), for x below the mean; x1 = 1 - x.
 * Its first term 1 - (a + b) x / (a + 1) is taken from x1 when x is
 * near 1, where the subtraction would lose x1's digits. */
static int
continued_fraction(double a, double b, double x, double x1, double *out)
{
	const double tiny = 1e-300;
	double c = 1, h;
	double d = x < 0.5 ? 1 - (a + b) * x / (a + 1) : (1 - b + (a + b) * x1) / (a + 1);
	long limit = 1000 + (long)(20 * sqrt(a + b));

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (long m = 1; m <= limit; m++) {
		double m2 = 2.0 * m, step[2];
		step[0] = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		step[1] = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		for (int k = 0; k < 2; k++) {
			d = 1 + step[k] * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + step[k] / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
		}
		if (fabs(d * c - 1) < 1e-15) {
			*out = h;
			return 0;
		}
	}
	return -1;
}

int
beta_log_tails(double q, double a, double b, double *log_lower, double *log_upper,
    double *log_f)
{
	double lp = log_prefactor(q, a, b), cf;

	*log_f = lp - log(q) - log1p(-q);
	if (q < (a + 1) / (a + b + 2)) {
		if (continued_fraction(a, b, q, 1 - q, &cf) < 0)
			return -1;
		*log_lower = lp + log(cf) - log(a);
		*log_upper = log1p(-exp(*log_lower));
	} else {
		if (continued_fraction(b, a, 1 - q, q, &cf) < 0)
			return -1;
		*log_upper = lp + log(cf) - log(b);
		*log_lower = log1p(-exp(*log_upper));
	}
	return 0;
}

/* A first q: the normal approximation, or where it leaves (0, 1) the
 * leading term of the tail it left by. */
static double
quantile_start(double p, double a, double b, int upper)
{
	double n = a + b, sd = sqrt(a * b / (n * n * (n + 1)));
	double z = gsl_cdf_ugaussian_Pinv(p), q = a / n + (upper ? -z : z) * sd;
	double lb = lgamma(a) + lgamma(b) - lgamma(n);

	if (q <= 0)
		q = exp((log(upper ? 1 - p : p) + log(a) + lb) / a);
	else if (q >= 1)
		q = -expm1((log(upper ? p : 1 - p) + log(b) + lb) / b);
	return fmin(fmax(q, DBL_MIN), 1 - DBL_EPSILON / 2);
}

/* A point strictly inside (lo, hi): geometric while the bracket spans
 * orders of magnitude, so that a tiny quantile is reached in few steps. */
static double
bracket_middle(double lo, double hi)
{
	if (lo > 0 && hi > 4 * lo)
		return sqrt(lo * hi);
	if (lo == 0)
		return hi / 16;
	return lo + (hi - lo) / 2;
}

/* Newton's method on ln of the tail, from q, inside a bracket. */
static int
solve(double p, double a, double b, int upper, double q, double *out)
{
	double lp = log(p), lo = 0, hi = 1;

	for (int it = 0; it < 400; it++) {
		double tails[2], lf, lt, next;
		if (beta_log_tails(q, a, b, &tails[0], &tails[1], &lf) < 0)
			return -1;
		lt = tails[upper];
		if (lt == lp) {
			*out = q;
			return 0;
		}
		/* the lower tail grows with q, the upper one falls */
		if ((lt < lp) != upper)
			lo = q;
		else
			hi = q;
		next = q - (lt - lp) / ((upper ? -1 : 1) * exp(lf - lt));
		if (!(next > lo && next < hi))
			next = bracket_middle(lo, hi);
		if (fabs(next - q) <= 2 * DBL_EPSILON * q || next <= lo || next >= hi) {
			*out = next;
			return 0;
		}
		q = next;
	}
	return -1;
}

int
beta_quantile(double p, double a, double b, int upper, double *q)
{
	double start = quantile_start(p, a, b, upper), r;

	if (start <= 0.5)
		return solve(p, a, b, upper, start, q);
	/* near 1: solve for 1 - q, the other tail of the mirrored shapes,
	 * which keeps 1 - q's own digits */
	if (solve(p, b, a, !upper, 1 - start, &r) < 0)
		return -1;
	*q = 1 - r;
	return 0;
}
