/* recon_feed.h: parse on one thread, insert on another.
 *
 * recon_feed_run starts a producer thread that parses an input into rows
 * of values (recon_put_*), in batches, while the calling thread binds each
 * row to a prepared INSERT statement and steps it.  Parsing and SQLite
 * work then overlap on two cores.  Nothing is shared but the batches, which
 * pass through a small ring guarded by one mutex.  When no thread can
 * start, the producer runs on the calling thread and inserts each batch
 * as it fills.
 *
 * Ownership: the feed owns its batches; a text value is copied into the
 * batch, so the producer may free its source right after recon_put_text.
 */
#ifndef COHORT_RECON_FEED_H
#define COHORT_RECON_FEED_H

#include <stddef.h>

#include <sqlite3.h>

#include "../common/err.h"

struct recon_feed;

/* The producer: parses its input, calling recon_feed_row before each row
 * and recon_put_* once per statement parameter, in order.  Returns 0 at
 * the end of the input, or -1 with e set (e is the producer's own). */
typedef int (*recon_produce_fn)(void *ctx, struct recon_feed *f, struct err *e);

/* Run fn on a new thread and insert every row it produces with st (the
 * caller wraps this in a transaction).  Returns 0, or -1 with e set: the
 * producer's error, or the database's. */
int recon_feed_run(sqlite3 *db, sqlite3_stmt *st, recon_produce_fn fn, void *ctx,
    struct err *e);

/* Start a row.  Returns -1 when the consumer has stopped (then the
 * producer should return -1 at once; its error is ignored). */
int recon_feed_row(struct recon_feed *f);
void recon_put_null(struct recon_feed *f);
void recon_put_int(struct recon_feed *f, long long x);
void recon_put_real(struct recon_feed *f, double x);
/* A text value of n bytes (copied).  Returns -1 when out of memory. */
int recon_put_text(struct recon_feed *f, const char *s, size_t n);

#endif
