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

/* The pull reader, under both the tree builder and the streaming
 * canonical writer: one token a call, with every check above made on the
 * way (an object's duplicate keys when it closes).  A reader over memory
 * borrows the bytes; one over a file reads it a block at a time, holding
 * the unread part of a block and the token being read (a long string or
 * number grows the buffer to its length), and the keys of the objects
 * still open.  Token text is valid until the next call. */
enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_KEY, /* an object member's key; its value comes next */
	JSON_OBJECT,
	JSON_ARRAY,
	JSON_OBJECT_END,
	JSON_ARRAY_END,
	JSON_EOF /* the value ended, and only white space followed it */
};
struct json_tok {
	enum json_type type;
	const char *s;  /* a string's or key's characters (U+0000 as C0 80),
			 * or a number's text; not NUL-terminated */
	size_t len;     /* bytes at s */
	int plain;      /* a string written without escapes, or a number
			 * json_number_canonical accepts (no exponent): s is
			 * its canonical text (but for a string's quotes) */
	double x;       /* a number's value */
	long line, col; /* where the token begins */
};
struct json_rd;
/* A reader of len bytes at p named name (lines counted from first_line);
 * NULL when out of memory.  p and name must outlive it. */
struct json_rd *json_rd_mem(const char *p, size_t len, const char *name, long first_line);
/* A reader of a file ("-" or NULL: standard input), named as io_name
 * names it, read block bytes at a time (0: a megabyte; the tests try
 * tiny blocks, so that tokens straddle them); NULL with e set when it
 * cannot be opened. */
struct json_rd *json_rd_open(const char *path, size_t block, struct err *e);
/* The next token into *t: 0, or -1 with e set (a refusal reads
 * "NAME:LINE:COLUMN: what").  After JSON_EOF, JSON_EOF again. */
int json_rd_next(struct json_rd *r, struct json_tok *t, struct err *e);
void json_rd_free(struct json_rd *r);
/* After a value in an array: the numbers that follow it, ",NUMBER"
 * after ",NUMBER", up to cap of them, into t[0..) as json_rd_next would
 * read them, in one call.  The count; 0 where anything else comes next,
 * which json_rd_next reads.  For arrays of numbers, where a call a token
 * cost more than the number. */
size_t json_rd_run(struct json_rd *r, struct json_tok *t, size_t cap);
/* The four hex digits of a \u escape at p (lowercase only when lower, as
 * RFC 8785 writes them): 0 and *out, or -1.  The one rule for the reader
 * here and the flat reader (rec.h). */
int json_hex4(const unsigned char *p, const unsigned char *end, int lower, unsigned *out);
/* Whether the text of a number (its grammar checked) is in the form
 * canon_number writes, as far as its digits tell: no exponent, up to 15
 * significant digits (then they are the shortest that read back), no
 * trailing zero after the point, no -0, and within ECMAScript's plain
 * notation (below 1e21, at least 1e-6); the streaming writer copies such a
 * text.  The one rule for the reader here and the flat reader (rec.h). */
int json_number_canonical(const unsigned char *p, size_t len);
/* The value of a number's text (its grammar checked) into *x, bit for bit
 * strtod's (read here in one or two multiplications where that is exact,
 * strtod otherwise): 0, -1 when it is past a double's range, -2 when out
 * of memory.  The one conversion for the reader and the flat reader. */
int json_number_value(const unsigned char *s, size_t n, double *x);

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
/* json_parse, with the elements of some arrays not built: an array that
 * is the value of member key[1] of an object that is the value of member
 * key[0] of its container, that container at nesting depth (0: 1, the
 * top-level object), or with key[0] NULL the array that is the value of
 * member key[1] of the top-level object, stays in the tree, empty, and
 * every token of its
 * elements goes to tok instead, with its depth (1 for an element itself,
 * 2 inside it, ...).  open, when not NULL, is told of each such array as
 * it opens, by its (empty) node.  The reader's checks are made all the
 * same.  tok and open return 0, or -1 with e set to stop the parse (skip
 * NULL: json_parse).  For documents whose large arrays a reader needs
 * little of or holds flat (a freeze's decisions, a fingerprint's
 * replicate rows). */
