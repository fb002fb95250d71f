/* derive.h: every derived document kind, computed again from its input and
 * compared byte for byte.  The one table of derived kinds: verify and the
 * publication gate both ask it.
 *
 * Checks are appended to a caller's cJSON array (verify_check_add's form).
 */
#ifndef COHORT_DERIVE_H
#define COHORT_DERIVE_H

#include <cjson/cJSON.h>

#include "../common/err.h"

/* 1 when kind names a document this table derives again. */
int derive_known(const char *kind);

/* Compute doc (of kind, named name) again from input and append a "refit"
 * check.  0 when the bytes are the same, 1 when they differ or input cannot
 * give a document of this kind (a finding about the pair), -1 with e set
 * for a kind the table does not know. */
int derive_check(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    cJSON *checks, struct err *e);

#endif
