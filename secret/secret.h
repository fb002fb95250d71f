/* secret.h: the credential scan of publication bundles.
 *
 * The rules are gitleaks' configuration format: the built-in ones
 * (secret/rules.toml, compiled into the program) and any added with
 * `cohort bundle --rules FILE`.  A rule is tried only where one of its
 * keywords occurs (case-insensitively); its regular expression then decides,
 * its entropy threshold and allowlists may set the match aside, and what is
 * left is a hit.  Before rules are tried the bytes are decoded: gzip, zstd,
 * xz and bzip2 streams, SQLite databases (every text and blob cell), UTF-16
 * text, JSON string escapes and base64 blobs that decode to text are
 * scanned as what they decode to.  docs/design.md has the details.
 *
 * Ownership: secret_rules_new and secret_rules_read return a rule set the
 * caller frees with secret_rules_free; scanning only reads it, and two
 * threads may scan with one rule set.  A hit lives only during its callback.
 * A value is never reported whole: only its first characters, an ellipsis
 * and its length.
 */
#ifndef COHORT_SECRET_H
#define COHORT_SECRET_H

#include <stddef.h>

#include "../common/err.h"

struct secret_rules;

/* Findings reported per rule and file by cohort bundle; the rest are counted. */
#define SECRET_CAP 20

/* The built-in rules, and with path not NULL the rules and allowlists of
 * that file added to them.  NULL with e set: ERR_INPUT naming FILE:LINE and
 * the field for a malformed file, ERR_IO, ERR_NOMEM. */
struct secret_rules *secret_rules_new(const char *path, struct err *e);

/* The rules of text[0..n) alone (name is used in messages), without the
 * built-in ones: for tests and fuzzing. */
struct secret_rules *secret_rules_read(const char *name, const char *text, size_t n,
    struct err *e);

void secret_rules_free(struct secret_rules *r);
size_t secret_rules_count(const struct secret_rules *r);
/* The id of rule i, or NULL past the end. */
const char *secret_rules_id(const struct secret_rules *r, size_t i);

struct secret_hit {
	long line;          /* 1-based line of the value; in a SQLite cell, the line in the cell */
	size_t rule_index;  /* which rule (0 .. secret_rules_count - 1) */
	const char *rule;   /* its id, e.g. "openai-api-key" (owned by the rule set) */
	const char *action; /* what to do about it (static) */
	char where[128];    /* "" in the file's own bytes, else how the value was reached:
	                     * "in the gzip stream", "after JSON unescaping", "in base64 text",
	                     * "in UTF-16LE text", "in table \"t\", rowid 3, column \"c\"" */
	long more;          /* 0, except in the one call after the scan for a rule that had
	                     * more than the cap: the hits not reported (line is then 0) */
	char masked[64];    /* first characters, an ellipsis and the length */
};

/* Called once per hit reported; a non-zero return stops the scan. */
typedef int (*secret_cb)(void *ctx, const struct secret_hit *hit);

struct secret_opts {
	long cap;    /* report at most this many hits per rule (0: all), then one call with more */
	int threads; /* 2: a large plain text is scanned in two halves at once */
	int plain;   /* for tests: the keyword prefilter without its AVX2 step (the same hits) */
};

/* Scan n bytes of the file named path (relative path in the bundle: the
 * rules' path filters and allowlists see it; may be NULL).  Hits are
 * reported in order.  Returns the number of hits (all of them, reported or
 * not), or -1 with e set: a compressed stream or database that cannot be
 * read (ERR_INPUT naming path), out of memory. */
long secret_scan(const struct secret_rules *r, const struct secret_opts *o, const char *path,
    const char *p, size_t n, secret_cb cb, void *ctx, struct err *e);

/* Scan a whole file (memory-mapped) as secret_scan does. */
long secret_scan_file(const struct secret_rules *r, const struct secret_opts *o,
    const char *path, secret_cb cb, void *ctx, struct err *e);

#endif
