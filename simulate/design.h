/* design.h: the one reader of a simulation design (cohort.sim-design/1).
 *
 * {"kind": "cohort.sim-design/1", "name": "...",
 *  "openings": 40, "positions_per_opening": 3, "multipv": 10, "gap_cp": 20,
 *  "widths": [0, 2, 5], "replications": 2, "order_seeds": 2,
 *  "nu": 1.02, "ladder": {...a cohort.spec/1 ladder; default below...},
 *  "families": [{"name": "alpha", "model": "alpha-1",
 *                "rating": [1500, 1650, 1750], "temperature": [40, 30, 20],
 *                "first_bias": 0.2, "spread": 0.5, "illegal": 0.02,
 *                "output_tokens": 200, "reasoning_tokens": 400,
 *                "latency_ms": 2000}]}
 * rating and temperature hold one number per width.  Unknown keys are
 * refused (a misspelt parameter would silently take its default).
 *
 * Ownership: a design borrows strings from the tree it was read from,
 * which the caller keeps until design_release; its families and ladder
 * are its own.
 */
#ifndef COHORT_SIMULATE_DESIGN_H
#define COHORT_SIMULATE_DESIGN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"

#define DESIGN_MAX_WIDTHS 16
#define DESIGN_MAX_FAMILIES 1000
#define DESIGN_MAX_MULTIPV 32

struct design_family {
	const char *name, *model;
	double rating[DESIGN_MAX_WIDTHS], temp[DESIGN_MAX_WIDTHS];
	double first_bias, spread, illegal, out_tok, reason_tok, latency_ms;
};

struct design {
	const char *name;
	long openings, per_opening, multipv, replications, order_seeds;
	double gap, nu;
	int widths[DESIGN_MAX_WIDTHS];
	size_t nwidths;
	cJSON *ladder; /* owned: the design's, or the default */
	struct design_family *fam; /* owned */
	size_t nfam;
};

/* Read doc (from the file name) into d; errors name the file and field. */
int design_read(const cJSON *doc, const char *name, struct design *d, struct err *e);
void design_release(struct design *d);

#endif
