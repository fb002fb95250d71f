/* fppart.h: a fingerprint run cut into shards of bootstrap replicates
 * (`cohort fingerprint --shard I/N`) and its entry in `cohort merge`.
 *
 * Replicate r of a fingerprint draws from its own stream whatever range
 * it is computed in, and the document keeps every replicate's row, so a
 * shard computes the rows of its slice of the replicates and the merge
 * puts them back in order and summarizes them (fp_summarize), as the
 * whole run does.  A part's settings are the document of no replicate
 * (the estimates, inputs and settings: equal in every shard of one run,
 * hence its key); unit r holds row r of every fingerprint, in order.
 *
 * Ownership: documents returned are the caller's; inputs are borrowed.
 * (The distance's part functions live in distance.c, beside its pairs.)
 */
#ifndef COHORT_FPPART_H
#define COHORT_FPPART_H

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../protocol/part.h"
#include "fp.h"

/* Shard s of the run r: a cohort.part/1 of cohort.fingerprint/1. */
int fp_part(struct fp_run *r, const struct part_shard *s, cJSON **out, struct err *e);

/* The merge's entry (struct part_kind). */
long fp_part_total(const cJSON *settings, const char *name, struct err *e);
int fp_part_merge(const cJSON *settings, const cJSON *const *units, const char *const *names,
    size_t total, cJSON **out, struct err *e);

/* A distance cut into shards of its pairs (i < j in order, numbered
 * from 0): shard s computes its slice of them and writes a cohort.part/1
 * of cohort.distance/1 whose settings are the fingerprint documents
 * themselves (the distance depends on nothing else) and whose unit k is
 * pair k's figures, exactly, its per-replicate d2 included; the merge sets
 * the panel up from the documents again, takes every pair from its unit
 * and writes the test-retest and separation from them, as one run does. */
int fp_distance_part(const cJSON *const *docs, size_t ndocs, const struct fp_dist_opts *o,
    const struct part_shard *s, cJSON **out, struct err *e);
long fp_distance_part_total(const cJSON *settings, const char *name, struct err *e);
int fp_distance_part_merge(const cJSON *settings, const cJSON *const *units,
    const char *const *names, size_t total, cJSON **out, struct err *e);

#endif
