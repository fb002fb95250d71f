/* io.h: reading whole inputs and writing outputs atomically.
 *
 * A path of NULL or "-" means standard input or standard output.  Output to
 * a file goes to a temporary file beside it, is fsync'ed and renamed over
 * the target on commit, so an interrupted run leaves the old file or the new
 * one, never half of one.  Ownership: struct outfile owns its temporary file
 * until outfile_commit or outfile_abort; outfile_abort is safe to call after
 * a commit or on a never-opened (OUTFILE_INIT) outfile.  Temporary files
 * (io_temp_open, below) are named so that those a killed run left behind
 * are found and removed by the next run writing into their folder.
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

/* An input file that ended before the size it had when opened, cut by
 * another process while being read: -1 with e set (ERR_INPUT) as every
 * reader says it, "NAME: cut short while being read (N bytes missing):
 * read it again once whatever writes it is done" (without the count when
 * missing is 0). */
int io_cut_short(struct err *e, const char *name, unsigned long long missing);

/* A display name for a path: "<stdin>" for NULL or "-". */
const char *io_name(const char *path);

struct outfile {
	char *path; /* target, NULL for stdout */
	char *tmp;  /* temporary file name while open */
	FILE *fp;   /* stream being written */
	int failed; /* a write failed; commit will refuse */
	size_t unsynced; /* bytes written since the last handed to writeback */
};

#define OUTFILE_INIT { NULL, NULL, NULL, 0, 0 }

/* Open path for writing (NULL or "-": standard output): its temporary file
 * (io_temp_open) until outfile_commit. */
int outfile_open(struct outfile *o, const char *path, struct err *e);
/* The same with the file's permissions (0666: as the umask leaves them):
 * 0600 for a secret key, which is
 * never readable by others, not even while it is written. */
int outfile_open_mode(struct outfile *o, const char *path, int mode, struct err *e);
int outfile_write(struct outfile *o, const void *p, size_t n, struct err *e);
/* Flush, fsync, rename.  On failure the temporary file is removed.  An
 * output of a run that read a file cut while it was mapped (map.h) is
 * refused: -1, naming that file. */
int outfile_commit(struct outfile *o, struct err *e);
void outfile_abort(struct outfile *o);

/* Temporary files.  Every file cohort writes is first a temporary file
 * beside its target, renamed over it once complete.  Its name is the
 * target's with ".cohort-tmp.PID.XXXXXX" appended (PID the writer's
 * process id, XXXXXX six random letters or digits), and the writer holds
 * an exclusive flock(2) on it while it lives, so a temporary file left by
 * a run that was killed can be told from one being written:
 * it is stale when no process holds its lock and its process is gone
 * (or is this one: a process id reused, as in a container).  A run that
 * writes into a folder first removes the stale temporary files there
 * (io_temp_sweep), and never another user's. */
#define IO_TEMP_MARK ".cohort-tmp."

/* A new temporary file for target, created (O_EXCL) with mode 0666 less
 * the umask, as cp and the shell create files, and locked.  The name goes
 * to *name (the caller frees it); returns the descriptor, open for
 * writing, which holds the lock until it is closed, or -1 with e set
 * ("TARGET: cannot write: why"). */
int io_temp_open(const char *target, char **name, struct err *e);

/* 1 when name (a file name, without its folder) is a temporary file's:
 * "...<IO_TEMP_MARK>PID.XXXXXX". */
int io_temp_name(const char *name);

/* Remove the stale temporary files in dir (see above); how many were
 * removed.  A folder that cannot be read is left alone. */
size_t io_temp_sweep(const char *dir);

/* fsync the folder that holds path, after a rename into it, so the new
 * name lasts a crash.  0, or -1 with e set (a file system that cannot sync
 * a folder is no error). */
int io_sync_dir(const char *path, struct err *e);

/* Write n bytes to path (or stdout) atomically. */
int io_write_all(const char *path, const void *p, size_t n, struct err *e);

/* Inputs are never written over: 0 when the output path (NULL or "-":
 * standard output) is none of inputs[0..n) (NULL entries are skipped; a
 * "-" is standard input, when that is a file), else -1 with e set
 * (ERR_USAGE) naming both.  Files are
 * compared by device and inode with symbolic links followed, so another
 * name of an input, a hard link to it or a symbolic link to it is that
 * input; an output that does not exist yet is none of them.  Every
 * command checks each output it writes this way before it opens it. */
int io_output_check(const char *path, const char *const *inputs, size_t n, struct err *e);

#endif
