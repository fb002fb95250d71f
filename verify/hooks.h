/* hooks.h: what verify needs from the other modules: bundle archives and
 * bags, and re-computing derived documents (fit, bound). */
#ifndef COHORT_VERIFY_HOOKS_H
#define COHORT_VERIFY_HOOKS_H

#include <cjson/cJSON.h>

#include "../common/err.h"

/* Verify a bundle archive or a BagIt folder: 0, 1 or -1. */
int verify_hook_bundle(const char *path, cJSON *checks, struct err *e);
/* Re-compute a derived document of kind from input and compare bytes. */
int verify_hook_derived(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    cJSON *checks, struct err *e);

#endif
