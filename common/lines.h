/* lines.h: the one reader of JSON Lines text: a file (or standard input)
 * read a megabyte at a time and handed out line by line, each line at most
 * a limit the caller sets (each command documents its own), optionally
 * digesting every byte it reads.
 *
 * Ownership: a line handed out is valid until the next call; the reader
 * owns its buffers and the file it opened (lines_close; NULL-safe, and
 * safe after a failed lines_open).
 */
#ifndef COHORT_LINES_H
#define COHORT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "err.h"
#include "hash.h"

struct lines {
	FILE *fp;
	const char *name; /* as given, for messages */
	char *in;         /* the chunk read last */
	size_t pos, end;
	int eof;
	size_t max;       /* longest line accepted, without its LF */
	struct hash *h;   /* digest of every byte, or NULL */
	struct buf line;  /* a line that spans two chunks */
	long lineno;      /* line number of the line last returned */
};

/* Open path ("-" is standard input).  With hashed, every byte read is
 * digested (lines_digest). */
int lines_open(struct lines *l, const char *path, size_t max, int hashed, struct err *e);
/* The same on a stream already open (the reader owns it from now on,
 * closing it unless it is stdin), whose first npre bytes were read
 * already and are pre (a pipe's, read to tell a ledger's kind). */
int lines_open_fp(struct lines *l, FILE *fp, const char *name, const void *pre, size_t npre,
    size_t max, int hashed, struct err *e);
/* The next line, without its LF: 1, 0 at the end, -1 on error (a line
 * longer than max: `NAME:LINE: line longer than MAX bytes`). */
int lines_next(struct lines *l, const char **p, size_t *n, struct err *e);
/* The SHA-256 of every byte read, once lines_next returned 0. */
void lines_digest(struct lines *l, uint8_t d[HASH_LEN]);
void lines_close(struct lines *l);

#endif
