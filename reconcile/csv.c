/* csv.c: the strict streaming CSV reader (see csv.h). */
#include "csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/utf8.h"

#define CSV_CHUNK (1 << 20)

struct csv {
	FILE *fp;           /* input; stdin is not closed */
	char *name;         /* for messages */
	unsigned char *in;  /* read buffer */
	size_t ipos, iend;  /* unread bytes are in[ipos..iend) */
	int eof;            /* the stream is exhausted */
	struct hash *h;     /* digest of every byte read */
	struct buf rec;     /* the current record: fields, each NUL-terminated */
	size_t *off;        /* start of each field in rec */
	size_t nf, capf;    /* fields in the current record, slots in off */
	char **cols;        /* header names */
	size_t ncols;
	long line;          /* physical line of the next byte */
	long rline;         /* line on which the current record starts */
};

static int
refill(struct csv *c)
{
	size_t n;

	if (c->eof)
		return 0;
	n = fread(c->in, 1, CSV_CHUNK, c->fp);
	if (n == 0) {
		c->eof = 1;
		return ferror(c->fp) ? -1 : 0;
	}
	hash_update(c->h, c->in, n);
	c->ipos = 0;
	c->iend = n;
	return 1;
}

/* The next byte, or -1 at the end (-2 on a read error). */
static inline int
get(struct csv *c)
{
	if (c->ipos == c->iend) {
		int r = refill(c);
		if (r <= 0)
			return r < 0 ? -2 : -1;
	}
	return c->in[c->ipos++];
}

static inline int
peek(struct csv *c)
{
	if (c->ipos == c->iend) {
		int r = refill(c);
		if (r <= 0)
			return r < 0 ? -2 : -1;
	}
	return c->in[c->ipos];
}

static int
bad(struct csv *c, long line, struct err *e, const char *what)
{
	return err_set(e, ERR_INPUT, "%s:%ld: %s", c->name, line, what);
}

static int
end_field(struct csv *c, size_t start, struct err *e)
{
	if (buf_addc(&c->rec, '\0') < 0)
		return err_set(e, ERR_NOMEM, "%s: out of memory", c->name);
	if (c->nf == c->capf) {
		size_t n = c->capf ? 2 * c->capf : 16;
		size_t *p = realloc(c->off, n * sizeof *p);
		if (p == NULL)
			return err_set(e, ERR_NOMEM, "%s: out of memory", c->name);
		c->off = p;
		c->capf = n;
	}
	c->off[c->nf++] = start;
	if (!utf8_valid((const unsigned char *)c->rec.p + start, c->rec.len - 1 - start))
		return bad(c, c->rline, e, "invalid UTF-8");
	return 0;
}

/* Read one record into c->rec: 1, 0 at the end of input, -1 on error. */
static int
read_record(struct csv *c, struct err *e)
{
	int ch;

	buf_reset(&c->rec);
	c->nf = 0;
	ch = peek(c);
	if (ch == -2)
		return err_set(e, ERR_IO, "%s: read error: %s", c->name, strerror(errno));
	if (ch == -1)
		return 0;
	c->rline = c->line;
	for (;;) {
		size_t start = c->rec.len;
		long fline = c->line;
		int end = 0;

		ch = get(c);
		if (ch == '"') {
			for (;;) {
				ch = get(c);
				if (ch == -1)
					return bad(c, fline, e, "unterminated quoted field");
				if (ch == '"') {
					if (peek(c) != '"')
						break;
					c->ipos++;
				} else if (ch == '\n') {
					c->line++;
				} else if (ch == '\0') {
					return bad(c, c->line, e, "NUL byte");
				} else if (ch < 0) {
					return err_set(e, ERR_IO, "%s: read error: %s", c->name, strerror(errno));
				}
				if (buf_addc(&c->rec, (char)ch) < 0)
					return err_set(e, ERR_NOMEM, "%s: out of memory", c->name);
			}
			ch = get(c);
			if (ch != ',' && ch != '\n' && ch != '\r' && ch != -1)
				return bad(c, c->line, e, "unexpected character after a closing quote");
		} else {
			while (ch != ',' && ch != '\n' && ch != '\r' && ch != -1) {
				if (ch == '"')
					return bad(c, c->line, e, "quote inside an unquoted field");
				if (ch == '\0')
					return bad(c, c->line, e, "NUL byte");
				if (ch < 0)
					return err_set(e, ERR_IO, "%s: read error: %s", c->name, strerror(errno));
				if (buf_addc(&c->rec, (char)ch) < 0)
					return err_set(e, ERR_NOMEM, "%s: out of memory", c->name);
				ch = get(c);
			}
		}
		if (ch == '\r') {
			if (get(c) != '\n')
				return bad(c, c->line, e, "carriage return not followed by a line feed");
			ch = '\n';
		}
		if (ch == '\n') {
			c->line++;
			end = 1;
		} else if (ch == -1) {
			end = 1;
		}
		if (end_field(c, start, e) < 0)
			return -1;
		if (end)
			return 1;
	}
}

