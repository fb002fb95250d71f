/* ledgerpar.c: JSON Lines read in chunks by the calling thread, parsed and
 * worked on by a pool of threads, and handed back in input order.  Parsing
 * and canonicalizing dominate a freeze; the order of results, and so every
 * output byte, does not depend on the number of threads. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "ledger.h"

#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_JOBS 16

/* A chunk's buffers are its ring place's, kept from one chunk to the next
 * (owned, off, lens, lines, slots and keep, with their room): made afresh
 * for every chunk, a freeze of 400 MB touched a gigabyte of new memory,
 * which on a virtual machine costs more than the copying into it. */
struct chunk {
	const char *text;    /* whole lines, the last one ends with '\n' */
	char *owned;         /* text, read */
	size_t owned_cap;
	size_t len;
	long first_line;     /* line number of the first line */
	size_t nlines;       /* records (non-blank lines) */
	size_t *off, *lens;  /* each record's offset and length */
	long *lines;         /* each record's line number */
	size_t lines_cap;
	unsigned char *slots;
	size_t slots_cap;    /* bytes */
	struct buf keep;     /* bytes the records' work left for done() */
	size_t nok;          /* records worked on without error, from the start */
	int failed;          /* record nok failed with err */
	struct err err;
};

struct reader {
	const struct ledger_par *p;
	uint64_t left;           /* a regular file: bytes still to read of its size when
	                          * opened (UINT64_MAX for a pipe) */
	const char *name;
	struct chunk *ring;      /* chunk i in ring[i % nring] */
	size_t nring;
	void **scratch;          /* each worker's, made by it when it first works */
};

static void
work_chunk(struct reader *rd, struct chunk *c, void *scratch)
{
	struct ledger_loc loc = { rd->name, 0, 0 };

	for (size_t i = 0; i < c->nlines; i++) {
		loc.line = c->lines[i];
		if (rd->p->work(rd->p->ctx, scratch, c->text + c->off[i], c->lens[i], NULL, &loc,
		    c->slots + i * rd->p->slot_size, &c->keep, &c->err) < 0) {
			c->failed = 1;
			return;
		}
		c->nok = i + 1;
	}
}

/* Job i of the pool: chunk i, worked on with worker w's scratch. */
static void
work_job(void *arg, size_t i, int w)
{
	struct reader *rd = arg;
	struct chunk *c = &rd->ring[i % rd->nring];

	if (rd->scratch[w] == NULL && rd->p->scratch_new)
		rd->scratch[w] = rd->p->scratch_new(rd->p->ctx);
	if (rd->scratch[w] == NULL && rd->p->scratch_new) {
		err_set(&c->err, ERR_NOMEM, "out of memory");
		c->failed = 1;
		return;
	}
	work_chunk(rd, c, rd->scratch[w]);
}

/* c's records from `from` on released, and c emptied for the next chunk
 * its place holds, its buffers kept. */
static void
chunk_clear(struct reader *rd, struct chunk *c, size_t from)
{
	if (rd->p->release && c->slots)
		for (size_t i = from; i < c->nok; i++)
			rd->p->release(c->slots + i * rd->p->slot_size);
	buf_reset(&c->keep);
	*c = (struct chunk){ .owned = c->owned, .owned_cap = c->owned_cap, .off = c->off,
		.lens = c->lens, .lines = c->lines, .lines_cap = c->lines_cap, .slots = c->slots,
		.slots_cap = c->slots_cap, .keep = c->keep };
}

/* c's buffers freed, once the reading is over. */
static void
chunk_free(struct reader *rd, struct chunk *c)
{
	chunk_clear(rd, c, 0);
	free(c->owned);
	buf_release(&c->keep);
	free(c->off);
	free(c->lens);
	free(c->lines);
	free(c->slots);
	memset(c, 0, sizeof *c);
}

/* Room for n records' indexes in c.  -1 out of memory. */
static int
lines_room(struct chunk *c, size_t n)
{
	size_t *o, *l;
	long *ln;

	if (n <= c->lines_cap)
		return 0;
	/* each grown on its own: a failure leaves every one valid */
	if ((o = realloc(c->off, n * sizeof *o)) != NULL)
		c->off = o;
	if ((l = realloc(c->lens, n * sizeof *l)) != NULL)
		c->lens = l;
	if ((ln = realloc(c->lines, n * sizeof *ln)) != NULL)
		c->lines = ln;
	if (o == NULL || l == NULL || ln == NULL)
		return -1;
	c->lines_cap = n;
	return 0;
}

