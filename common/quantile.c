/* quantile.c: type-7 quantiles by quickselect, and the two ends of an
 * interval by two bounded heaps. */
#include "quantile.h"

#include <math.h>

/* The k-th smallest of v[0..n) (v is reordered so that nothing after it
 * is smaller), by Hoare's selection: linear time. */
static double
select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double p = v[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				t = v[i], v[i] = v[j], v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

double
quantile7(double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q, a, b;
	size_t i = (size_t)floor(h);

	if (i >= n)
		i = n - 1;
	a = select_kth(v, n, i);
	if (i + 1 >= n)
		return a;
	/* the next order statistic is the least of those after the k-th */
	b = v[i + 1];
	for (size_t j = i + 2; j < n; j++)
		b = v[j] < b ? v[j] : b;
	return a + (h - (double)i) * (b - a);
}

/* The a-th and (a+1)-th smallest of sign * v[0..n) (a + 1 < n), by a
 * max-heap of the k = a + 2 smallest met so far: after the first k, most
 * values are compared once with its top and go, so two tails of a
 * bootstrap cost about two passes where two selections cost five. */
static void
smallest_two(const double *v, size_t n, size_t a, double sign, double *heap, double *x,
    double *y)
{
	size_t k = a + 2, m = 0;

	for (size_t i = 0; i < n; i++) {
		double w = sign * v[i];
		size_t j;
		if (m < k) { /* sift up */
			for (j = m++; j > 0 && heap[(j - 1) / 2] < w; j = (j - 1) / 2)
				heap[j] = heap[(j - 1) / 2];
			heap[j] = w;
			continue;
		}
		if (!(w < heap[0]))
			continue;
		for (j = 0;;) { /* sift down from the root, w replacing it */
			size_t c = 2 * j + 1;
			if (c >= k)
				break;
			if (c + 1 < k && heap[c + 1] > heap[c])
				c++;
			if (!(heap[c] > w))
				break;
			heap[j] = heap[c];
			j = c;
		}
		heap[j] = w;
	}
	/* the top is the (a+1)-th; the a-th is the larger of its children */
	*y = sign * heap[0];
	*x = sign * (k == 2 ? heap[1] : heap[1] > heap[2] ? heap[1] : heap[2]);
}

/* The order statistics r and r + 1 of v[0..m) (r + 1 < m) into *x, *y. */
static void
pair_at(double *v, size_t m, size_t r, double *x, double *y)
{
	*x = select_kth(v, m, r);
	*y = v[r + 1];
	for (size_t j = r + 2; j < m; j++)
		*y = v[j] < *y ? v[j] : *y;
}

/* A cut with about `want` of n values at or beyond it, from the order
 * statistic of a strided sample (a sample's rank overshoots on purpose:
 * a cut that gathers too few costs a second way). */
#define QUANTILE_SAMPLE 128
static double
cut_of(const double *v, size_t n, size_t want, int upper)
{
	double smp[QUANTILE_SAMPLE];
	size_t r = 3 * want * QUANTILE_SAMPLE / (2 * n) + 4;

	for (size_t j = 0; j < QUANTILE_SAMPLE; j++)
		smp[j] = v[j * n / QUANTILE_SAMPLE];
	return select_kth(smp, QUANTILE_SAMPLE, upper ? QUANTILE_SAMPLE - 1 - r : r);
}

/* Both tails in one pass: every value at or below the lower cut, and at
 * or above the upper, gathered without a branch; each gathered tail is
 * then all the values of its ranks, so its order statistics are the
 * sample's.  0, with v untouched, where a tail gathered too few or would
 * overflow its buffer (the sample misled: another way answers). */
static int
by_cuts(const double *v, size_t n, size_t il, size_t ih, double lo2[2], double hi2[2])
{
	double gl[2 * QUANTILE_HEAP], gh[2 * QUANTILE_HEAP];
	double tl = cut_of(v, n, il + 2, 0), th = cut_of(v, n, n - ih, 1);
	size_t ml = 0, mh = 0, i = 0;

	while (i < n) {
		/* room for a whole stride before each check */
		size_t end = n - i < 64 ? n : i + 64;
		if (ml + 64 > 2 * QUANTILE_HEAP || mh + 64 > 2 * QUANTILE_HEAP)
			return 0;
		for (; i < end; i++) {
			double w = v[i];
			gl[ml] = w, ml += w <= tl;
			gh[mh] = w, mh += w >= th;
		}
	}
	if (ml < il + 2 || mh < n - ih)
		return 0;
	pair_at(gl, ml, il, &lo2[0], &lo2[1]);
	pair_at(gh, mh, ih - (n - mh), &hi2[0], &hi2[1]);
	return 1;
}

void
quantile7_two(double *v, size_t n, double qlo, double qhi, double *lo, double *hi)
{
	double hl = (double)(n - 1) * qlo, hh = (double)(n - 1) * qhi, heap[QUANTILE_HEAP];
	size_t il = (size_t)floor(hl), ih = (size_t)floor(hh);
	double a, b, l2[2], h2[2];

	/* the heaps pay where both tails are short; elsewhere, selection */
	if (il + 2 > QUANTILE_HEAP || ih + 1 >= n || n - ih + 1 > QUANTILE_HEAP ||
	    4 * (il + 2 + n - ih + 1) > n) {
		*lo = quantile7(v, n, qlo);
		*hi = quantile7(v, n, qhi);
		return;
	}
	/* on long samples, cuts from a sample gather each tail in one pass
	 * that does not branch on the data; the heaps' pass does */
	if (n >= 8 * QUANTILE_SAMPLE && by_cuts(v, n, il, ih, l2, h2)) {
		*lo = l2[0] + (hl - (double)il) * (l2[1] - l2[0]);
		*hi = h2[0] + (hh - (double)ih) * (h2[1] - h2[0]);
		return;
	}
	smallest_two(v, n, il, 1, heap, &a, &b);
	*lo = a + (hl - (double)il) * (b - a);
	/* order statistics ih and ih + 1 are the largest's (n-1-ih)-th and
	 * (n-2-ih)-th: the smallest of -v's, negated (exactly) */
	smallest_two(v, n, n - 2 - ih, -1, heap, &b, &a);
	*hi = a + (hh - (double)ih) * (b - a);
}
