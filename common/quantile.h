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

#endif
