/* json.h: the strict JSON reader and the one canonical (RFC 8785) writer.
 *
 * Trees are cJSON trees.  json_parse returns a tree the caller owns and
 * releases with cJSON_Delete.  The writer never allocates a tree; it appends
 * bytes to a caller's struct buf.
 *
 * Reading is stricter than cJSON's own parser: RFC 8259 grammar only,
 * well-formed UTF-8 only (no byte-order mark), no lone surrogate escapes,
 * no duplicate keys, numbers must be finite doubles, no data after the
 * value, nesting at most JSON_MAX_DEPTH.  Errors read
 * "NAME:LINE:COLUMN: what" (columns count bytes from 1).
 *
 * U+0000 cannot live in a C string, so inside trees it is held as the
 * two bytes C0 80 (as in Java's modified UTF-8); the writer turns them back
 * into \u0000.  The reader never lets those bytes in from outside.
 */
#ifndef COHORT_JSON_H
#define COHORT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"

#define JSON_MAX_DEPTH 256

/* Parse len bytes named name; line numbers in messages start at first_line. */
cJSON *json_parse(const char *p, size_t len, const char *name, long first_line,
    struct err *e);
/* Read and parse a whole file ("-" for stdin). */
cJSON *json_parse_file(const char *path, struct err *e);

/* Where each value of a parsed tree begins, so that a reader that checks
 * what the values mean can still name the line ("prereg.json:7: ...").
 * The nodes are borrowed from the tree, which must outlive the map. */
struct json_line {
	const cJSON *node;
	long line;
};
struct json_lines {
	struct json_line *at; /* one per value, in document order */
	size_t n, cap;
};
#define JSON_LINES_INIT { NULL, 0, 0 }

/* json_parse and json_parse_file, also filling *lines (emptied first). */
cJSON *json_parse_lines(const char *p, size_t len, const char *name, long first_line,
    struct json_lines *lines, struct err *e);
cJSON *json_parse_file_lines(const char *path, struct json_lines *lines, struct err *e);
/* The line v begins on, or 0 when the map does not hold it (l may be NULL). */
long json_line(const struct json_lines *l, const cJSON *v);
void json_lines_release(struct json_lines *l);

/* Append the canonical bytes of v.  Fails on a non-finite number, a
 * duplicate key or a string that is not UTF-8. */
int canon_write(const cJSON *v, struct buf *out, struct err *e);
/* Append one string in canonical form: quoted, with RFC 8785's escapes
 * (C0 80 back to \u0000).  Fails when s is NULL or not UTF-8. */
int canon_string(const char *s, struct buf *out, struct err *e);
/* Canonical bytes, then their SHA-256. */
int canon_digest(const cJSON *v, struct buf *scratch, uint8_t d[HASH_LEN], struct err *e);
/* Canonical bytes, then "sha256:<hex>" into id. */
int canon_id(const cJSON *v, char id[HASH_ID_LEN + 1], struct err *e);
/* The ECMAScript Number::toString form of a finite double (at most 32 bytes
 * with the NUL). */
void canon_number(double x, char out[32]);
/* Compare two UTF-8 strings by their UTF-16 code units (RFC 8785 key order). */
int canon_keycmp(const char *a, const char *b);

/* Round x to the nearest multiple of step (0.01 for ratings, 1e-6 for
 * probabilities), halves away from zero, and never return -0. */
double json_round(double x, double step);

/* Typed field access.  Keys are compared case-sensitively.  Each returns 0
 * and stores the value; 1 when the field is absent and !required; -1 with
 * e set to `"key": expected ...` otherwise. */
const cJSON *json_get(const cJSON *obj, const char *key);

/* A document built member by member: a member that could not be made or
 * added is freed and remembered (oom), so a builder checks once, at the
 * end, instead of after every call. */
struct json_bld {
	int oom;
};
void json_bld_put(struct json_bld *k, cJSON *o, const char *key, cJSON *v);
void json_bld_push(struct json_bld *k, cJSON *a, cJSON *v);
int json_get_string(const cJSON *obj, const char *key, int required, const char **out, struct err *e);
int json_get_number(const cJSON *obj, const char *key, int required, double *out, struct err *e);
/* An integral number within [lo, hi]. */
int json_get_int(const cJSON *obj, const char *key, int required, long long lo, long long hi,
    long long *out, struct err *e);
int json_get_object(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e);
int json_get_array(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e);

/* Builders that check allocation: they return the added item or NULL. */
cJSON *json_add_string(cJSON *obj, const char *key, const char *s);
cJSON *json_add_number(cJSON *obj, const char *key, double x);
cJSON *json_add_null(cJSON *obj, const char *key);
cJSON *json_add_bool(cJSON *obj, const char *key, int b);

/* Write a document: canonical bytes, exactly, to path or stdout (atomic). */
int json_emit(const cJSON *doc, const char *path, struct err *e);

#endif
