/* bound.h: exact score bounds per block and per condition (`cohort bound`),
 * and the reader of a cohort's blocks that `bound` and `ladder next` share.
 *
 * Ownership: a struct blocks borrows strings and the spec from the
 * cJSON tree it was read from (the tree must outlive it) and owns only its
 * block array, which bound_cohort_release frees.  Documents returned through
 * `cJSON **out` belong to the caller (cJSON_Delete).
 *
 * Draws count as half points: a block of n games with w wins and d draws
 * has x = w + d/2 successes.  The Clopper-Pearson interval is written with
 * beta quantiles, which are defined for a non-integer x as well:
 *   lower = B^-1(a; x, n - x + 1)   (0 when x = 0)
 *   upper = B^-1(1 - a; x + 1, n - x) (1 when x = n)
 * with a = (1 - level)/2 two-sided, a = 1 - level one-sided.  For integer x
 * this is the exact binomial interval; for half-integer x it interpolates
 * between the intervals of its two integer neighbours.  The quantiles come
 * from beta.h, accurate up to a billion games.
 */
#ifndef COHORT_BOUND_H
#define COHORT_BOUND_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "../protocol/blocks.h"

/* Elo per natural-log unit of strength: rating difference 400 log10(x). */
#define BOUND_ELO_PER_NAT (400.0 / 2.302585092994045684)

/* Read the blocks of a cohort.freeze/1 or a cohort.blocks/1 with the one
 * blocks reader (protocol/blocks.h), refusing a cohort with no block.  id:
 * doc's identity when the caller has it from this tree (blocks_read_id),
 * else NULL. */
int bound_blocks_read(const cJSON *doc, const char *name, const char *id, struct blocks *c,
    struct err *e);

/* The color correction added to a shortcut rating: +penalty for Black,
 * -penalty for White (a Black game is played at R - penalty). */
double bound_correction(int black, double penalty);

/* Exact interval for x successes in n trials at level (one-sided: each end
 * is a one-sided bound at level).  Returns -1 when a quantile is not
 * found (not seen for n up to 1e10). */
int bound_score_interval(double x, double n, double level, int one_sided, double *lo, double *hi);

/* anchor + correction + 400 log10(s / (1 - s)): -inf at 0, +inf at 1. */
double bound_rating(double anchor, double correction, double s);

struct bound_options {
	double level;  /* in (0, 1); default 0.95 */
	int one_sided; /* one-sided bounds instead of a two-sided interval */
};

/* The cohort.bound/1 document of blocks read by bound_blocks_read. */
int bound_document(const struct blocks *c, const struct bound_options *o, cJSON **out,
                   struct err *e);

/* A human table of a cohort.bound/1 document, appended to out. */
int bound_table(const cJSON *doc, struct buf *out, struct err *e);


/* Compute a cohort.bound/1 again from input (named name in messages, of
 * identity input_id when known, else NULL) with the options doc records;
 * *same is 1 when the bytes are doc's. */
int bound_refit_check(const cJSON *doc, const cJSON *input, const char *input_id,
    const char *name, int *same, struct err *e);

#endif
