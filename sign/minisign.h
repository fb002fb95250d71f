/* minisign.h: Ed25519 signatures in minisign's file formats, so that
 * `minisign -V` verifies what cohort signs and cohort verifies what
 * minisign signs.
 *
 * A public key file is two lines: "untrusted comment: ..." and the base64
 * of "Ed", the 8-byte key id and the 32-byte key.  A secret key file is
 * two lines too; its base64 holds "Ed", the KDF ("Sc" for scrypt, or two
 * NULs for none), "B2", the scrypt salt, opslimit and memlimit (64-bit
 * little-endian), then the key id, the 64-byte secret key (seed and public
 * key) and a BLAKE2b-256 checksum, those 104 bytes XORed with the scrypt
 * stream when the key is encrypted.  A signature file (FILE.minisig) is
 * four lines: an untrusted comment, the base64 of "ED" (prehashed: the
 * signature is over BLAKE2b-512 of the file; "Ed" over the file itself,
 * read too), the key id and the signature; "trusted comment: TEXT"; and
 * the base64 of the global signature over the signature and TEXT.
 *
 * Errors: a key file that is not one is ERR_INPUT (exit 2); a signature
 * that does not hold, for any reason (another key, a changed file or
 * trusted comment, a truncated or garbled signature file) is ERR_FINDING
 * (exit 1), one line.  Secret bytes are wiped before they are freed and
 * never printed.
 */
#ifndef COHORT_MINISIGN_H
#define COHORT_MINISIGN_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

#define MS_ID_LEN 8
#define MS_TRUSTED_MAX 8192 /* minisign's limit on the trusted comment's line */

struct ms_pub {
	uint8_t id[MS_ID_LEN];
	uint8_t pk[32];
};

struct ms_sec {
	uint8_t id[MS_ID_LEN];
	uint8_t seed[32];
	uint8_t pk[32];
};

/* The key id as minisign prints it: 16 uppercase hex digits of the id read
 * as a little-endian number. */
void ms_id_format(const uint8_t id[MS_ID_LEN], char out[2 * MS_ID_LEN + 1]);

int ms_pub_read(const char *path, struct ms_pub *pk, struct err *e);
/* password: NULL for a key without a KDF (one with is refused, asking for
 * a password); the scrypt limits are the file's, as minisign reads them. */
int ms_sec_read(const char *path, const char *password, struct ms_sec *sk, struct err *e);
/* A new key pair, written to pub_path (0644) and sec_path (0600), each
 * atomically; an existing file is refused.  With a password the secret key
 * is encrypted with scrypt at minisign's own limits (opslimit 2^25,
 * memlimit 1 GiB), else it has no KDF (minisign -W). */
int ms_generate(const char *pub_path, const char *sec_path, const char *password,
                struct err *e);

/* Sign file's bytes into sig_path (atomically): prehashed, the untrusted
 * comment "signature from cohort secret key", and trusted, or when NULL
 * minisign's own "timestamp:T\tfile:NAME\thashed". */
int ms_sign(const struct ms_sec *sk, const char *file, const char *sig_path,
            const char *trusted, struct err *e);
/* 0 when sig_path is a good signature of file by pk; the trusted comment
 * then goes to trusted (NUL-terminated, cut at n - 1).  ERR_FINDING when it
 * is not. */
int ms_verify(const struct ms_pub *pk, const char *file, const char *sig_path,
              char *trusted, size_t n, struct err *e);

/* Ed25519 over m itself, for envelopes that sign their own encoding
 * (DSSE's PAE): 0, or -1 on a library failure; ms_verify_bytes is 1 when
 * sig is pk's signature of m. */
int ms_sign_bytes(const struct ms_sec *sk, const void *m, size_t n, uint8_t sig[64]);
int ms_verify_bytes(const struct ms_pub *pk, const void *m, size_t n, const uint8_t sig[64]);

/* Wipe n bytes in a way the compiler keeps. */
void ms_wipe(void *p, size_t n);

#endif
