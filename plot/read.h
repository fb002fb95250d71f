/* read.h: reading the fields a plot needs from a document, every error
 * naming the document, the element and the field:
 *   fit.json: conditions[2] "rating": expected a number or null
 * (plot/'s own helpers; the documents' writers are elsewhere). */
#ifndef COHORT_PLOT_READ_H
#define COHORT_PLOT_READ_H

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "plot.h"

/* The document must be an object of this kind. */
int plot_read_kind(const struct plot_doc *d, const char *kind, struct err *e);
/* An array field of the document (or of obj); where names obj in messages
 * ("" for the document itself). */
int plot_read_array(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, const cJSON **out, struct err *e);
/* A string field; optional: absent gives NULL. */
int plot_read_string(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, int optional, const char **out, struct err *e);
/* A number field; nullable: null (or absent) gives *present 0. */
int plot_read_number(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, int nullable, double *out, int *present, struct err *e);
/* A whole number from 0 to 2^53 - 1. */
int plot_read_count(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, long long *out, struct err *e);
/* An interval [lo, hi] whose ends may be null; the field itself may be
 * null or absent (both ends absent). */
int plot_read_interval(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, double v[2], int present[2], struct err *e);

#endif
