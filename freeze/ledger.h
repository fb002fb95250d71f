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

#include <cjson/cJSON.h>

#include "../common/err.h"

/* Longest JSON Lines line accepted, in bytes. */
#define LEDGER_MAX_LINE ((size_t)1 << 20)

/* Where a record came from, for messages: "file:line" or "file:rowid N". */
struct ledger_loc {
	const char *name; /* file name as given */
	long line;        /* line number (JSON Lines) or rowid (SQLite) */
	int sqlite;       /* 1 when line is a rowid */
};

typedef int (*ledger_fn)(void *ctx, cJSON *record, const struct ledger_loc *loc, struct err *e);

/* Read every record of path ("-" is standard input, JSON Lines). */
int ledger_read(const char *path, ledger_fn fn, void *ctx, struct err *e);

/* Format a location as "file:line" into out. */
void ledger_loc_format(const struct ledger_loc *loc, char *out, size_t n);

#endif
