/* part.h: partial documents of a sharded run (cohort.part/1) and the one
 * check and merge of a set of them (`cohort merge`).
 *
 * A run that outgrows one machine is cut into N shards (`--shard I/N`,
 * 1-based I).  Its work is a list of units numbered 0 .. total-1 (ladders
 * of a cell, bootstrap replicates, pairs); shard I computes the contiguous
 * slice part_slice gives and writes
 *   {"kind": "cohort.part/1", "of": "<the kind of the whole document>",
 *    "shard": [I, N], "key": "sha256:<canonical bytes of {of, settings}>",
 *    "settings": {...everything the whole document depends on...},
 *    "units": [{"unit": u, ...what unit u contributes...} ...]}
 * The settings hold the run's inputs and options (never its thread count),
 * so parts of one run, and only those, share a key.  Units carry their
 * sums as exact doubles (canonical numbers read back bit for bit), so the
 * merge adds them in the same order as one machine does and writes the
 * same bytes.
 *
 * A kind plugs in with one entry of a struct part_kind table: its "of"
 * and the function that builds the whole document from the settings and
 * every unit in order.
 *
 * Ownership: part_new returns a tree the caller owns; settings are copied.
 * part_merge returns the whole document in *out (the caller's); the units
 * handed to a kind's merge are borrowed and live until it returns.
 */
#ifndef COHORT_PART_H
#define COHORT_PART_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"

#define PART_KIND "cohort.part/1"
#define PART_MAX_SHARDS 100000

/* The shard a run computes; n == 0: the whole run on one machine. */
struct part_shard {
	long i, n;
};

/* "I/N" with 1 <= I <= N <= PART_MAX_SHARDS, or -1 with e set (ERR_USAGE,
 * the message naming opt). */
int part_shard_parse(const char *text, const char *opt, struct part_shard *s, struct err *e);

/* Shard s's units of total: [*lo, *hi), contiguous, every unit in exactly
 * one shard; the whole range when s->n == 0. */
void part_slice(size_t total, const struct part_shard *s, size_t *lo, size_t *hi);

/* The envelope of shard s of a run of kind of with these settings, with an
 * empty "units" array for the caller to fill (part_units_of). */
cJSON *part_new(const char *of, const struct part_shard *s, const cJSON *settings, struct err *e);
cJSON *part_units_of(cJSON *part);

/* A kind's merge: settings (the same in every part) and units[u] for every
 * u in [0, total), names[u] the file unit u came from (for messages); name
 * is the first part's file. */
struct part_kind {
	const char *of;
	/* the number of units the settings make; -1 with e set when they are
	 * malformed */
	long (*total)(const cJSON *settings, const char *name, struct err *e);
	int (*merge)(const cJSON *settings, const cJSON *const *units,
	    const char *const *names, size_t total, cJSON **out, struct err *e);
};

/* Read the parts at paths (every one strictly, as cohort.part/1), check
 * that they are shards 1..N of one run, each there once, with the same key
 * (which must be their settings' own), that each holds exactly its slice
 * of units in order, and build the whole document with the kind's merge.
 * Errors name the file and the field; a kind missing from kinds is one. */
int part_merge(const char *const *paths, size_t npaths, const struct part_kind *kinds,
    size_t nkinds, cJSON **out, struct err *e);

#endif