/* Index the lines of c->text (on the reading thread, in one pass that
 * also counts them: *line becomes the number of the line after the chunk).
 * An over-long line fails the chunk from there, in its turn; -1 only when
 * out of memory. */
static int
split(struct reader *rd, struct chunk *c, long *line, struct err *e)
{
	size_t pos = 0, slots;

	*line = c->first_line;
	if (lines_room(c, 1024) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	while (pos < c->len) {
		const char *nl = memchr(c->text + pos, '\n', c->len - pos);
		size_t end = nl ? (size_t)(nl - c->text) : c->len, n = end - pos;
		if (n + 1 > LEDGER_MAX_LINE && !c->failed) {
			err_set(&c->err, ERR_INPUT, "%s:%ld: line longer than %zu bytes", rd->name, *line,
			    LEDGER_MAX_LINE);
			c->failed = 1;
		}
		if (!c->failed && !ledger_blank(c->text + pos, n)) {
			if (c->nlines == c->lines_cap && lines_room(c, 2 * c->lines_cap) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
			c->off[c->nlines] = pos;
			c->lens[c->nlines] = n;
			c->lines[c->nlines] = *line;
			c->nlines++;
		}
		(*line)++;
		pos = end + 1;
	}
	slots = (c->nlines ? c->nlines : 1) * rd->p->slot_size;
	if (slots > c->slots_cap) {
		free(c->slots);
		c->slots_cap = 0;
		if ((c->slots = malloc(slots)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		c->slots_cap = slots;
	}
	memset(c->slots, 0, slots);
	return 0;
}

/* After n bytes were read: 1 at the end, 0 with more to come, -1 with e
 * set when a regular file ended before the size it had when opened (cut
 * while being read).  A file is read up to that size, so lines appended
 * meanwhile are for the next run. */
static int
read_upto(struct reader *rd, FILE *fp, size_t n, struct err *e)
{
	if (rd->left == UINT64_MAX)
		return feof(fp) != 0;
	rd->left -= n;
	if (rd->left > 0 && feof(fp))
		return io_cut_short(e, rd->name, (unsigned long long)rd->left);
	return rd->left == 0;
}

/* Read the next chunk of whole lines; *carry holds a partial last line. */
static int
read_chunk(struct reader *rd, FILE *fp, struct chunk *c, char **carry, size_t *ncarry, long *line,
    int *eof, struct err *e)
{
	size_t cap = CHUNK_BYTES + *ncarry + 1, n;
	char *t, *last;
	int rc;

	if (cap > c->owned_cap) {
		free(c->owned);
		c->owned = NULL;
		c->owned_cap = 0;
		if ((c->owned = malloc(cap)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		c->owned_cap = cap;
	}
	t = c->owned;
	if (*ncarry)
		memcpy(t, *carry, *ncarry);
	n = fread(t + *ncarry, 1, rd->left < CHUNK_BYTES ? (size_t)rd->left : CHUNK_BYTES, fp);
	if (ferror(fp))
		return err_set(e, ERR_IO, "%s: read error: %s", rd->name, strerror(errno));
	if ((rc = read_upto(rd, fp, n, e)) < 0)
		return -1;
	n += *ncarry;
	*eof = rc;
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
		if (n > LEDGER_MAX_LINE)
			return err_set(e, ERR_INPUT, "%s:%ld: line longer than %zu bytes", rd->name, *line,
			    LEDGER_MAX_LINE);
		/* the buffer becomes the carry: the place makes another */
		*carry = t;
		*ncarry = n;
		c->owned = NULL;
		c->owned_cap = 0;
		c->text = NULL;
		c->len = 0;
		return 0;
	}
	if (!*eof) {
		size_t keep = n - (size_t)(last + 1 - t);
		*carry = malloc(keep + 1);
		if (*carry == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		memcpy(*carry, last + 1, keep);
		*ncarry = keep;
		n -= keep;
	}
	c->text = t;
	c->len = n;
	c->first_line = *line;
	return split(rd, c, line, e);
}

static int
jobs_of(const struct ledger_par *p)
{
	int n = p->jobs > 0 ? p->jobs : pool_cpus();

	return n > MAX_JOBS ? MAX_JOBS : n;
}

/* Hand a chunk whose job has run to done(), record by record. */
static int
finish_chunk(struct reader *rd, struct chunk *c, struct err *e)
{
	size_t i;

	for (i = 0; i < c->nok; i++)
		if (rd->p->done(rd->p->ctx, c->slots + i * rd->p->slot_size, &c->keep, e) < 0) {
			chunk_clear(rd, c, i + 1);
			return -1;
		}
	if (c->failed) {
		*e = c->err;
		chunk_clear(rd, c, i);
		return -1;
	}
	chunk_clear(rd, c, i);
	return 0;
}

/* The calling thread reads chunks into the ring and hands each to the
 * pool; once the ring is full or the input read, it takes the oldest back
 * when its job has run, and hands its records to done() in order. */
static int
run(struct reader *rd, struct ledger_file *f, struct err *e)
{
	FILE *fp = f->fp;
	int jobs = jobs_of(rd->p), eof = 0, rc = 0;
	size_t next_read = 0, next_done = 0;
	struct pool *pool = NULL;
	char *carry = NULL;
	size_t ncarry = 0;
	long line = 1;

	rd->nring = (size_t)jobs * 2 + 1;
	rd->ring = calloc(rd->nring, sizeof *rd->ring);
	rd->scratch = calloc((size_t)jobs + 1, sizeof *rd->scratch);
	if (rd->ring == NULL || rd->scratch == NULL || (pool = pool_new(jobs)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (f->npre > 0) {
		/* a pipe's first bytes, read to tell its kind */
		if ((carry = malloc(f->npre)) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto out;
		}
		memcpy(carry, f->pre, f->npre);
		ncarry = f->npre;
	}
	pool_start(pool, work_job, rd);
	while (rc == 0 && (!eof || next_done < next_read)) {
		if (!eof && next_read - next_done < rd->nring) {
			/* the place's last chunk is done with (next_done is past it) */
			struct chunk *c = &rd->ring[next_read % rd->nring];
			rc = read_chunk(rd, fp, c, &carry, &ncarry, &line, &eof, e);
			if (rc < 0) {
				chunk_clear(rd, c, 0);
				break;
			}
			if (c->text == NULL)
				continue;
			pool_post(pool, ++next_read);
			continue;
		}
		/* The ring is full or the input is read: wait for the oldest. */
		pool_wait(pool, next_done + 1);
		rc = finish_chunk(rd, &rd->ring[next_done % rd->nring], e);
		next_done++;
	}
out:
	/* Chunks not begun are not worked on; those worked on and never
	 * handed to done() release their slots. */
	pool_free(pool);
	for (size_t i = 0; rd->ring != NULL && i < rd->nring; i++)
		chunk_free(rd, &rd->ring[i]);
	for (int w = 0; rd->scratch != NULL && w <= jobs; w++)
		if (rd->scratch[w] != NULL && rd->p->scratch_free)
			rd->p->scratch_free(rd->scratch[w]);
	free(rd->scratch);
	free(carry);
	free(rd->ring);
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
	struct reader rd = { 0 };
	struct ledger_file f;
	int rc;

	rd.p = p;
	if (ledger_open(path, &f, e) < 0)
		return -1;
	rd.name = f.name;
	if (f.sqlite) {
		struct seq_ctx s = { p, calloc(1, p->slot_size), BUF_INIT };
		ledger_close(&f);
		if (s.slot == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		rc = ledger_read_table(path, p->table ? p->table : "games", seq_record, &s, e);
		free(s.slot);
		buf_release(&s.keep);
		return rc;
	}
	/* A file is read, not mapped: one cut while mapped would end the
	 * process with SIGBUS on the next page touched. */
	rd.left = f.regular ? f.size : UINT64_MAX;
	rc = run(&rd, &f, e);
	ledger_close(&f);
	return rc;
}
