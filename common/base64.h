/* base64.h: RFC 4648 base64 (the standard alphabet, padded), the one
 * reader and writer of it for key files, signatures and DSSE envelopes.
 * (The credential scan looks for base64 in any text, leniently, on its
 * own: it finds, it does not read.) */
#ifndef COHORT_BASE64_H
#define COHORT_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Append the base64 of p[0..n) to b; -1 when out of memory. */
int base64_encode(struct buf *b, const uint8_t *p, size_t n);
/* Decode s[0..len): 0 when it is the padded base64 of exactly want bytes
 * (written to out), else -1. */
int base64_decode(const char *s, size_t len, uint8_t *out, size_t want);
/* The number of bytes s[0..len) decodes to, or -1 when it is not padded
 * base64; with base64_decode reads a text of any length. */
long long base64_len(const char *s, size_t len);

#endif
