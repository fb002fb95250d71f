/* ledgerpar.c: JSON Lines read in chunks by the calling thread, parsed and
 * worked on by a pool of threads, and handed back in input order.  Parsing
 * and canonicalizing dominate a freeze; the order of results, and so every
 * output byte, does not depend on the number of threads. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../json/json.h"
#include "ledger.h"

#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_JOBS 16

struct chunk {
	const char *text;    /* whole lines, the last one ends with '\n' */
	char *owned;         /* text when read (not mapped) */
	size_t len;
	long first_line;     /* line number of the first line */
	size_t nlines;       /* records (non-blank lines) */
	size_t *off, *lens;  /* each record's offset and length */
	long *lines;         /* each record's line number */
	unsigned char *slots;
	struct buf keep;     /* bytes the records' work left for done() */
	size_t nok;          /* records worked on without error, from the start */
	int failed;          /* record nok failed with err */
	struct err err;
	int state;           /* 0 free, 1 queued, 2 taken, 3 done */
	unsigned long seq;
};

struct pool {
	const struct ledger_par *p;
	const char *map;         /* the whole ledger when it is a mapped file */
	size_t maplen, mapoff;
	const char *name;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk *ring;
	size_t nring;
	unsigned long next_work; /* seq of the next chunk to work on */
	int stop;
};

static void
work_chunk(struct pool *pl, struct chunk *c, void *scratch)
{
	struct ledger_loc loc = { pl->name, 0, 0 };

	for (size_t i = 0; i < c->nlines; i++) {
		loc.line = c->lines[i];
		if (pl->p->work(pl->p->ctx, scratch, c->text + c->off[i], c->lens[i], NULL, &loc,
		    c->slots + i * pl->p->slot_size, &c->keep, &c->err) < 0) {
			c->failed = 1;
			return;
		}
		c->nok = i + 1;
	}
}

static void *
worker(void *arg)
{
	struct pool *pl = arg;
	void *scratch = pl->p->scratch_new ? pl->p->scratch_new(pl->p->ctx) : NULL;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		struct chunk *c = NULL;
		while (!pl->stop) {
			c = &pl->ring[pl->next_work % pl->nring];
			if (c->state == 1 && c->seq == pl->next_work)
				break;
			c = NULL;
			pthread_cond_wait(&pl->cv, &pl->mu);
		}
		if (c == NULL)
			break;
		c->state = 2;
		pl->next_work++;
		pthread_mutex_unlock(&pl->mu);
		if (scratch == NULL && pl->p->scratch_new) {
			err_set(&c->err, ERR_NOMEM, "out of memory");
			c->failed = 1;
		} else {
			work_chunk(pl, c, scratch);
		}
		pthread_mutex_lock(&pl->mu);
		c->state = 3;
		pthread_cond_broadcast(&pl->cv);
	}
	pthread_mutex_unlock(&pl->mu);
	if (pl->p->scratch_free)
		pl->p->scratch_free(scratch);
	return NULL;
}

static void
chunk_clear(struct pool *pl, struct chunk *c, size_t from)
{
	if (pl->p->release && c->slots)
		for (size_t i = from; i < c->nok; i++)
			pl->p->release(c->slots + i * pl->p->slot_size);
	free(c->owned);
	buf_release(&c->keep);
	free(c->off);
	free(c->lens);
	free(c->lines);
	free(c->slots);
	memset(c, 0, sizeof *c);
}

/* Index the lines of c->text (on the reading thread, in one pass that
 * also counts them: *line becomes the number of the line after the chunk).
 * An over-long line fails the chunk from there, in its turn; -1 only when
 * out of memory. */
