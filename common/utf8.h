/* utf8.h: the one definition of well-formed UTF-8 (RFC 3629: no overlong
 * forms, no UTF-16 surrogates, nothing past U+10FFFF) that every reader
 * shares. */
#ifndef COHORT_UTF8_H
#define COHORT_UTF8_H

#include <stddef.h>

/* Length (1 to 4) of the well-formed sequence at p, reading nothing at or
 * past end; 0 when there is none.  Stops reading at the first byte that
 * cannot continue the sequence, so a NUL-terminated string is safe with
 * end = p + 4. */
size_t utf8_seq_len(const unsigned char *p, const unsigned char *end);

/* 1 when s[0..n) is well-formed UTF-8. */
int utf8_valid(const unsigned char *s, size_t n);

#endif
