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

/* 1 when kind is an input that derived kinds are computed from and that
 * has nothing of its own to compute again (cohort.blocks/1). */
int derive_is_input(const char *kind);

/* Read an input document (of kind, named name) as the kinds derived from
 * it read it, and append an "input" check: 0 when it reads, 1 (a finding)
 * when it does not, -1 with e set for a kind that is not an input. */
int derive_input_check(const char *kind, const cJSON *doc, const char *name, cJSON *checks,
    struct err *e);

/* Where a derivation finds what its input document alone does not hold:
 * the object store of the freeze it derives from (paired reads decisions
 * there), NULL when there is none. */
struct derive_env {
	const char *store_dir;
};

/* Compute doc (of kind, named name) again from input and append a "refit"
 * check.  0 when the bytes are the same, 1 when they differ or input cannot
 * give a document of this kind (a finding about the pair), -1 with e set
 * for a kind the table does not know. */
int derive_check(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    const struct derive_env *env, cJSON *checks, struct err *e);

#endif
