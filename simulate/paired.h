/* paired.h: `cohort simulate paired`: paired-position data with known
 * truth, for checking the paired diagnostics, the fit, the fingerprint and
 * the distance against what they should find.
 *
 * A design (cohort.sim-design/1) names the families and, per family, the
 * parameters of how it decides and how strong it is at each width.  From
 * it and a seed the simulation writes, into a folder:
 *   candidates.jsonl  a cohort.candidates/1 manifest of legal positions
 *                     (random playouts from the start), each with multipv
 *                     candidates scored 50 - gap j centipawns at rank j;
 *   spec.json         the cohort.spec/1 of those families and conditions;
 *   decisions-r<r>.jsonl  replication r's decisions: every family's, for
 *                     every width, position and order seed;
 *   ledger-r<r>.jsonl replication r's games: per family and width one
 *                     ladder of the spec's policy at the true R(k);
 * (a replication is a run of its own: one freeze each);
 * and returns the truth (cohort.sim-truth/1): every figure's exact
 * expectation under the design.
 *
 * The decision model, per family f, replication, width k (0: condition
 * none, the K = multipv candidates; else top<k>, K = k shown in the
 * permutation of its order seed): a decision is illegal with probability
 * illegal (no move, failure interface); otherwise with probability
 * first_bias (k > 0 only) it takes the first move shown; otherwise rank j
 * of the K with probability proportional to exp(-gap j / (T_k m)), where
 * T_k is the family's temperature at k and m is its opening's multiplier,
 * 1 - spread or 1 + spread with probability 1/2 each, drawn once per
 * family, replication and opening (shared by its widths and positions:
 * the features' covariance).  The truth averages over m exactly.
 *
 * Ownership: options are borrowed; the truth document is the caller's.
 */
#ifndef COHORT_SIMULATE_PAIRED_H
#define COHORT_SIMULATE_PAIRED_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/err.h"

struct simulate_paired_opts {
	const char *design; /* the cohort.sim-design/1 file */
	const char *dir;    /* the folder the data go to (it must exist) */
	uint64_t seed;
};

/* Write the data into o->dir (each file atomically) and return the truth
 * in *truth; nothing is written on an error. */
int simulate_paired_run(const struct simulate_paired_opts *o, cJSON **truth, struct err *e);

#endif