static int
split(struct pool *pl, struct chunk *c, long *line, struct err *e)
{
	size_t cap = 1024, pos = 0;

	*line = c->first_line;
	c->off = malloc(cap * sizeof *c->off);
	c->lens = malloc(cap * sizeof *c->lens);
	c->lines = malloc(cap * sizeof *c->lines);
	if (!c->off || !c->lens || !c->lines)
		return err_set(e, ERR_NOMEM, "out of memory");
	while (pos < c->len) {
		const char *nl = memchr(c->text + pos, '\n', c->len - pos);
		size_t end = nl ? (size_t)(nl - c->text) : c->len, n = end - pos;
		if (n + 1 > LEDGER_MAX_LINE && !c->failed) {
			err_set(&c->err, ERR_INPUT, "%s:%ld: line longer than %zu bytes", pl->name, *line,
			    LEDGER_MAX_LINE);
			c->failed = 1;
		}
		if (!c->failed && !ledger_blank(c->text + pos, n)) {
			if (c->nlines == cap) {
				cap *= 2;
				size_t *o = realloc(c->off, cap * sizeof *o), *l;
				if (o)
					c->off = o;
				l = realloc(c->lens, cap * sizeof *l);
				if (l)
					c->lens = l;
				long *ln = realloc(c->lines, cap * sizeof *ln);
				if (ln)
					c->lines = ln;
				if (!o || !l || !ln)
					return err_set(e, ERR_NOMEM, "out of memory");
			}
			c->off[c->nlines] = pos;
			c->lens[c->nlines] = n;
			c->lines[c->nlines] = *line;
			c->nlines++;
		}
		(*line)++;
		pos = end + 1;
	}
	c->slots = calloc(c->nlines ? c->nlines : 1, pl->p->slot_size);
	return c->slots ? 0 : err_set(e, ERR_NOMEM, "out of memory");
}

