/* tables.h: the page's tables of documents (report/'s own). */
#ifndef COHORT_REPORT_TABLES_H
#define COHORT_REPORT_TABLES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../plot/svg.h"

/* The W-D-L, anchors, interval and saturation of each condition of fit,
 * under a heading naming meta's path and role. */
void tables_ratings(struct svg *s, const cJSON *meta, const cJSON *fit);
/* A cohort.verify/1 report's checks, a line each, after a one-line verdict. */
void tables_checks(struct svg *s, const cJSON *report);
/* bundle.json's items: role, path, kind, size, identities, derivation and
 * provenance. */
void tables_items(struct svg *s, const cJSON *items);

#endif
