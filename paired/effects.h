/* effects.h: the effects of cohort.paired/1's cells: how recall and
 * exact regret differ by side to move (colour: white minus black), by
 * phase, by the position's kind (stratum: tactical, ambiguous, quiet) and
 * by order seed (order: over the positions and contexts shown under two
 * seeds or more, as the order-change probability's pairs); the last three
 * as the range, the largest level
 * mean minus the smallest.  Each level's means and each effect carry a
 * percentile interval from the cell's own opening-block bootstrap: the
 * same streams and draws as its other figures.  docs/cohort-paired.1
 * defines each figure.
 */
#ifndef COHORT_PAIRED_EFFECTS_H
#define COHORT_PAIRED_EFFECTS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../json/json.h"
#include "collect.h"

struct paired_effects_opts {
	long replicates;
	uint64_t seed;
	double level;
};

/* The "effects" object of cell ci of d; NULL (k->oom set) out of memory. */
cJSON *paired_effects_json(const struct paired_data *d, size_t ci,
    const struct paired_effects_opts *o, struct json_bld *k);

#endif
