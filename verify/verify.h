/* verify.h: re-checking a freeze against its object store.
 *
 * Checks are appended to a caller's cJSON array as
 * {"check": "...", "subject": "...", "ok": true|false, "detail": "..."}.
 * Return: 0 when every check holds, 1 when any finding was recorded (all of
 * them, not only the first), -1 with e set when the input cannot be read.
 */
#ifndef COHORT_VERIFY_H
#define COHORT_VERIFY_H

#include <cjson/cJSON.h>

#include "../common/err.h"

int verify_freeze(const cJSON *freeze, const char *store_dir, cJSON *checks, struct err *e);

/* Append one check to checks; returns ok (so callers can count findings). */
int verify_check_add(cJSON *checks, const char *check, const char *subject, int ok,
    const char *detail);

#endif
