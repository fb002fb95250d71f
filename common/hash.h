/* hash.h: SHA-256 and content identities, and the only door to libcrypto
 * (Ed25519, scrypt and random bytes for signatures are at the end).
 *
 * An identity is "sha256:" followed by 64 lowercase hex digits of the
 * SHA-256 of a document's canonical bytes.  No function here allocates
 * except hash_new, whose result hash_free releases.
 */
#ifndef COHORT_HASH_H
#define COHORT_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define HASH_LEN 32
#define HASH_ID_LEN 71 /* "sha256:" + 64 hex, without the NUL */

struct hash;

/* FNV-1a (64 bits) of p[0..n), going on from h (HASH_FNV_BASIS to begin):
 * the hash of an in-memory table's keys, not a digest. */
#define HASH_FNV_BASIS 14695981039346656037ULL
static inline uint64_t
hash_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* libcrypto's first use builds its library context and method store;
 * two threads doing that at once where memory runs short can touch a lock
 * it failed to make.  Called once by the program before any thread: 0, or
 * -1 with e set (out of memory). */
int hash_ready(struct err *e);

struct hash *hash_new(void);
void hash_free(struct hash *h);
/* Start (or restart) a digest. */
int hash_init(struct hash *h);
int hash_update(struct hash *h, const void *p, size_t n);
int hash_final(struct hash *h, uint8_t out[HASH_LEN]);

/* Other digests, for BagIt manifests: "md5", "sha1", "sha224", "sha256",
 * "sha384" or "sha512".  NULL when alg is not one of them (or out of
 * memory).  hash_init restarts the same algorithm; hash_final_alg stores
 * the digest's length in *n. */
#define HASH_MAX_LEN 64
struct hash *hash_new_alg(const char *alg);
int hash_final_alg(struct hash *h, uint8_t out[HASH_MAX_LEN], size_t *n);

/* Git's id of a blob of the n bytes p, as a repository of git's SHA-1
 * object format (the one libgit2 opens) names it: the SHA-1 of "blob N",
 * a NUL and the bytes, in 40 lowercase hex digits.  What `git rev-parse
 * COMMIT:PATH` prints for a file of those bytes.  0, or -1 on a library
 * failure (out of memory). */
#define HASH_GIT_HEX 40
int hash_git_blob(const void *p, size_t n, char hex[HASH_GIT_HEX + 1]);

/* One digest of n bytes with h's context (restarted): the cheap way to
 * hash many small records on one thread.  0, or -1 on a library failure. */
int hash_digest(struct hash *h, const void *p, size_t n, uint8_t out[HASH_LEN]);
/* One-shot digest of n bytes. */
void hash_bytes(const void *p, size_t n, uint8_t out[HASH_LEN]);
/* Digest a whole file (streamed). */
int hash_file(const char *path, uint8_t out[HASH_LEN], uint64_t *size, struct err *e);

/* "sha256:<hex>" into out, NUL-terminated. */
void hash_id_format(const uint8_t d[HASH_LEN], char out[HASH_ID_LEN + 1]);
/* Lowercase hex only, 64 digits and a NUL. */
void hash_hex_format(const uint8_t d[HASH_LEN], char out[2 * HASH_LEN + 1]);
/* Parse "sha256:<64 lowercase hex>"; -1 if it is not one. */
int hash_id_parse(const char *s, uint8_t out[HASH_LEN]);
/* Constant-time comparison: 0 when equal. */
int hash_cmp(const uint8_t a[HASH_LEN], const uint8_t b[HASH_LEN]);


/* The rest of libcrypto that cohort uses, so that this stays its one door.
 * Ed25519 with 32-byte seeds and public keys and 64-byte signatures: sign
 * and derive return 0 or -1 (a library failure); verify is 1 when sig is
 * pk's signature of m.  scrypt(password, salt, N, r, p) into n bytes: 0, or
 * -1 (parameters out of range, out of memory).  Random bytes from the
 * system's generator: 0 or -1. */
int hash_ed25519_sign(const uint8_t seed[32], const void *m, size_t n, uint8_t sig[64]);
int hash_ed25519_verify(const uint8_t pk[32], const void *m, size_t n, const uint8_t sig[64]);
int hash_ed25519_public(const uint8_t seed[32], uint8_t pk[32]);
int hash_scrypt(const char *password, const uint8_t *salt, size_t saltlen, uint64_t N,
                uint64_t r, uint64_t p, uint8_t *out, size_t n);
int hash_random(uint8_t *out, size_t n);

#endif
