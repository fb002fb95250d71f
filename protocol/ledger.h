/* ledger.h: reading game ledgers record by record.
 *
 * A ledger is JSON Lines (one game a line) or a SQLite database whose table
 * `games` has one column per top-level field (docs/design.md).  Records are
 * streamed: each is parsed, handed to the callback, then freed; the whole
 * ledger is never held in memory.  The callback borrows the record and the
 * location; it returns 0 to go on, or -1 (with e set) to stop.
 */
#ifndef COHORT_LEDGER_H
#define COHORT_LEDGER_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

/* Longest ledger line accepted, in bytes, by every command that reads
 * ledgers (freeze, reconcile, the publication gate). */
#define LEDGER_MAX_LINE ((size_t)64 << 20)

/* Where a record came from, for messages: "file:line" or "file:rowid N". */
struct ledger_loc {
	const char *name; /* file name as given */
	long line;        /* line number (JSON Lines) or rowid (SQLite) */
	int sqlite;       /* 1 when line is a rowid */
};

typedef int (*ledger_fn)(void *ctx, cJSON *record, const struct ledger_loc *loc, struct err *e);

/* Read every record of path ("-" is standard input, JSON Lines). */
int ledger_read(const char *path, ledger_fn fn, void *ctx, struct err *e);
/* The same for records of another kind: from a SQLite database, the rows
 * of table (a name of the code's, never of the input's), e.g. "decisions". */
int ledger_read_table(const char *path, const char *table, ledger_fn fn, void *ctx, struct err *e);

/* A ledger opened, its kind told from its first bytes.  A regular file
 * is read again from its start; from a pipe (a named one, "<(...)") or
 * standard input, the bytes read to tell its kind are pre, and come
 * first.  A SQLite database given as a pipe is refused (SQLite reads
 * only files). */
struct ledger_file {
	FILE *fp;
	const char *name;  /* for messages: the path, or "<stdin>" */
	int sqlite;        /* a SQLite database (then a regular file) */
	int regular;       /* a regular file, of size bytes when opened */
	uint64_t size;
	char pre[16];
	size_t npre;
};

/* Open path ("-" or NULL: standard input, JSON Lines); 0, or -1 with e
 * set and nothing to close. */
int ledger_open(const char *path, struct ledger_file *f, struct err *e);
void ledger_close(struct ledger_file *f);

/* A line of only spaces, tabs and carriage returns, which readers skip. */
int ledger_blank(const char *p, size_t n);

/* Format a location as "file:line" into out. */
void ledger_loc_format(const struct ledger_loc *loc, char *out, size_t n);

/* Parallel JSON Lines.  Each record is passed to work() on a worker
 * thread as its text (text, n; rec NULL), or, from a SQLite ledger, as a
 * tree (rec; text NULL); work() fills that record's slot (slot_size bytes,
 * zeroed); done() then receives the slots on the calling thread in input
 * order.  The first error in input order stops the run and is returned;
 * release() frees a slot that done() did not take.  Each thread gets its
 * own scratch from scratch_new (when set), freed by scratch_free.  Bytes
 * work() appends to keep (one buffer per chunk of records, written by the
 * one thread working that chunk) stay there for done() and go with the
 * chunk, so nothing allocated per record crosses threads.  SQLite
 * ledgers are read in order on the calling thread (work then done for
 * each row). */
struct ledger_par {
	int (*work)(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
	    const struct ledger_loc *loc, void *slot, struct buf *keep, struct err *e);
	int (*done)(void *ctx, void *slot, const struct buf *keep, struct err *e);
	void (*release)(void *slot);
	void *(*scratch_new)(void *ctx);
	void (*scratch_free)(void *scratch);
	size_t slot_size;
	void *ctx;
	int jobs; /* worker threads; 0 for the number of online processors */
	const char *table; /* a SQLite ledger's table; NULL: "games" */
};

int ledger_read_par(const char *path, const struct ledger_par *p, struct err *e);

#endif
