/* tuple.h: the protocol tuple of a freeze's conditions, as a table
 * (report/'s own). */
#ifndef COHORT_REPORT_TUPLE_H
#define COHORT_REPORT_TUPLE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../protocol/games.h"
#include "../plot/svg.h"

/* The tuple of every (family, condition) of freeze, the ledger's fields
 * read from the store at store_dir (NULL: none); games, when not NULL,
 * holds freeze's included games (its "games" array not built); fit (or
 * NULL) gives the estimator's settings, harness (or NULL) the harness
 * items' commits. */
int tuple_section(struct svg *s, const cJSON *freeze, const struct freeze_games *games,
    const char *store_dir, const cJSON *fit, const char *harness, struct err *e);

#endif
