/* quantile.h: a quantile of a sample by selection, not sorting.
 *
 * Bootstrap intervals take two quantiles of thousands of replicates for
 * every cell, effect and pair; sorting each sample was most of their cost.
 * The value is Hyndman and Fan's type 7 (R's default): linear interpolation
 * between the order statistics at (n - 1) q, the same value a sort gives.
 */
#ifndef COHORT_QUANTILE_H
#define COHORT_QUANTILE_H

#include <stddef.h>

/* The q-quantile (0 <= q <= 1) of v[0..n), n > 0, no NaN; v is
 * reordered (it stays a permutation of itself). */
double quantile7(double *v, size_t n, double q);
/* quantile7 at qlo and at qhi (the same bits) into *lo and *hi, as an
 * interval's two ends: where both tails are a small part of the sample,
 * by one bounded heap for each, else by selection (which may reorder v,
 * as quantile7 does). */
#define QUANTILE_HEAP 512
void quantile7_two(double *v, size_t n, double qlo, double qhi, double *lo, double *hi);

#endif
