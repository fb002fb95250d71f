/* buf.c: a growable byte buffer. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
buf_grow(struct buf *b, size_t n)
{
	size_t want, cap;
	char *p;

	if (n > ((size_t)-1) / 2 - b->len)
		return -1;
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int
buf_addc(struct buf *b, char c)
{
	if (b->len + 1 >= b->cap && buf_grow(b, 1) < 0)
		return -1;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
	return 0;
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void
buf_release(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void
buf_cut(struct buf *b, size_t len)
{
	if (b->p != NULL) {
		b->len = len;
		b->p[len] = '\0';
	}
}

int
buf_add_shown(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		int rc;
		if (*p == '\n')
			rc = buf_adds(b, "\\n");
		else if (*p == '\t')
			rc = buf_adds(b, "\\t");
		else if (*p == '\r')
			rc = buf_adds(b, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			rc = buf_printf(b, "\\x%02x", *p);
		else
			rc = buf_addc(b, (char)*p);
		if (rc < 0)
			return -1;
	}
	return 0;
}