struct json_skip {
	const char *key[2];
	int (*tok)(void *arg, const struct json_tok *t, int depth, struct err *e);
	void *arg;
	int depth;
	int (*open)(void *arg, const cJSON *array, struct err *e);
	/* when not NULL, the numbers that follow a number in its array, a run
	 * at a time (t[0..n), at depth), instead of a tok call each */
	int (*run)(void *arg, const struct json_tok *t, size_t n, int depth, struct err *e);
};
cJSON *json_parse_skip(const char *p, size_t len, const char *name, const struct json_skip *skip,
    struct err *e);
/* A whole file ("-": standard input) as json_parse_skip reads it (skip may
 * be NULL: every value built), and the identity of its canonical bytes
 * (all of them, the skipped array's too) into id: computed by the
 * streaming writer on a thread of its own beside the parse when beside is
 * nonzero, after it otherwise.  NULL with e set. */
cJSON *json_parse_file_id(const char *path, const struct json_skip *skip,
    char id[HASH_ID_LEN + 1], int beside, struct err *e);
/* The same with the identity left to finish beside the caller: the tree,
 * and in *id what json_ident_end waits for (the identity is computed now,
 * after the parse, when beside is 0).  A caller with more work before it
 * needs the identity does it meanwhile. */
struct json_ident;
cJSON *json_parse_file_begin(const char *path, const struct json_skip *skip, int beside,
    struct json_ident **id, struct err *e);
/* The identity into out (out may be NULL: discarded), and t freed: 0, or
 * -1 with e set (e may be NULL) where the canonical writer refused the
 * bytes.  t NULL: 0. */
int json_ident_end(struct json_ident *t, char out[HASH_ID_LEN + 1], struct err *e);
/* The identity of the canonical bytes of the document in p[0..len), by the
 * streaming writer (no tree): "sha256:<hex>" into id.  0, or -1 with e
 * set as json_parse would. */
int canon_id_text(const char *p, size_t len, const char *name, char id[HASH_ID_LEN + 1],
    struct err *e);
/* The line v begins on, or 0 when the map does not hold it (l may be NULL). */
long json_line(const struct json_lines *l, const cJSON *v);
void json_lines_release(struct json_lines *l);

/* Append the canonical bytes of v.  Fails on a non-finite number, a
 * duplicate key or a string that is not UTF-8. */
int canon_write(const cJSON *v, struct buf *out, struct err *e);
/* Append one string in canonical form: quoted, with RFC 8785's escapes
 * (C0 80 back to \u0000).  Fails when s is NULL or not UTF-8. */
int canon_string(const char *s, struct buf *out, struct err *e);
/* Bytes a canonical string holds as they are, whatever is around them:
 * printable ASCII (and DEL) but '"' and '\\'.  A string of only these is
 * its own canonical text, quoted. */
extern const unsigned char canon_plain[256];
/* Where the streaming writer puts its bytes: put(ctx, p, n, e) returns 0
 * or -1 with e set. */
struct canon_sink {
	int (*put)(void *ctx, const void *p, size_t n, struct err *e);
	void *ctx;
};
/* Read the document r reads to its end and hand its canonical bytes to
 * sink as they are made.  Only objects are held: RFC 8785 sorts their
 * members, so an object's canonical members wait in memory until it
 * closes (a top-level array of records goes out record by record; one
 * large object is held whole).  The same bytes as canon_write of the
 * tree json_parse builds, with the same refusals; on one, part of the
 * bytes may have gone to sink. */
int canon_stream(struct json_rd *r, const struct canon_sink *sink, struct err *e);
/* canon_stream into SHA-256: "sha256:<hex>" into id. */
int canon_stream_id(struct json_rd *r, char id[HASH_ID_LEN + 1], struct err *e);
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
 * e set to `"key": expected ...` otherwise.  A field that is not required
 * and is null is absent (the one rule for "optional": null means not
 * recorded); a required field that is null is a wrong type. */
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
