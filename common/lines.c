/* lines.c: JSON Lines text, line by line. */
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 20)

int
lines_open(struct lines *l, const char *path, size_t max, int hashed, struct err *e)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");

	if (fp == NULL) {
		memset(l, 0, sizeof *l);
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	return lines_open_fp(l, fp, path, NULL, 0, max, hashed, e);
}

int
lines_open_fp(struct lines *l, FILE *fp, const char *name, const void *pre, size_t npre,
    size_t max, int hashed, struct err *e)
{
	memset(l, 0, sizeof *l);
	l->name = name;
	l->max = max;
	l->fp = fp;
	l->in = malloc(CHUNK > npre ? CHUNK : npre);
	l->h = hashed ? hash_new() : NULL;
	if (l->in == NULL || (hashed && l->h == NULL))
		return err_set(e, ERR_NOMEM, "%s: out of memory", name);
	if (npre > 0) {
		/* bytes already read from a pipe to tell its kind */
		memcpy(l->in, pre, npre);
		l->end = npre;
		if (l->h != NULL)
			hash_update(l->h, l->in, npre);
	}
	return 0;
}

void
lines_close(struct lines *l)
{
	if (l == NULL)
		return;
	if (l->fp != NULL && l->fp != stdin)
		fclose(l->fp);
	free(l->in);
	hash_free(l->h);
	buf_release(&l->line);
	memset(l, 0, sizeof *l);
}

void
lines_digest(struct lines *l, uint8_t d[HASH_LEN])
{
	hash_final(l->h, d);
}

/* Refill the chunk: 1 with bytes, 0 at the end, -1 on a read error. */
static int
refill(struct lines *l, struct err *e)
{
	size_t got;

	if (l->eof)
		return 0;
	got = fread(l->in, 1, CHUNK, l->fp);
	if (got == 0) {
		if (ferror(l->fp))
			return err_set(e, ERR_IO, "%s: read error: %s", l->name, strerror(errno));
		l->eof = 1;
		return 0;
	}
	if (l->h != NULL)
		hash_update(l->h, l->in, got);
	l->pos = 0;
	l->end = got;
	return 1;
}

static int
too_long(struct lines *l, struct err *e)
{
	return err_set(e, ERR_INPUT, "%s:%ld: line longer than %zu bytes", l->name, l->lineno + 1,
	    l->max);
}

int
lines_next(struct lines *l, const char **p, size_t *n, struct err *e)
{
	buf_reset(&l->line);
	for (;;) {
		int rc = l->pos == l->end ? refill(l, e) : 1;
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		char *s = l->in + l->pos, *nl = memchr(s, '\n', l->end - l->pos);
		size_t k = nl ? (size_t)(nl - s) : l->end - l->pos;
		if (nl != NULL && l->line.len == 0) {
			/* the common case: a whole line inside the chunk */
			if (k > l->max)
				return too_long(l, e);
			l->pos += k + 1;
			l->lineno++;
			*p = s;
			*n = k;
			return 1;
		}
		if (l->line.len + k > l->max)
			return too_long(l, e);
		if (buf_add(&l->line, s, k) < 0)
			return err_set(e, ERR_NOMEM, "%s: out of memory", l->name);
		l->pos += k + (nl != NULL);
		if (nl != NULL)
			break;
	}
	if (l->line.len == 0 && l->eof && l->pos == l->end)
		return 0;
	l->lineno++;
	*p = l->line.p ? l->line.p : "";
	*n = l->line.len;
	return 1;
}
