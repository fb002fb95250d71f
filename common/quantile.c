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

void
quantile7_two(double *v, size_t n, double qlo, double qhi, double *lo, double *hi)
{
	double hl = (double)(n - 1) * qlo, hh = (double)(n - 1) * qhi, heap[QUANTILE_HEAP];
	size_t il = (size_t)floor(hl), ih = (size_t)floor(hh);

	/* the heaps pay where both tails are short; elsewhere, selection */
	if (il + 2 > QUANTILE_HEAP || ih + 1 >= n || n - ih + 1 > QUANTILE_HEAP ||
	    4 * (il + 2 + n - ih + 1) > n) {
		*lo = quantile7(v, n, qlo);
		*hi = quantile7(v, n, qhi);
		return;
	}
	double a, b;
	smallest_two(v, n, il, 1, heap, &a, &b);
	*lo = a + (hl - (double)il) * (b - a);
	/* order statistics ih and ih + 1 are the largest's (n-1-ih)-th and
	 * (n-2-ih)-th: the smallest of -v's, negated (exactly) */
	smallest_two(v, n, n - 2 - ih, -1, heap, &b, &a);
	*hi = a + (hh - (double)ih) * (b - a);
}