struct csv *
csv_open(const char *path, const char *name, struct err *e)
{
	struct csv *c = calloc(1, sizeof *c);
	int std = path == NULL || strcmp(path, "-") == 0;

	if (c == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	c->name = strdup(name ? name : std ? "<stdin>" : path);
	c->in = malloc(CSV_CHUNK);
	c->h = hash_new();
	c->line = 1;
	if (c->name == NULL || c->in == NULL || c->h == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	c->fp = std ? stdin : fopen(path, "rb");
	if (c->fp == NULL) {
		err_set(e, ERR_IO, "%s: cannot open: %s", c->name, strerror(errno));
		goto fail;
	}
	if (refill(c) < 0) {
		err_set(e, ERR_IO, "%s: read error: %s", c->name, strerror(errno));
		goto fail;
	}
	if (c->iend >= 3 && memcmp(c->in, "\xEF\xBB\xBF", 3) == 0)
		c->ipos = 3;
	switch (read_record(c, e)) {
	case 0:
		err_set(e, ERR_INPUT, "%s:1: empty file: expected a header", c->name);
		/* fall through */
	case -1:
		goto fail;
	}
	c->ncols = c->nf;
	c->cols = calloc(c->ncols, sizeof *c->cols);
	if (c->cols == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < c->ncols; i++) {
		const char *f = c->rec.p + c->off[i];
		if (*f == '\0') {
			bad(c, c->rline, e, "empty column name in the header");
			goto fail;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(c->cols[j], f) == 0) {
				err_set(e, ERR_INPUT, "%s:%ld: duplicate column \"%s\"", c->name, c->rline, f);
				goto fail;
			}
		c->cols[i] = strdup(f);
		if (c->cols[i] == NULL) {
			err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	return c;
fail:
	csv_free(c);
	return NULL;
}

void
csv_free(struct csv *c)
{
	if (c == NULL)
		return;
	if (c->fp != NULL && c->fp != stdin)
		fclose(c->fp);
	for (size_t i = 0; i < c->ncols; i++)
		free(c->cols[i]);
	free(c->cols);
	hash_free(c->h);
	buf_release(&c->rec);
	free(c->off);
	free(c->in);
	free(c->name);
	free(c);
}

int
csv_next(struct csv *c, struct err *e)
{
	int r = read_record(c, e);

	if (r == 1 && c->nf != c->ncols)
		return err_set(e, ERR_INPUT, "%s:%ld: expected %zu fields, found %zu", c->name,
		    c->rline, c->ncols, c->nf);
	return r;
}

size_t
csv_ncols(const struct csv *c)
{
	return c->ncols;
}

const char *
csv_col(const struct csv *c, size_t i)
{
	return i < c->ncols ? c->cols[i] : NULL;
}

int
csv_find(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (strcmp(c->cols[i], name) == 0)
			return (int)i;
	return -1;
}

const char *
csv_field(const struct csv *c, size_t i, size_t *len)
{
	const char *p = c->rec.p + c->off[i];

	if (len != NULL)
		*len = (i + 1 < c->nf ? c->off[i + 1] : c->rec.len) - c->off[i] - 1;
	return p;
}

long
csv_line(const struct csv *c)
{
	return c->rline;
}

int
csv_digest(struct csv *c, uint8_t out[HASH_LEN])
{
	return hash_final(c->h, out);
}
