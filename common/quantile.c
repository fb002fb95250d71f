/* quantile.c: type-7 quantiles by quickselect. */
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
