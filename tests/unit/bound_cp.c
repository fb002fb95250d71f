/* bound_cp: the Clopper-Pearson interval of fit/bound.c against binomial
 * tail sums computed here by direct summation (no GSL), the closed forms
 * at x = 0 and x = n, and the half-point rule's monotonicity.  Prints one
 * line per failure; exits 1 on any. */
#include <math.h>
#include <stdio.h>

#include "../../fit/bound.h"

static int fails;

static void
expect(int ok, const char *what, double got, double want)
{
	if (!ok) {
		printf("FAIL %s: got %.12g want %.12g\n", what, got, want);
		fails++;
	}
}

/* P(X >= k) for X ~ Binomial(n, p), by summing terms. */
static double
tail_ge(int k, int n, double p)
{
	double s = 0;

	for (int j = k; j <= n; j++)
		s += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) + j * log(p) +
		         (n - j) * log1p(-p));
	return s;
}

int
main(void)
{
	double lo, hi;
	char what[128];

	/* 10 wins of 10: two-sided 95% lower end is 0.025^(1/10) = 0.6915. */
	bound_score_interval(10, 10, 0.95, 0, &lo, &hi);
	expect(fabs(lo - pow(0.025, 0.1)) < 1e-12 && hi == 1, "10 of 10 two-sided", lo,
	       pow(0.025, 0.1));
	expect(fabs(lo - 0.6915) < 1e-4, "10 of 10 is 69.2%", lo, 0.6915);
	bound_score_interval(10, 10, 0.95, 1, &lo, &hi);
	expect(fabs(lo - pow(0.05, 0.1)) < 1e-12, "10 of 10 one-sided", lo, pow(0.05, 0.1));
	bound_score_interval(0, 10, 0.95, 0, &lo, &hi);
	expect(lo == 0 && fabs(hi - (1 - pow(0.025, 0.1))) < 1e-12, "0 of 10", hi,
	       1 - pow(0.025, 0.1));
	/* The rating implied at 2420 with +35: near 2595. */
	bound_score_interval(10, 10, 0.95, 0, &lo, &hi);
	expect(fabs(bound_rating(2420, bound_correction(1, 35), lo) - 2595.2) < 0.1,
	       "10-0-0 at 2420 lower rating bound", bound_rating(2420, 35, lo), 2595.2);
	expect(fabs(bound_rating(1320, bound_correction(1, 35), 0.25) - 1164.15) < 0.01,
	       "0-5-5 at 1320 shortcut", bound_rating(1320, 35, 0.25), 1164.15);
	expect(bound_correction(0, 35) == -35, "White correction", bound_correction(0, 35), -35);

	/* Integer x: the ends solve the binomial tail equations. */
	for (int n = 1; n <= 40; n++)
		for (int x = 0; x <= n; x++) {
			const double levels[] = {0.8, 0.95, 0.99};
			for (int k = 0; k < 3; k++) {
				double a = (1 - levels[k]) / 2;
				bound_score_interval(x, n, levels[k], 0, &lo, &hi);
				snprintf(what, sizeof what, "x=%d n=%d level=%g lower", x, n,
				         levels[k]);
				if (x > 0)
					expect(fabs(tail_ge(x, n, lo) - a) < 1e-9, what,
					       tail_ge(x, n, lo), a);
				snprintf(what, sizeof what, "x=%d n=%d level=%g upper", x, n,
				         levels[k]);
				if (x < n)
					expect(fabs(1 - tail_ge(x + 1, n, hi) - a) < 1e-9, what,
					       1 - tail_ge(x + 1, n, hi), a);
			}
		}
	/* Half-integer x lies between its integer neighbours. */
	for (int n = 1; n <= 30; n++)
		for (int x = 0; x < n; x++) {
			double l0, h0, l1, h1;
			bound_score_interval(x, n, 0.95, 0, &l0, &h0);
			bound_score_interval(x + 0.5, n, 0.95, 0, &lo, &hi);
			bound_score_interval(x + 1, n, 0.95, 0, &l1, &h1);
			snprintf(what, sizeof what, "x=%d.5 n=%d between neighbours", x, n);
			expect(l0 < lo && lo < l1 && h0 < hi && hi < h1 && lo < (x + 0.5) / n &&
			           (x + 0.5) / n < hi,
			       what, lo, l0);
		}
	if (fails == 0)
		puts("bound_cp: all checks hold");
	return fails != 0;
}
