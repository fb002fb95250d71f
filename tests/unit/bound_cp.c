/* bound_cp: the Clopper-Pearson interval of fit/bound.c against binomial
 * tail sums computed here by direct summation (no GSL), the closed forms
 * at x = 0 and x = n, and the half-point rule's monotonicity, for small n
 * and for n up to a billion.  Prints one line per failure; exits 1 on any. */
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

/* ln C(n, k): a product while k or n - k is small, where differences of
 * lgamma near 2e10 would keep only five digits. */
static double
log_choose(double n, double k)
{
	double s = 0, m = fmin(k, n - k);

	if (m > 1000)
		return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
	for (double i = 0; i < m; i++)
		s += log((n - i) / (i + 1));
	return s;
}

/* The sum of the terms of Binomial(n, p) from x away from its mode (up:
 * x, x + 1, ...; else x, x - 1, ...): the term at x, then the ratio of
 * neighbouring terms, until they stop counting. */
static double
sum_away(double x, double n, double p, int up)
{
	double t = exp(log_choose(n, x) + x * log(p) + (n - x) * log1p(-p)), s = 0;

	for (double j = x; up ? j <= n : j >= 0; j += up ? 1 : -1) {
		s += t;
		if (t == 0 || t < 1e-18 * s)
			break;
		t *= up ? (n - j) / (j + 1) * p / (1 - p) : j / (n - j + 1) * (1 - p) / p;
	}
	return s;
}

/* P(X >= x) (up) or P(X <= x) for X ~ Binomial(n, p), summed on the side
 * of x away from the mean (the other tail's complement otherwise). */
static double
tail_big(double x, double n, double p, int up)
{
	if (up)
		return x > n * p ? sum_away(x, n, p, 1) : 1 - sum_away(x - 1, n, p, 0);
	return x < n * p ? sum_away(x, n, p, 0) : 1 - sum_away(x + 1, n, p, 1);
}

/* The p where tail_big(x, n, p, up) is a, by bisection (the upper tail
 * grows with p, the lower one falls). */
static double
bisect(double x, double n, double a, int up)
{
	double lo = 0, hi = 1;

	for (int i = 0; i < 200; i++) {
		double mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if ((tail_big(x, n, mid, up) < a) == up)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

/* Large n: every end failed with GSL's beta quantiles ("beta quantile
 * failed for 5000 of 10000"), or did not return (5,000,000 of 10,000,000). */
static void
check_large(void)
{
	const double cases[][2] = { { 5000, 10000 }, { 4995, 9990 }, { 6000, 20000 },
		{ 15000, 50000 }, { 5e6, 1e7 }, { 1, 1e9 }, { 3, 1e6 }, { 1e6 - 3, 1e6 },
		{ 999999, 1e6 }, { 123457, 1e6 } };
	const double ns[] = { 1e3, 1e5, 1e7, 1e9 };
	char what[128];
	double lo, hi, a = 0.025;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double x = cases[i][0], n = cases[i][1], wl = bisect(x, n, a, 1),
		       wh = bisect(x, n, a, 0);
		int rc = bound_score_interval(x, n, 0.95, 0, &lo, &hi);
		snprintf(what, sizeof what, "%g of %g: lower end by bisection", x, n);
		expect(rc == 0 && fabs(lo - wl) <= 1e-9 * fmin(wl, 1 - wl) + 1e-15, what, lo, wl);
		snprintf(what, sizeof what, "%g of %g: upper end by bisection", x, n);
		expect(rc == 0 && fabs(hi - wh) <= 1e-9 * fmin(wh, 1 - wh) + 1e-15, what, hi, wh);
	}
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		double n = ns[i], r = -expm1(log(a) / n); /* 1 - a^(1/n) */
		bound_score_interval(0, n, 0.95, 0, &lo, &hi);
		snprintf(what, sizeof what, "0 of %g: upper end 1 - 0.025^(1/n)", n);
		expect(lo == 0 && fabs(hi - r) <= 1e-12 * r, what, hi, r);
		bound_score_interval(n, n, 0.95, 0, &lo, &hi);
		snprintf(what, sizeof what, "%g of %g: lower end 0.025^(1/n)", n, n);
		expect(hi == 1 && fabs(lo - pow(a, 1 / n)) <= 2e-16, what, lo, pow(a, 1 / n));
	}
	/* half-integer x at a million games: between its neighbours */
	double l0, h0, l1, h1;
	bound_score_interval(5e5, 1e6, 0.95, 0, &l0, &h0);
	bound_score_interval(5e5 + 0.5, 1e6, 0.95, 0, &lo, &hi);
	bound_score_interval(5e5 + 1, 1e6, 0.95, 0, &l1, &h1);
	expect(l0 < lo && lo < l1 && h0 < hi && hi < h1, "500000.5 of 1e6 between neighbours", lo,
	       l0);
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
	check_large();
	if (fails == 0)
		puts("bound_cp: all checks hold");
	return fails != 0;
}
