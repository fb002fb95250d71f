/* quantile_check.c: common/quantile.h against a sort, on samples with and
 * without ties, of every size from 1 to 60 and a few large ones, at the
 * levels intervals use and at both ends; quantile7_two at pairs of them,
 * on those samples, on them sorted either way (the heaps' worst
 * orders), and with the places a long sample's cuts are read from
 * (every n/128-th) holding its least or its greatest values or both
 * (cuts that gather too many or too few, so that the other way
 * answers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/quantile.h"

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The type-7 quantile of sorted s[0..n). */
static double
sorted_q(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)h;

	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

/* quantile7_two on v (a copy of sorted s in some order) at the pairs
 * intervals use and at the ends: the number that differ from a sort's. */
static long
pairs(double *v, const double *s, size_t n, int ties, long *runs)
{
	static const double ps[][2] = { { 0.025, 0.975 }, { 0.05, 0.95 }, { 0, 1 }, { 0.5, 0.5 },
		{ 0.001, 0.999 } };
	long bad = 0;

	for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
		double lo, hi, wl = sorted_q(s, n, ps[k][0]), wh = sorted_q(s, n, ps[k][1]);
		quantile7_two(v, n, ps[k][0], ps[k][1], &lo, &hi);
		++*runs;
		if (lo != wl || hi != wh) {
			if (bad++ < 5)
				printf("# quantile7_two n %zu ties %d at %g, %g: %.17g, %.17g; a sort gives "
				    "%.17g, %.17g\n", n, ties, ps[k][0], ps[k][1], lo, hi, wl, wh);
		}
	}
	return bad;
}

/* v: sorted s with its 128 least (end 0) or greatest (end 1) values,
 * or its 64 least and 64 greatest in turn (end 2), moved to the places
 * j * n / 128, the rest in order around them. */
static void
planted(double *v, const double *s, size_t n, int end)
{
	size_t j = 0, from = end == 0 ? 128 : end == 1 ? 0 : 64, lo = 0, hi = n - 128;

	if (end == 2)
		hi = n - 64;
	for (size_t i = 0; i < n; i++) {
		if (!(j < 128 && i == j * n / 128)) {
			v[i] = s[from++];
			continue;
		}
		v[i] = end == 0 || (end == 2 && j % 2 == 0) ? s[lo++] : s[hi++];
		j++;
	}
}

int
main(void)
{
	static const double qs[] = { 0, 0.025, 0.05, 0.5, 0.95, 0.975, 1 };
	static const size_t big[] = { 1000, 2000, 2001, 9999 };
	double *v = malloc(10000 * sizeof *v), *s = malloc(10000 * sizeof *s);
	double *u = malloc(10000 * sizeof *u);
	unsigned long x = 88172645463325252ul;
	long bad = 0, runs = 0;

	if (v == NULL || s == NULL || u == NULL)
		return 2;
	for (size_t t = 0; t < 60 + 4; t++) {
		size_t n = t < 60 ? t + 1 : big[t - 60];
		for (int ties = 0; ties < 2; ties++) {
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				s[i] = ties ? (double)(x % 7) : (double)(x >> 11) / 9007199254740992.0 - 0.5;
				u[i] = s[i];
			}
			memcpy(v, s, n * sizeof *v);
			qsort(s, n, sizeof *s, cmp);
			for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
				double want = sorted_q(s, n, qs[k]), got = quantile7(v, n, qs[k]);
				runs++;
				if (got != want) {
					if (bad++ < 5)
						printf("# n %zu ties %d q %g: %.17g, a sort gives %.17g\n", n, ties,
						    qs[k], got, want);
				}
			}
			memcpy(v, u, n * sizeof *v);
			bad += pairs(v, s, n, ties, &runs);
			memcpy(v, s, n * sizeof *v);
			bad += pairs(v, s, n, ties, &runs);
			for (size_t i = 0; i < n; i++)
				v[i] = s[n - 1 - i];
			bad += pairs(v, s, n, ties, &runs);
			for (int end = 0; n >= 1024 && end < 3; end++) {
				planted(v, s, n, end);
				bad += pairs(v, s, n, ties, &runs);
			}
		}
	}
	printf("%s quantile7 and quantile7_two equal a sort's type-7 quantiles (%ld cases, %ld "
	    "differ)\n",
	    bad ? "not ok" : "ok", runs, bad);
	free(v);
	free(s);
	free(u);
	return bad != 0;
}
