/* recon_feed.c: a producer thread parsing rows, the caller inserting them
 * (see recon_feed.h). */
#include "recon_feed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/pool.h"

#define FEED_RING 4       /* batches in flight */
#define FEED_ROWS 2048    /* rows a batch */
#define FEED_VALS 24      /* values a row, at most */

enum { V_NULL, V_INT, V_REAL, V_TEXT };

struct val {
	int t;          /* V_* */
	long long i;    /* V_INT */
	double d;       /* V_REAL */
	size_t off;     /* V_TEXT: NUL-terminated text at arena.p + off */
	size_t len;
};

struct batch {
	int nrows;                        /* complete rows */
	int nvals[FEED_ROWS];             /* values in each row */
	struct val v[FEED_ROWS][FEED_VALS];
	struct buf arena;                 /* text values */
	int full;                         /* handed to the consumer */
};

struct recon_feed {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch *ring[FEED_RING];
	int pi, ci;                /* producer's and consumer's batch */
	int row;                   /* producer: row being filled, -1 before the first */
	int done;                  /* producer finished (rc set) */
	int stop;                  /* consumer gave up (under mu) */
	int stopped;               /* producer's copy of stop */
	int rc;                    /* producer's result */
	struct err err;            /* producer's error */
	recon_produce_fn fn;
	void *ctx;
	int direct;                /* no producer thread: feed_flush inserts */
	sqlite3 *db;               /* for direct */
	sqlite3_stmt *st;
	struct err *e;             /* the caller's, for the database's error */
};

static int insert_batch(sqlite3 *db, sqlite3_stmt *st, struct batch *b, struct err *e);

/* On the calling thread, with no producer thread: insert the batch
 * filled, and start the next. */
static int
feed_insert(struct recon_feed *f)
{
	struct batch *b = f->ring[f->pi];

	if (!f->stop && insert_batch(f->db, f->st, b, f->e) < 0)
		f->stop = 1;
	b->nrows = 0;
	buf_reset(&b->arena);
	f->row = -1;
	f->stopped = f->stop;
	return f->stopped ? -1 : 0;
}

/* Hand the current batch over and wait for the next one to be free. */
static int
feed_flush(struct recon_feed *f)
{
	struct batch *b = f->ring[f->pi];

	if (f->direct)
		return feed_insert(f);
	pthread_mutex_lock(&f->mu);
	b->full = 1;
	f->pi = (f->pi + 1) % FEED_RING;
	pthread_cond_broadcast(&f->cv);
	while (f->ring[f->pi]->full && !f->stop)
		pthread_cond_wait(&f->cv, &f->mu);
	f->stopped = f->stop;
	pthread_mutex_unlock(&f->mu);
	b = f->ring[f->pi];
	b->nrows = 0;
	buf_reset(&b->arena);
	f->row = -1;
	return f->stopped ? -1 : 0;
}

int
recon_feed_row(struct recon_feed *f)
{
	struct batch *b = f->ring[f->pi];

	if (f->row >= 0)
		b->nrows = f->row + 1;
	if (b->nrows == FEED_ROWS && feed_flush(f) < 0)
		return -1;
	b = f->ring[f->pi];
	f->row = b->nrows;
	b->nvals[f->row] = 0;
	return f->stopped ? -1 : 0;
}

static struct val *
next_val(struct recon_feed *f)
{
	struct batch *b = f->ring[f->pi];
	int *n = &b->nvals[f->row];

	return *n < FEED_VALS ? &b->v[f->row][(*n)++] : &b->v[f->row][FEED_VALS - 1];
}

void
recon_put_null(struct recon_feed *f)
{
	next_val(f)->t = V_NULL;
}

void
recon_put_int(struct recon_feed *f, long long x)
{
	struct val *v = next_val(f);
	v->t = V_INT;
	v->i = x;
}

void
recon_put_real(struct recon_feed *f, double x)
{
	struct val *v = next_val(f);
	v->t = V_REAL;
	v->d = x;
}

