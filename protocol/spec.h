/* spec.h: the cohort spec (cohort.spec/1), read once into a struct.
 *
 * Every command that reads a spec (freeze, ladder next, ladder simulate,
 * the publication gate through freeze) reads it here, so one rule decides
 * what a spec may hold.  The limits shared with the blocks reader (the
 * Black penalty) are in rules.h.
 *
 * Ownership: a struct spec borrows its strings and sub-objects from the
 * cJSON tree it was read from, which must outlive it; the arrays are its
 * own and spec_release frees them.
 */
#ifndef COHORT_SPEC_H
#define COHORT_SPEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../common/ts.h"
#include "ladder.h"

struct spec_name {
	const char *p;
	size_t len, i;            /* its length, its index in the spec's order */
};

enum spec_color { SPEC_COLOR_ANY = -1, SPEC_COLOR_WHITE = 0, SPEC_COLOR_BLACK = 1 };

struct spec {
	const cJSON *doc;         /* the document read (borrowed) */
	const char *name;         /* "name" */
	const char *as_of_text;   /* "as_of" as written */
	struct ts as_of;          /* the cut */
	size_t nfamilies, nconds;
	const char **families;    /* in the spec's order (owned array) */
	const char **conds;
	size_t *famlen, *condlen; /* their lengths */
	/* the families by length, then bytes: spec_family's binary search
	 * (a spec may name thousands, and every record asks) */
	struct spec_name *famsorted;
	enum spec_color color;    /* the model's colour, or any when absent */
	double black_penalty;     /* Elo a Black game costs; 35 when absent */
	int have_penalty;         /* "black_penalty" was given */
	struct ladder_policy ladder;
	const cJSON *protocol;    /* "protocol", or NULL */
	const char *opening_suite; /* "opening_suite": the identity of the frozen
	                            * opening suite (protocol/openings.h) the
	                            * games' "opening" names, or NULL */
};

#define SPEC_INIT { 0 }

/* Read and check doc as a cohort.spec/1.  Errors name the field, e.g.
 * `"ladder": "max": expected a number`; the caller prefixes the file.  On
 * failure s is left released. */
int spec_read(const cJSON *doc, struct spec *s, struct err *e);
void spec_release(struct spec *s);

/* The index of a family or condition name of n bytes, or -1. */
long spec_family(const struct spec *s, const char *name, size_t n);
long spec_condition(const struct spec *s, const char *name, size_t n);

#endif
