/* csv.h: a strict, streaming CSV reader (RFC 4180 with the usual line ends).
 *
 * The first record is the header.  Fields are separated by commas; a field
 * that starts with a double quote is quoted and may hold commas, doubled
 * quotes ("" for ") and line breaks.  Records end with LF or CRLF; the last
 * one may lack it.  A UTF-8 byte-order mark before the header is skipped.
 * Refused, with "NAME:LINE: what": a quote inside an unquoted field, text
 * after a closing quote, an unterminated quoted field, a carriage return
 * not followed by a line feed, a NUL byte, invalid UTF-8, a record whose
 * field count differs from the header's (blank lines included), an empty
 * or duplicate column name, and an empty file.  LINE is the physical line
 * (from 1) where the offending byte or record starts.
 *
 * Ownership: csv_open returns a reader the caller releases with csv_free
 * (NULL-safe).  Field pointers stay valid until the next csv_next.  The
 * reader digests every byte it reads (SHA-256), so the caller gets the
 * identity of the file's bytes without reading it twice.
 */
#ifndef COHORT_CSV_H
#define COHORT_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"
#include "../common/hash.h"

struct csv;

/* Open path ("-" for standard input) and read its header.  name is used in
 * messages (NULL: the path). */
struct csv *csv_open(const char *path, const char *name, struct err *e);
void csv_free(struct csv *c);

/* Read the next record: 1 when one was read, 0 at the end, -1 on error. */
int csv_next(struct csv *c, struct err *e);

/* Columns of the header, and the index of a column name (-1 if absent). */
size_t csv_ncols(const struct csv *c);
const char *csv_col(const struct csv *c, size_t i);
int csv_find(const struct csv *c, const char *name);

/* Field i of the current record (NUL-terminated; *len gets its length when
 * len is not NULL). */
const char *csv_field(const struct csv *c, size_t i, size_t *len);
/* The line on which the current record starts. */
long csv_line(const struct csv *c);
/* After csv_next returned 0: the SHA-256 of every byte of the file. */
int csv_digest(struct csv *c, uint8_t out[HASH_LEN]);

#endif
