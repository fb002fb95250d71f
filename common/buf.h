/* buf.h: a growable byte buffer.
 *
 * Ownership: a struct buf owns its bytes; buf_release frees them and leaves
 * an empty buffer.  The bytes are always followed by a NUL that is not
 * counted in len, so p can be used as a C string when it holds text.
 */
#ifndef COHORT_BUF_H
#define COHORT_BUF_H

#include <stddef.h>

struct buf {
	char *p;    /* bytes, NUL-terminated; NULL while empty */
	size_t len; /* bytes used, without the NUL */
	size_t cap; /* bytes allocated */
};

#define BUF_INIT { NULL, 0, 0 }

/* Make room for n more bytes; -1 when out of memory. */
int buf_grow(struct buf *b, size_t n);
int buf_add(struct buf *b, const void *p, size_t n);
int buf_addc(struct buf *b, char c);
int buf_adds(struct buf *b, const char *s);
/* s as it may be shown on a terminal: control characters (a newline, ESC,
 * ...) and DEL written as \n, \t, \r or \xNN, so that a file name holding
 * them stays on its line and moves no cursor. */
int buf_add_shown(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_reset(struct buf *b);
/* Cut b back to its first len bytes (len <= b->len). */
void buf_cut(struct buf *b, size_t len);
void buf_release(struct buf *b);

#endif
