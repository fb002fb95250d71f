/* io.h: reading whole inputs and writing outputs atomically.
 *
 * A path of NULL or "-" means standard input or standard output.  Output to
 * a file goes to a temporary file beside it, is fsync'ed and renamed over
 * the target on commit, so an interrupted run leaves the old file or the new
 * one, never half of one.  Ownership: struct outfile owns its temporary file
 * until outfile_commit or outfile_abort; outfile_abort is safe to call after
 * a commit or on a never-opened (OUTFILE_INIT) outfile.
 */
#ifndef COHORT_IO_H
#define COHORT_IO_H

#include <stdio.h>

#include "buf.h"
#include "err.h"

/* Inputs larger than this are refused by io_read_all (bytes). */
#define IO_MAX_DOCUMENT ((size_t)1 << 30)

/* Read a whole file (or stdin) into b, appending.  Refuses more than max
 * bytes.  Errors name the path. */
int io_read_all(const char *path, struct buf *b, size_t max, struct err *e);

/* A display name for a path: "<stdin>" for NULL or "-". */
const char *io_name(const char *path);

struct outfile {
	char *path; /* target, NULL for stdout */
	char *tmp;  /* temporary file name while open */
	FILE *fp;   /* stream being written */
	int failed; /* a write failed; commit will refuse */
};

#define OUTFILE_INIT { NULL, NULL, NULL, 0 }

int outfile_open(struct outfile *o, const char *path, struct err *e);
/* The same with the file's permissions: 0600 for a secret key, which is
 * never readable by others, not even while it is written. */
int outfile_open_mode(struct outfile *o, const char *path, int mode, struct err *e);
int outfile_write(struct outfile *o, const void *p, size_t n, struct err *e);
/* Flush, fsync, rename.  On failure the temporary file is removed. */
int outfile_commit(struct outfile *o, struct err *e);
void outfile_abort(struct outfile *o);

/* Write n bytes to path (or stdout) atomically. */
int io_write_all(const char *path, const void *p, size_t n, struct err *e);

#endif
