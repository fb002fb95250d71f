/* pairs.h: fit --pairs: the games of a freeze grouped into colour-reversed
 * pairs, the cluster-robust (sandwich) covariance of the joint Davidson
 * fit with a pair as the cluster, the model's own covariance (the inverse
 * of the observed information) beside it, and the pentanomial counts.
 *
 * The sandwich: with J the observed information at the maximum and u_k
 * the score of cluster k (a whole pair, or a game alone), V = G/(G - 1)
 * J^-1 (sum_k u_k u_k^T) J^-1 over the G clusters (CR1).  Only conditions
 * with a finite rating are parameters; a saturated condition's games add
 * nothing at the maximum (they are certain there).  J is an arrowhead
 * (each rating couples only with ln nu and the penalty), so both
 * covariances are kept as that structure and any entry is had in O(1)
 * after O(games) work: see pairs.c.
 *
 * Units as davidson.h's: log-strength, and phi = ln nu.
 * Ownership: fit_pairs_new returns a struct the caller frees with
 * fit_pairs_free; it borrows nothing from its inputs.
 */
#ifndef COHORT_FIT_PAIRS_H
#define COHORT_FIT_PAIRS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "davidson.h"

/* A covariance entry's index: a condition (0..ncond-1) or one of these. */
#define FIT_PAIRS_PHI (-1L)
#define FIT_PAIRS_PEN (-2L)

/* One (unit, anchor) cell of pentanomial counts: pairs by the model's
 * points over the two games, 0, 1/2, 1, 3/2, 2. */
struct fit_penta {
	size_t unit;
	double anchor;  /* Elo */
	long n[5];
	long games[3];  /* the pairs' games: losses, draws, wins */
};

struct fit_pairs;

/* The included games of a cohort.freeze/1 tree, each given to the unit
 * whose family and condition it has (units: nunit of them, family[u] and
 * condition[u]; family NULL when the units have none), grouped into
 * whole pairs (both games included, naming each other, of one unit,
 * anchor and opening, one of each colour) and games alone.  An input
 * error when the freeze names no pair (it has no "pairs" section) or a
 * game's fields are not a freeze's. */
struct fit_pairs *fit_pairs_new(const cJSON *freeze, size_t nunit, const char *const *family,
    const char *const *condition, struct err *e);
void fit_pairs_free(struct fit_pairs *p);

/* Counts: whole pairs, games alone, clusters (pairs + games alone). */
size_t fit_pairs_count(const struct fit_pairs *p, size_t *alone, size_t *clusters);
/* The pentanomial cells, by unit, then anchor. */
const struct fit_penta *fit_pairs_penta(const struct fit_pairs *p, size_t *n);

/* The covariances at the fit r of model m (the model the games belong
 * to: its conditions are the units), the penalty a parameter when
 * estimate_pen.  0, or -1 with e set (ERR_NUMERIC: an information matrix
 * that cannot be inverted). */
int fit_pairs_cov(struct fit_pairs *p, const struct fit_model *m, const struct fit_result *r,
    int estimate_pen, struct err *e);
/* An entry of the sandwich (robust) or of the inverse information
 * (model) covariance, log units; NAN where i or j is not a parameter (a
 * saturated condition, ln nu when nothing was drawn, a penalty assumed). */
double fit_pairs_robust(const struct fit_pairs *p, long i, long j);
double fit_pairs_model(const struct fit_pairs *p, long i, long j);

#endif
