/* hash.c: SHA-256 through libcrypto: EVP for streams, SHA256() for one-shot
 * digests (both use the CPU's SHA instructions where present).  The only
 * file that includes OpenSSL's digest headers. */
#include "hash.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HEX_AVX2 1
#endif

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/* The algorithm is fetched once per context: an implicit fetch
 * (EVP_sha256() handed to an init, or the one-shot SHA256()) costs a
 * lookup under a lock per digest, about 300 ns, half the cost of hashing a
 * 650-byte record. */
struct hash {
	EVP_MD_CTX *ctx;
	EVP_MD *md; /* SHA-256 unless made by hash_new_alg */
};

static struct hash *
hash_new_named(const char *name)
{
	struct hash *h = OPENSSL_zalloc(sizeof *h);

	if (h == NULL)
		return NULL;
	h->ctx = EVP_MD_CTX_new();
	h->md = EVP_MD_fetch(NULL, name, NULL);
	if (h->ctx == NULL || h->md == NULL || hash_init(h) < 0) {
		hash_free(h);
		return NULL;
	}
	return h;
}

int
hash_ready(struct err *e)
{
	struct hash *h;

	if (OPENSSL_init_crypto(0, NULL) != 1 || (h = hash_new()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory (starting libcrypto)");
	hash_free(h);
	return 0;
}

struct hash *
hash_new(void)
{
	return hash_new_named("SHA256");
}

void
hash_free(struct hash *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->ctx);
	EVP_MD_free(h->md);
	OPENSSL_free(h);
}

int
hash_init(struct hash *h)
{
	return EVP_DigestInit_ex2(h->ctx, h->md, NULL) == 1 ? 0 : -1;
}

int
hash_digest(struct hash *h, const void *p, size_t n, uint8_t out[HASH_LEN])
{
	return hash_init(h) == 0 && hash_update(h, p, n) == 0 ? hash_final(h, out) : -1;
}

int
hash_update(struct hash *h, const void *p, size_t n)
{
	return EVP_DigestUpdate(h->ctx, p, n) == 1 ? 0 : -1;
}

int
hash_final(struct hash *h, uint8_t out[HASH_LEN])
{
	unsigned int n = 0;

	return EVP_DigestFinal_ex(h->ctx, out, &n) == 1 && n == HASH_LEN ? 0 : -1;
}

struct hash *
hash_new_alg(const char *alg)
{
	static const char *const algs[][2] = {
		{ "md5", "MD5" }, { "sha1", "SHA1" }, { "sha224", "SHA224" },
		{ "sha256", "SHA256" }, { "sha384", "SHA384" }, { "sha512", "SHA512" },
	};

	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (strcmp(alg, algs[i][0]) == 0)
			return hash_new_named(algs[i][1]);
	return NULL;
}

int
hash_final_alg(struct hash *h, uint8_t out[HASH_MAX_LEN], size_t *n)
{
	unsigned int len = 0;

	if (EVP_DigestFinal_ex(h->ctx, out, &len) != 1)
		return -1;
	*n = len;
	return 0;
}

int
hash_git_blob(const void *p, size_t n, char hex[HASH_GIT_HEX + 1])
{
	struct hash *h = hash_new_alg("sha1");
	uint8_t d[HASH_MAX_LEN];
	char head[48];
	size_t len = 0;
	int k = snprintf(head, sizeof head, "blob %zu", n), rc = 0;

	/* the header's NUL is hashed too: k + 1 bytes */
	if (h == NULL || hash_update(h, head, (size_t)k + 1) < 0 || hash_update(h, p, n) < 0 ||
	    hash_final_alg(h, d, &len) < 0 || len != HASH_GIT_HEX / 2)
		rc = -1;
	hash_free(h);
	for (size_t i = 0; rc == 0 && i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return rc;
}

void
hash_bytes(const void *p, size_t n, uint8_t out[HASH_LEN])
{
	/* The one-shot SHA256() costs about 1.7 us on a 650-byte record where
	 * EVP_Digest(..., EVP_sha256(), ...) costs 2.6 us (a context and an
	 * algorithm fetch per call); freeze and verify call this per record. */
	SHA256(p, n, out);
}

int
hash_file(const char *path, uint8_t out[HASH_LEN], uint64_t *size, struct err *e)
{
	static const size_t chunk = 1 << 20;
	struct hash *h;
	FILE *fp;
	char *b;
	uint64_t total = 0;
	size_t n;
	int rc = 0;

	fp = fopen(path, "rb");
	if (fp == NULL)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	h = hash_new();
	b = OPENSSL_malloc(chunk);
	if (h == NULL || b == NULL) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", path);
		goto done;
	}
	while ((n = fread(b, 1, chunk, fp)) > 0) {
		hash_update(h, b, n);
		total += n;
	}
	if (ferror(fp)) {
		rc = err_set(e, ERR_IO, "%s: read error: %s", path, strerror(errno));
		goto done;
	}
	hash_final(h, out);
	if (size)
		*size = total;
done:
	OPENSSL_free(b);
	hash_free(h);
	fclose(fp);
	return rc;
}

#ifdef HEX_AVX2
/* All 32 bytes' digits at once: each half byte looked up in a register of
 * the sixteen digits, the two halves interleaved (a manifest of a million
 * games writes a million digests). */
__attribute__((target("avx2"))) static void
hex_avx2(const uint8_t d[HASH_LEN], char out[2 * HASH_LEN])
{
	const __m256i digits = _mm256_setr_epi8('0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
	    'a', 'b', 'c', 'd', 'e', 'f', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b',
	    'c', 'd', 'e', 'f');
	const __m256i low = _mm256_set1_epi8(0x0f);
	__m256i v = _mm256_loadu_si256((const __m256i *)d);
	__m256i hi = _mm256_shuffle_epi8(digits, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
	__m256i lo = _mm256_shuffle_epi8(digits, _mm256_and_si256(v, low));
	/* per 128-bit lane: bytes 0-7 and 8-15 of each lane, interleaved */
	__m256i a = _mm256_unpacklo_epi8(hi, lo), b = _mm256_unpackhi_epi8(hi, lo);
	_mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(a, b, 0x20));
	_mm256_storeu_si256((__m256i *)(out + 32), _mm256_permute2x128_si256(a, b, 0x31));
}
#endif

void
hash_hex_format(const uint8_t d[HASH_LEN], char out[2 * HASH_LEN + 1])
{
#ifdef HEX_AVX2
	if (__builtin_cpu_supports("avx2")) {
		hex_avx2(d, out);
		out[2 * HASH_LEN] = '\0';
		return;
	}
#endif
	/* each byte's two digits at once: a million digests go into a manifest */
	static const char pairs[513] =
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

	for (int i = 0; i < HASH_LEN; i++)
		memcpy(out + 2 * i, pairs + 2 * d[i], 2);
	out[2 * HASH_LEN] = '\0';
}

void
hash_id_format(const uint8_t d[HASH_LEN], char out[HASH_ID_LEN + 1])
{
	memcpy(out, "sha256:", 7);
	hash_hex_format(d, out + 7);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
hash_id_parse(const char *s, uint8_t out[HASH_LEN])
{
	if (s == NULL || strncmp(s, "sha256:", 7) != 0 || strlen(s) != HASH_ID_LEN)
		return -1;
	s += 7;
	for (int i = 0; i < HASH_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
hash_cmp(const uint8_t a[HASH_LEN], const uint8_t b[HASH_LEN])
{
	return CRYPTO_memcmp(a, b, HASH_LEN) == 0 ? 0 : 1;
}

/* ------------------------- Ed25519, scrypt, random bytes (sign/, bundle/) */

int
hash_ed25519_sign(const uint8_t seed[32], const void *m, size_t n, uint8_t sig[64])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t len = 64;
	int ok = k != NULL && c != NULL && EVP_DigestSignInit(c, NULL, NULL, NULL, k) == 1 &&
	    EVP_DigestSign(c, sig, &len, m, n) == 1 && len == 64;

	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

int
hash_ed25519_verify(const uint8_t pk[32], const void *m, size_t n, const uint8_t sig[64])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = k != NULL && c != NULL && EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) == 1 &&
	    EVP_DigestVerify(c, sig, 64, m, n) == 1;

	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok;
}

int
hash_ed25519_public(const uint8_t seed[32], uint8_t pk[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	size_t len = 32;
	int ok = k != NULL && EVP_PKEY_get_raw_public_key(k, pk, &len) == 1 && len == 32;

	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

int
hash_scrypt(const char *password, const uint8_t *salt, size_t saltlen, uint64_t N, uint64_t r,
            uint64_t p, uint8_t *out, size_t n)
{
	/* room for scrypt's V (128 r N bytes) and B (128 r p), and a margin */
	return EVP_PBE_scrypt(password, strlen(password), salt, saltlen, N, r, p,
	                      128 * r * (N + p + 2) + 65536, out, n) == 1 ? 0 : -1;
}

int
hash_random(uint8_t *out, size_t n)
{
	return RAND_bytes(out, (int)n) == 1 ? 0 : -1;
}
