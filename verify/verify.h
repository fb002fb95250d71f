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

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"

/* jobs: threads that check the records, this one included; 0 for one
 * per online processor.  The report does not depend on it. */
int verify_freeze(const cJSON *freeze, const char *store_dir, int jobs, cJSON *checks,
    struct err *e);

/* The quick way for a freeze that holds (verify/fast.c): the document's
 * bytes p[0..n) equal, byte for byte, the manifest derived from every
 * record in the store, each canonical, and each pack's index lists exactly
 * its records, read on jobs threads as verify_freeze's.  0: it holds; checks got what verify_freeze gives a freeze
 * that holds, and id the document's identity.  1: not shown this way (the
 * caller then parses the document and calls verify_freeze, which names
 * what is wrong).  -1: out of memory. */
int verify_freeze_fast(const char *p, size_t n, const char *store_dir, int jobs, cJSON *checks,
    char id[HASH_ID_LEN + 1], struct err *e);

/* Append one check to checks; returns ok (so callers can count findings). */
int verify_check_add(cJSON *checks, const char *check, const char *subject, int ok,
    const char *detail);

#endif
