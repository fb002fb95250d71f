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

/* Open path for writing (NULL or "-": standard output): its temporary file
 * (io_temp_open) until outfile_commit. */
int outfile_open(struct outfile *o, const char *path, struct err *e);
int outfile_write(struct outfile *o, const void *p, size_t n, struct err *e);
/* Flush, fsync, rename.  On failure the temporary file is removed. */
int outfile_commit(struct outfile *o, struct err *e);
void outfile_abort(struct outfile *o);

/* A new temporary file beside target, to be renamed over it once
 * complete: target's name with ".tmp." and six random characters
 * appended, created (O_EXCL) with mode 0666 less the umask, as cp and the
 * shell create files, so an output has the permissions its user asked
 * for.  The name goes to *name (the caller frees it); returns the
 * descriptor, open for writing, or -1 with e set ("TARGET: cannot
 * write: why"). */
int io_temp_open(const char *target, char **name, struct err *e);

/* Write n bytes to path (or stdout) atomically. */
int io_write_all(const char *path, const void *p, size_t n, struct err *e);

/* Inputs are never written over: 0 when the output path (NULL or "-":
 * standard output) is none of inputs[0..n) (NULL and "-" entries are
 * skipped), else -1 with e set (ERR_USAGE) naming both.  Files are
 * compared by device and inode with symbolic links followed, so another
 * name of an input, a hard link to it or a symbolic link to it is that
 * input; an output that does not exist yet is none of them.  Every
 * command checks each output it writes this way before it opens it. */
int io_output_check(const char *path, const char *const *inputs, size_t n, struct err *e);

#endif
