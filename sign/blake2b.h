/* blake2b.h: BLAKE2b (RFC 7693), unkeyed, with any digest length from 1 to
 * 64 bytes.  minisign prehashes a file with BLAKE2b-512 and checks a secret
 * key with BLAKE2b-256; the second is not a truncation of the first (the
 * length is in the parameter block), and libcrypto 3.0 offers only the
 * 512-bit one, so both come from here. */
#ifndef COHORT_BLAKE2B_H
#define COHORT_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

struct blake2b {
	uint64_t h[8];
	uint64_t t[2];    /* bytes hashed so far */
	uint8_t b[128];   /* the block being filled */
	size_t c;         /* bytes in b */
	size_t outlen;
};

/* outlen: 1 to 64. */
void blake2b_init(struct blake2b *s, size_t outlen);
void blake2b_update(struct blake2b *s, const void *p, size_t n);
/* Writes s->outlen bytes. */
void blake2b_final(struct blake2b *s, uint8_t *out);
void blake2b(const void *p, size_t n, uint8_t *out, size_t outlen);

#endif
