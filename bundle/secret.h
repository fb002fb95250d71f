/* secret.h: the credential scan of publication bundles.
 *
 * The scan reads bytes (any file: text, JSON, SQLite) and reports each
 * credential-looking value it finds: provider API keys, cloud keys,
 * code-host tokens, private key blocks, bearer and basic authorization
 * headers, passwords in URLs, and high-entropy values assigned to
 * secret-looking names.  Content identities ("sha256:..." and other hex
 * digests), UUIDs, numbers and base64 of printable text are not secrets.
 * A line holding "pragma: allowlist secret" is skipped.  The rules are listed
 * in docs/cohort-bundle.1.
 *
 * Ownership: nothing is allocated; a hit's strings are static or live in the
 * hit, and are valid only during the callback.  A value is never reported
 * whole: only its first characters and its length.
 */
#ifndef COHORT_SECRET_H
#define COHORT_SECRET_H

#include <stddef.h>

#include "../common/err.h"

struct secret_hit {
	long line;          /* 1-based line of the value */
	const char *rule;   /* e.g. "openai-api-key", "private-key" (static) */
	const char *action; /* what to do about it (static) */
	char masked[64];    /* first characters, an ellipsis and the length */
};

/* Called once per hit; a non-zero return stops the scan. */
typedef int (*secret_cb)(void *ctx, const struct secret_hit *hit);

/* Scan n bytes; returns the number of hits reported. */
long secret_scan(const char *p, size_t n, secret_cb cb, void *ctx);

/* Scan a whole file (memory-mapped); the number of hits, or -1 with e set. */
long secret_scan_file(const char *path, secret_cb cb, void *ctx, struct err *e);

#endif
