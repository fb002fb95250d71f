/* fit.h: `cohort fit` as a library: read a cohort.freeze/1 or
 * cohort.blocks/1 document, fit the joint Davidson model (davidson.h) and
 * build the cohort.fit/1 document; print it as a table; re-fit a fit
 * document and compare bytes.
 *
 * Ownership: input trees are borrowed and never modified; *out trees are
 * the caller's, released with cJSON_Delete.  Errors: ERR_INPUT for bad
 * input (messages name the field, e.g. `blocks[3]: "w": expected ...`;
 * the caller prefixes the file name), ERR_USAGE for bad options,
 * ERR_NUMERIC when a solver fails.
 */
#ifndef COHORT_FIT_H
#define COHORT_FIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

#define FIT_ESTIMATOR "davidson-joint/1"
#define FIT_DEFAULT_PENALTY 35.0
#define FIT_DEFAULT_LEVEL 0.95
#define FIT_MAX_SENS 64

struct fit_options {
	double level;     /* profile level, in (0,1) */
	int estimate;     /* estimate the black penalty jointly */
	int have_penalty; /* penalty given here; else the input's, else 35 */
	double penalty;   /* Elo, when have_penalty */
	size_t nsens;     /* assumed penalties of the sensitivity table */
	double sens[FIT_MAX_SENS];
	int direct; /* profiles by full re-optimisation (a test aid) */
	int pairs;  /* pair-aware intervals and the pentanomial counts of a
	             * freeze's colour-reversed pairs (fit/pairs.h); the
	             * penalty is then estimated unless given */
	const char *name; /* the input's name in messages; NULL: "input" */
	const char *input_id; /* the input's identity when known, else NULL */
};

/* Defaults: level 0.95, penalty from the input, sensitivity 0,35,70. */
void fit_options_init(struct fit_options *o);

/* Options from command-line text; NULL leaves the default.  penalty is a
 * number or "estimate"; sensitivity a comma-separated list of numbers.
 * Errors (ERR_USAGE) name the option. */
int fit_options_parse(struct fit_options *o, const char *level, const char *penalty,
                      const char *sensitivity, struct err *e);

/* Options from the "options" object of a cohort.fit/1 document (or the
 * same keys given to fit_document): "level", "black_penalty" (number or
 * "estimate"), "sensitivity" (array of numbers), "pairs" (true); absent
 * keys keep the defaults. */
int fit_options_read(const cJSON *options, struct fit_options *o, struct err *e);

/* Fit input (a cohort.freeze/1 or cohort.blocks/1 tree) and build the
 * cohort.fit/1 document in *out. */
int fit_run(const cJSON *input, const struct fit_options *o, cJSON **out, struct err *e);

/* The same with options given as a JSON object (NULL: defaults). */
int fit_document(const cJSON *input, const cJSON *options, cJSON **out, struct err *e);

/* Re-fit input with the options recorded in fitdoc and compare canonical
 * bytes: *same is 1 when they are identical.  An error only when the
 * re-fit itself cannot run. */
int fit_refit_check(const cJSON *fitdoc, const cJSON *input, const char *input_id, int *same,
    struct err *e);

/* The human table of a cohort.fit/1 document: condition, games, W-D-L,
 * tested anchors, joint local Elo, profile interval; then the draw
 * parameter, the penalty and the sensitivity rows.  Appends to out. */
int fit_table(const cJSON *fitdoc, struct buf *out, struct err *e);

#endif