int
recon_put_text(struct recon_feed *f, const char *s, size_t n)
{
	struct batch *b = f->ring[f->pi];
	struct val *v = next_val(f);

	v->t = V_TEXT;
	v->off = b->arena.len;
	v->len = n;
	if (buf_add(&b->arena, s, n) < 0 || buf_addc(&b->arena, '\0') < 0) {
		v->t = V_NULL;
		return -1;
	}
	return 0;
}

static void
producer(void *arg)
{
	struct recon_feed *f = arg;
	int rc = f->fn(f->ctx, f, &f->err);
	struct batch *b = f->ring[f->pi];

	pthread_mutex_lock(&f->mu);
	if (rc == 0 && f->row >= 0)
		b->nrows = f->row + 1;
	else if (rc < 0 && f->row >= 0)
		b->nrows = f->row; /* the row being parsed is not complete */
	if (b->nrows > 0)
		b->full = 1;
	f->rc = rc;
	f->done = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static int
insert_batch(sqlite3 *db, sqlite3_stmt *st, struct batch *b, struct err *e)
{
	for (int r = 0; r < b->nrows; r++) {
		sqlite3_reset(st);
		for (int i = 0; i < b->nvals[r]; i++) {
			const struct val *v = &b->v[r][i];
			switch (v->t) {
			case V_INT:
				sqlite3_bind_int64(st, i + 1, v->i);
				break;
			case V_REAL:
				sqlite3_bind_double(st, i + 1, v->d);
				break;
			case V_TEXT:
				sqlite3_bind_text(st, i + 1, b->arena.p + v->off, (int)v->len, SQLITE_STATIC);
				break;
			default:
				sqlite3_bind_null(st, i + 1);
			}
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			return err_set(e, ERR_IO, "database: insert: %s", sqlite3_errmsg(db));
	}
	return 0;
}

int
recon_feed_run(sqlite3 *db, sqlite3_stmt *st, recon_produce_fn fn, void *ctx, struct err *e)
{
	struct recon_feed *f = calloc(1, sizeof *f);
	struct pool_thread th = POOL_THREAD_INIT;
	int rc = 0, sync = 0, started = 0;

	if (f == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	f->fn = fn;
	f->ctx = ctx;
	f->row = -1;
	for (int i = 0; i < FEED_RING; i++) {
		f->ring[i] = calloc(1, sizeof *f->ring[i]);
		if (f->ring[i] == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	f->db = db;
	f->st = st;
	f->e = e;
	if (rc == 0 && (pthread_mutex_init(&f->mu, NULL) != 0 || pthread_cond_init(&f->cv, NULL) != 0))
		rc = err_set(e, ERR_NOMEM, "out of memory");
	else if (rc == 0)
		sync = 1;
	/* no thread: the producer runs in pool_join, inserting as it goes */
	if (sync)
		started = pool_spawn(&th, producer, f);
	f->direct = sync && !started;
	while (started) {
		struct batch *b = f->ring[f->ci];
		pthread_mutex_lock(&f->mu);
		while (!b->full && !f->done)
			pthread_cond_wait(&f->cv, &f->mu);
		if (!b->full) {             /* done, and nothing left */
			pthread_mutex_unlock(&f->mu);
			break;
		}
		pthread_mutex_unlock(&f->mu);
		if (rc == 0 && insert_batch(db, st, b, e) < 0)
			rc = -1;
		pthread_mutex_lock(&f->mu);
		b->full = 0;
		if (rc < 0)
			f->stop = 1;
		f->ci = (f->ci + 1) % FEED_RING;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
	if (sync) {
		pool_join(&th);
		if (f->direct) {
			struct batch *b = f->ring[f->pi];
			if (f->stop)
				rc = -1;
			else if (b->full && insert_batch(db, st, b, e) < 0)
				rc = -1;
		}
		if (rc == 0 && f->rc < 0) {
			*e = f->err;
			rc = -1;
		}
	}
	for (int i = 0; i < FEED_RING; i++) {
		if (f->ring[i] != NULL)
			buf_release(&f->ring[i]->arena);
		free(f->ring[i]);
	}
	if (sync) {
		pthread_mutex_destroy(&f->mu);
		pthread_cond_destroy(&f->cv);
	}
	free(f);
	return rc;
}