/* Read the next chunk of whole lines; *carry holds a partial last line. */
static int
read_chunk(struct pool *pl, FILE *fp, struct chunk *c, char **carry, size_t *ncarry, long *line,
    int *eof, struct err *e)
{
	size_t cap = CHUNK_BYTES + *ncarry + 1, n;
	char *t = malloc(cap), *last;

	if (t == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (*ncarry)
		memcpy(t, *carry, *ncarry);
	n = fread(t + *ncarry, 1, CHUNK_BYTES, fp);
	if (ferror(fp)) {
		free(t);
		return err_set(e, ERR_IO, "%s: read error: %s", pl->name, strerror(errno));
	}
	n += *ncarry;
	*eof = feof(fp);
	last = NULL;
	for (size_t i = n; i > 0; i--)
		if (t[i - 1] == '\n') {
			last = t + i - 1;
			break;
		}
	free(*carry);
	*carry = NULL;
	*ncarry = 0;
	if (!*eof && last == NULL) {
		/* No newline in the buffer: the line is longer than a chunk. */
		if (n > LEDGER_MAX_LINE) {
			free(t);
			return err_set(e, ERR_INPUT, "%s:%ld: line longer than %zu bytes", pl->name, *line,
			    LEDGER_MAX_LINE);
		}
		*carry = t;
		*ncarry = n;
		c->text = NULL;
		c->len = 0;
		return 0;
	}
	if (!*eof) {
		size_t keep = n - (size_t)(last + 1 - t);
		*carry = malloc(keep + 1);
		if (*carry == NULL) {
			free(t);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		memcpy(*carry, last + 1, keep);
		*ncarry = keep;
		n -= keep;
	}
	c->text = c->owned = t;
	c->len = n;
	c->first_line = *line;
	return split(pl, c, line, e);
}

/* The next chunk of a mapped ledger: whole lines from pl->mapoff, split
 * here where they lie. */
static int
map_chunk(struct pool *pl, struct chunk *c, long *line, int *eof, struct err *e)
{
	const char *p = pl->map + pl->mapoff, *nl;
	size_t left = pl->maplen - pl->mapoff, n = left;

	if (left > CHUNK_BYTES) {
		nl = memrchr(p, '\n', CHUNK_BYTES);
		if (nl == NULL)
			nl = memchr(p + CHUNK_BYTES, '\n', left - CHUNK_BYTES);
		if (nl != NULL)
			n = (size_t)(nl - p) + 1;
	}
	c->text = p;
	c->len = n;
	c->first_line = *line;
	pl->mapoff += n;
	*eof = pl->mapoff == pl->maplen;
	return split(pl, c, line, e);
}

static int
jobs_of(const struct ledger_par *p)
{
	long n = p->jobs > 0 ? p->jobs : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

/* Hand the done chunk at seq to done(), in order. */
static int
finish_chunk(struct pool *pl, struct chunk *c, struct err *e)
{
	size_t i;

	for (i = 0; i < c->nok; i++)
		if (pl->p->done(pl->p->ctx, c->slots + i * pl->p->slot_size, &c->keep, e) < 0) {
			chunk_clear(pl, c, i + 1);
			return -1;
		}
	if (c->failed) {
		*e = c->err;
		chunk_clear(pl, c, i);
		return -1;
	}
	chunk_clear(pl, c, i);
	return 0;
}

static int
run(struct pool *pl, FILE *fp, struct err *e)
{
	int jobs = jobs_of(pl->p), eof = 0, rc = 0;
	pthread_t th[MAX_JOBS];
	unsigned long next_read = 0, next_done = 0;
	char *carry = NULL;
	size_t ncarry = 0;
	long line = 1;
	int started = 0;

	pl->nring = (size_t)jobs * 2 + 1;
	pl->ring = calloc(pl->nring, sizeof *pl->ring);
	if (pl->ring == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	for (; started < jobs; started++)
		if (pthread_create(&th[started], NULL, worker, pl) != 0)
			break;
	if (started == 0) {
		rc = err_set(e, ERR_IO, "cannot start a thread");
		goto out;
	}
	while (rc == 0 && (!eof || next_done < next_read)) {
		struct chunk *c = &pl->ring[next_read % pl->nring];
		if (!eof && c->state == 0) {
			struct chunk fresh = { 0 };
			if (pl->map != NULL)
				rc = map_chunk(pl, &fresh, &line, &eof, e);
			else
				rc = read_chunk(pl, fp, &fresh, &carry, &ncarry, &line, &eof, e);
			if (rc < 0) {
				chunk_clear(pl, &fresh, 0);
				break;
			}
			if (fresh.text == NULL)
				continue;
			pthread_mutex_lock(&pl->mu);
			*c = fresh;
			c->seq = next_read++;
			c->state = 1;
			pthread_cond_broadcast(&pl->cv);
			pthread_mutex_unlock(&pl->mu);
			continue;
		}
		/* The ring is full or the input is read: wait for the oldest. */
		c = &pl->ring[next_done % pl->nring];
		pthread_mutex_lock(&pl->mu);
		while (c->state != 3)
			pthread_cond_wait(&pl->cv, &pl->mu);
		pthread_mutex_unlock(&pl->mu);
		rc = finish_chunk(pl, c, e);
		pthread_mutex_lock(&pl->mu);
		c->state = 0;
		pthread_mutex_unlock(&pl->mu);
		next_done++;
	}
out:
	pthread_mutex_lock(&pl->mu);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < pl->nring; i++) {
		/* Chunks never handed over: their slots were never taken. */
		chunk_clear(pl, &pl->ring[i], 0);
	}
	free(carry);
	free(pl->ring);
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	return rc;
}

struct seq_ctx {
	const struct ledger_par *p;
	void *slot;
	struct buf keep;
};

static int
seq_record(void *ctx, cJSON *rec, const struct ledger_loc *loc, struct err *e)
{
	struct seq_ctx *s = ctx;

	memset(s->slot, 0, s->p->slot_size);
	buf_reset(&s->keep);
	if (s->p->work(s->p->ctx, NULL, NULL, 0, rec, loc, s->slot, &s->keep, e) < 0)
		return -1;
	return s->p->done(s->p->ctx, s->slot, &s->keep, e);
}

int
ledger_read_par(const char *path, const struct ledger_par *p, struct err *e)
{
	struct pool pl = { 0 };
	char magic[16];
	FILE *fp = stdin;
	int rc;

	pl.p = p;
	pl.name = "<stdin>";
	if (path != NULL && strcmp(path, "-") != 0) {
		pl.name = path;
		fp = fopen(path, "rb");
		if (fp == NULL)
			return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		if (fread(magic, 1, sizeof magic, fp) == sizeof magic &&
		    memcmp(magic, "SQLite format 3", 16) == 0) {
			struct seq_ctx s = { p, calloc(1, p->slot_size), BUF_INIT };
			fclose(fp);
			if (s.slot == NULL)
				return err_set(e, ERR_NOMEM, "out of memory");
			rc = ledger_read(path, seq_record, &s, e);
			free(s.slot);
			buf_release(&s.keep);
			return rc;
		}
		rewind(fp);
		/* A regular file is mapped: its lines are worked on where they
		 * lie, never copied. */
		struct stat st;
		if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (uint64_t)st.st_size <= SIZE_MAX) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(fp), 0);
			if (m != MAP_FAILED) {
				madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
				pl.map = m;
				pl.maplen = (size_t)st.st_size;
			}
		}
	}
	rc = run(&pl, fp, e);
	if (pl.map != NULL)
		munmap((void *)pl.map, pl.maplen);
	if (fp != stdin)
		fclose(fp);
	return rc;
}
