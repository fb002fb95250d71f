/* minisign.c: minisign's key and signature files on libcrypto's Ed25519
 * and scrypt, through common/hash.h (see minisign.h for the formats). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/base64.h"
#include "../common/buf.h"
#include "../common/hash.h"
#include "../common/io.h"
#include "blake2b.h"
#include "minisign.h"

#define SIG_ALG "Ed"
#define SIG_ALG_HASHED "ED"
#define KDF_SCRYPT "Sc"
#define CHK_ALG "B2"
#define UNTRUSTED "untrusted comment: "
#define TRUSTED "trusted comment: "
#define PUB_LEN (2 + MS_ID_LEN + 32)
#define KEYNUM_LEN (MS_ID_LEN + 64 + 32)  /* id, secret key, checksum */
#define SEC_LEN (2 + 2 + 2 + 32 + 8 + 8 + KEYNUM_LEN)
#define SIG_LEN (2 + MS_ID_LEN + 64)
#define MAX_KEYFILE 65536
/* minisign's scrypt limits for a new encrypted key (libsodium's
 * crypto_pwhash_scryptsalsa208sha256_*_SENSITIVE) */
#define OPSLIMIT_SENSITIVE 33554432ULL
#define MEMLIMIT_SENSITIVE 1073741824ULL

void
ms_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

void
ms_id_format(const uint8_t id[MS_ID_LEN], char out[2 * MS_ID_LEN + 1])
{
	for (int i = 0; i < MS_ID_LEN; i++)
		snprintf(out + 2 * i, 3, "%02X", id[MS_ID_LEN - 1 - i]);
}

/* -------------------------------------------------------------- lines */

struct lines {
	struct buf text;
	const char *line[5];
	size_t len[5];
	size_t n;
};

/* The file's lines (at most 5 kept), each without its "\n" or "\r\n". */
static int
lines_read(const char *path, struct lines *l, struct err *e)
{
	size_t start = 0;

	memset(l, 0, sizeof *l);
	if (io_read_all(path, &l->text, MAX_KEYFILE, e) < 0)
		return -1;
	for (size_t i = 0; i <= l->text.len && l->n < 5; i++) {
		if (i < l->text.len && l->text.p[i] != '\n')
			continue;
		if (i == l->text.len && i == start)
			break;
		l->line[l->n] = l->text.p + start;
		l->len[l->n] = i - start;
		if (l->len[l->n] > 0 && l->line[l->n][l->len[l->n] - 1] == '\r')
			l->len[l->n]--;
		l->n++;
		start = i + 1;
	}
	return 0;
}

static void
lines_free(struct lines *l)
{
	ms_wipe(l->text.p, l->text.len);
	buf_release(&l->text);
}

static int
has_prefix(const struct lines *l, size_t i, const char *prefix)
{
	size_t n = strlen(prefix);

	return i < l->n && l->len[i] >= n && memcmp(l->line[i], prefix, n) == 0;
}

int
ms_sign_bytes(const struct ms_sec *sk, const void *m, size_t n, uint8_t sig[64])
{
	return hash_ed25519_sign(sk->seed, m, n, sig);
}

int
ms_verify_bytes(const struct ms_pub *pk, const void *m, size_t n, const uint8_t sig[64])
{
	return hash_ed25519_verify(pk->pk, m, n, sig);
}

/* ------------------------------------------------------------- scrypt */

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* libsodium's crypto_pwhash_scryptsalsa208sha256 turns (opslimit,
 * memlimit) into scrypt's N, r, p thus (its pickparams); minisign keeps
 * the two limits in the key file, so the same turn gives the same stream. */
static void
scrypt_params(uint64_t ops, uint64_t mem, uint64_t *N, uint64_t *r, uint64_t *p)
{
	uint64_t maxn;
	int nlog2;

	if (ops < 32768)
		ops = 32768;
	*r = 8;
	maxn = ops < mem / 32 ? ops / (*r * 4) : mem / (*r * 128);
	for (nlog2 = 1; nlog2 < 63; nlog2++)
		if ((uint64_t)1 << nlog2 > maxn / 2)
			break;
	*N = (uint64_t)1 << nlog2;
	if (ops < mem / 32) {
		*p = 1;
	} else {
		uint64_t maxrp = (ops / 4) / *N;

		*p = (maxrp > 0x3fffffff ? 0x3fffffff : maxrp) / *r;
	}
}

static int
scrypt_stream(const char *password, const uint8_t salt[32], uint64_t ops, uint64_t mem,
              uint8_t out[KEYNUM_LEN], struct err *e)
{
	uint64_t N, r, p;

	scrypt_params(ops, mem, &N, &r, &p);
	/* at most 4 GiB of scrypt memory */
	if (p == 0 || N > ((uint64_t)1 << 32) / (128 * r))
		return err_set(e, ERR_INPUT, "the key's scrypt limits are out of range");
	if (hash_scrypt(password, salt, 32, N, r, p, out, KEYNUM_LEN) < 0)
		return err_set(e, ERR_NOMEM, "scrypt failed (out of memory?)");
	return 0;
}

/* ---------------------------------------------------------- key files */

/* The base64 line of a two-line key file, decoded to want bytes. */
static int
key_body(const char *path, const char *what, uint8_t *out, size_t want, struct err *e)
{
	struct lines l;
	int rc = 0;

	if (lines_read(path, &l, e) < 0)
		return -1;
	if (!has_prefix(&l, 0, UNTRUSTED))
		rc = err_set(e, ERR_INPUT, "%s:1: not a minisign %s: expected \"%s\"", path, what,
		             UNTRUSTED);
	else if (l.n != 2)
		rc = err_set(e, ERR_INPUT, "%s: not a minisign %s: expected 2 lines, got %zu", path,
		             what, l.n);
	else if (base64_decode(l.line[1], l.len[1], out, want) < 0)
		rc = err_set(e, ERR_INPUT, "%s:2: not a minisign %s: expected the base64 of %zu bytes",
		             path, what, want);
	lines_free(&l);
	return rc;
}

int
ms_pub_read(const char *path, struct ms_pub *pk, struct err *e)
{
	uint8_t raw[PUB_LEN];

	if (key_body(path, "public key", raw, sizeof raw, e) < 0)
		return -1;
	if (memcmp(raw, SIG_ALG, 2) != 0)
		return err_set(e, ERR_INPUT, "%s:2: the key's algorithm is not Ed25519 (\"Ed\")", path);
	memcpy(pk->id, raw + 2, MS_ID_LEN);
	memcpy(pk->pk, raw + 2 + MS_ID_LEN, 32);
	return 0;
}

/* BLAKE2b-256 of the algorithm, the key id and the secret key. */
static void
sec_checksum(const uint8_t *raw, const uint8_t *keynum, uint8_t out[32])
{
	struct blake2b s;

	blake2b_init(&s, 32);
	blake2b_update(&s, raw, 2);
	blake2b_update(&s, keynum, MS_ID_LEN + 64);
	blake2b_final(&s, out);
}

static int
sec_open(const char *path, const char *password, uint8_t raw[SEC_LEN], struct err *e)
{
	static const uint8_t zero[32];
	uint8_t *keynum = raw + SEC_LEN - KEYNUM_LEN, stream[KEYNUM_LEN], sum[32];
	int encrypted = memcmp(raw + 2, KDF_SCRYPT, 2) == 0;

	if (memcmp(raw, SIG_ALG, 2) != 0 || memcmp(raw + 4, CHK_ALG, 2) != 0)
		return err_set(e, ERR_INPUT, "%s:2: not a minisign secret key: expected \"Ed\" and "
		               "\"B2\"", path);
	if (!encrypted && memcmp(raw + 2, "\0\0", 2) != 0)
		return err_set(e, ERR_INPUT, "%s:2: unknown key derivation", path);
	if (encrypted && password == NULL)
		return err_set(e, ERR_USAGE, "%s: the key is encrypted: give its password", path);
	if (encrypted) {
		if (scrypt_stream(password, raw + 6, le64(raw + 38), le64(raw + 46), stream, e) < 0)
			return err_prefix(e, "%s", path);
		for (int i = 0; i < KEYNUM_LEN; i++)
			keynum[i] ^= stream[i];
		ms_wipe(stream, sizeof stream);
	}
	sec_checksum(raw, keynum, sum);
	/* minisign leaves the checksum of a key without a KDF zero */
	if (!encrypted && memcmp(keynum + MS_ID_LEN + 64, zero, 32) == 0)
		return 0;
	if (memcmp(sum, keynum + MS_ID_LEN + 64, 32) != 0)
		return err_set(e, ERR_INPUT, encrypted ? "%s: wrong password for this key" :
		               "%s:2: the secret key's checksum does not hold", path);
	return 0;
}

int
ms_sec_read(const char *path, const char *password, struct ms_sec *sk, struct err *e)
{
	uint8_t raw[SEC_LEN], pk[32];
	const uint8_t *keynum = raw + SEC_LEN - KEYNUM_LEN;
	int rc = -1;

	if (key_body(path, "secret key", raw, sizeof raw, e) < 0 ||
	    sec_open(path, password, raw, e) < 0)
		goto done;
	memcpy(sk->id, keynum, MS_ID_LEN);
	memcpy(sk->seed, keynum + MS_ID_LEN, 32);
	memcpy(sk->pk, keynum + MS_ID_LEN + 32, 32);
	if (hash_ed25519_public(sk->seed, pk) < 0 || memcmp(pk, sk->pk, 32) != 0) {
		err_set(e, ERR_INPUT, "%s:2: the secret key's two halves do not match", path);
		goto done;
	}
	rc = 0;
done:
	ms_wipe(raw, sizeof raw);
	if (rc < 0)
		ms_wipe(sk, sizeof *sk);
	return rc;
}

/* The two lines of a key file, written atomically with its mode (0666:
 * what the umask leaves, as every output). */
static int
key_write(const char *path, int mode, const char *comment, const uint8_t *raw, size_t n,
          struct err *e)
{
	struct outfile o = OUTFILE_INIT;
	struct buf b = BUF_INIT;
	int rc = -1;

	if (buf_printf(&b, "%s%s\n", UNTRUSTED, comment) < 0 || base64_encode(&b, raw, n) < 0 ||
	    buf_addc(&b, '\n') < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (outfile_open_mode(&o, path, mode, e) < 0 || outfile_write(&o, b.p, b.len, e) < 0 ||
	    outfile_commit(&o, e) < 0)
		goto done;
	rc = 0;
done:
	outfile_abort(&o);
	ms_wipe(b.p, b.len);
	buf_release(&b);
	return rc;
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 || errno != ENOENT;
}

/* The secret key's raw bytes for sk, encrypted when password is given. */
static int
sec_seal(const struct ms_sec *sk, const char *password, uint8_t raw[SEC_LEN], struct err *e)
{
	uint8_t *keynum = raw + SEC_LEN - KEYNUM_LEN, stream[KEYNUM_LEN];

	memset(raw, 0, SEC_LEN);
	memcpy(raw, SIG_ALG, 2);
	memcpy(raw + 4, CHK_ALG, 2);
	memcpy(keynum, sk->id, MS_ID_LEN);
	memcpy(keynum + MS_ID_LEN, sk->seed, 32);
	memcpy(keynum + MS_ID_LEN + 32, sk->pk, 32);
	sec_checksum(raw, keynum, keynum + MS_ID_LEN + 64);
	if (password == NULL)
		return 0;
	memcpy(raw + 2, KDF_SCRYPT, 2);
	if (hash_random(raw + 6, 32) < 0)
		return err_set(e, ERR_IO, "no random bytes for the salt");
	le64_put(raw + 38, OPSLIMIT_SENSITIVE);
	le64_put(raw + 46, MEMLIMIT_SENSITIVE);
	if (scrypt_stream(password, raw + 6, OPSLIMIT_SENSITIVE, MEMLIMIT_SENSITIVE, stream, e) < 0)
		return -1;
	for (int i = 0; i < KEYNUM_LEN; i++)
		keynum[i] ^= stream[i];
	ms_wipe(stream, sizeof stream);
	return 0;
}

int
ms_generate(const char *pub_path, const char *sec_path, const char *password, struct err *e)
{
	struct ms_sec sk;
	uint8_t raw[SEC_LEN], pub[PUB_LEN];
	char id[2 * MS_ID_LEN + 1], comment[64];
	int rc = -1;

	if (exists(pub_path) || exists(sec_path))
		return err_set(e, ERR_USAGE, "%s exists: a key is never overwritten",
		               exists(pub_path) ? pub_path : sec_path);
	if (hash_random(sk.id, MS_ID_LEN) < 0 || hash_random(sk.seed, 32) < 0 ||
	    hash_ed25519_public(sk.seed, sk.pk) < 0) {
		err_set(e, ERR_IO, "no random bytes for the key");
		goto done;
	}
	if (sec_seal(&sk, password, raw, e) < 0 ||
	    key_write(sec_path, 0600, "minisign encrypted secret key", raw, sizeof raw, e) < 0)
		goto done;
	memcpy(pub, SIG_ALG, 2);
	memcpy(pub + 2, sk.id, MS_ID_LEN);
	memcpy(pub + 2 + MS_ID_LEN, sk.pk, 32);
	ms_id_format(sk.id, id);
	snprintf(comment, sizeof comment, "minisign public key %s", id);
	if (key_write(pub_path, 0666, comment, pub, sizeof pub, e) < 0) {
		remove(sec_path);
		goto done;
	}
	rc = 0;
done:
	ms_wipe(&sk, sizeof sk);
	ms_wipe(raw, sizeof raw);
	return rc;
}

/* ---------------------------------------------------------- signatures */

/* BLAKE2b-512 of a file, streamed. */
static int
file_prehash(const char *path, uint8_t out[64], struct err *e)
{
	FILE *fp = fopen(path, "rb");
	struct blake2b s;
	char chunk[65536];
	size_t n;
	int bad;

	if (fp == NULL)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	blake2b_init(&s, 64);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		blake2b_update(&s, chunk, n);
	bad = ferror(fp);
	fclose(fp);
	if (bad)
		return err_set(e, ERR_IO, "%s: read error", path);
	blake2b_final(&s, out);
	return 0;
}

/* A trusted comment is one line of printable text (minisign refuses
 * control characters in it). */
static int
trusted_ok(const char *t, size_t n)
{
	if (n + strlen(TRUSTED) >= MS_TRUSTED_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 && t[i] != '\t')
			return 0;
	return 1;
}

static int
sig_text(const struct ms_sec *sk, const uint8_t hash[64], const char *trusted, struct buf *b,
         struct err *e)
{
	uint8_t sig[SIG_LEN], global[64];
	struct buf signed_part = BUF_INIT;
	size_t tn = strlen(trusted);
	int rc = -1;

	if (!trusted_ok(trusted, tn))
		return err_set(e, ERR_USAGE, "the trusted comment must be one line of text");
	memcpy(sig, SIG_ALG_HASHED, 2);
	memcpy(sig + 2, sk->id, MS_ID_LEN);
	if (hash_ed25519_sign(sk->seed, hash, 64, sig + 2 + MS_ID_LEN) < 0 ||
	    buf_add(&signed_part, sig + 2 + MS_ID_LEN, 64) < 0 ||
	    buf_add(&signed_part, trusted, tn) < 0 ||
	    hash_ed25519_sign(sk->seed, signed_part.p, signed_part.len, global) < 0) {
		err_set(e, ERR_NOMEM, "cannot sign (libcrypto)");
		goto done;
	}
	if (buf_printf(b, "%ssignature from cohort secret key\n", UNTRUSTED) < 0 ||
	    base64_encode(b, sig, sizeof sig) < 0 || buf_printf(b, "\n%s%s\n", TRUSTED, trusted) < 0 ||
	    base64_encode(b, global, sizeof global) < 0 || buf_addc(b, '\n') < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = 0;
done:
	buf_release(&signed_part);
	return rc;
}

int
ms_sign(const struct ms_sec *sk, const char *file, const char *sig_path, const char *trusted,
        struct err *e)
{
	uint8_t hash[64];
	struct buf b = BUF_INIT, tc = BUF_INIT;
	const char *base = strrchr(file, '/');
	int rc = -1;

	if (trusted == NULL) {
		/* minisign's default, so a reader sees when and what */
		if (buf_printf(&tc, "timestamp:%lld\tfile:%s\thashed", (long long)time(NULL),
		               base != NULL ? base + 1 : file) < 0) {
			err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		trusted = tc.p;
	}
	if (file_prehash(file, hash, e) < 0 || sig_text(sk, hash, trusted, &b, e) < 0 ||
	    io_write_all(sig_path, b.p, b.len, e) < 0)
		goto done;
	rc = 0;
done:
	buf_release(&b);
	buf_release(&tc);
	return rc;
}

struct sigfile {
	uint8_t raw[SIG_LEN];
	uint8_t global[64];
	struct buf trusted;
};

/* The four lines of a signature file; any fault is a finding, since a
 * signature that cannot be read does not hold. */
static int
sig_read(const char *path, struct sigfile *s, struct err *e)
{
	struct lines l;
	size_t tl = strlen(TRUSTED);
	int rc = -1;

	if (lines_read(path, &l, e) < 0)
		return -1;
	if (!has_prefix(&l, 0, UNTRUSTED) || l.n < 2 ||
	    base64_decode(l.line[1], l.len[1], s->raw, SIG_LEN) < 0)
		err_set(e, ERR_FINDING, "%s:2: not a signature: expected the base64 of %d bytes",
		        path, SIG_LEN);
	else if (memcmp(s->raw, SIG_ALG, 2) != 0 && memcmp(s->raw, SIG_ALG_HASHED, 2) != 0)
		err_set(e, ERR_FINDING, "%s:2: not an Ed25519 signature", path);
	else if (!has_prefix(&l, 2, TRUSTED) || !trusted_ok(l.line[2] + tl, l.len[2] - tl))
		err_set(e, ERR_FINDING, "%s:3: no trusted comment: the signature is truncated", path);
	else if (l.n != 4 || base64_decode(l.line[3], l.len[3], s->global, 64) < 0)
		err_set(e, ERR_FINDING, "%s:4: no global signature: the signature is truncated", path);
	else if (buf_add(&s->trusted, l.line[2] + tl, l.len[2] - tl) < 0)
		err_set(e, ERR_NOMEM, "out of memory");
	else
		rc = 0;
	lines_free(&l);
	return rc;
}

/* The signed message: the file's BLAKE2b-512, or the file itself (a
 * legacy "Ed" signature). */
static int
sig_message(const char *file, int hashed, struct buf *m, struct err *e)
{
	uint8_t hash[64];

	if (!hashed)
		return io_read_all(file, m, IO_MAX_DOCUMENT, e);
	if (file_prehash(file, hash, e) < 0)
		return -1;
	return buf_add(m, hash, 64) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

static int
sig_check(const struct ms_pub *pk, const char *file, const char *sig_path, struct sigfile *s,
          struct err *e)
{
	struct buf m = BUF_INIT;
	char want[2 * MS_ID_LEN + 1], got[2 * MS_ID_LEN + 1];
	int rc = -1;

	if (memcmp(s->raw + 2, pk->id, MS_ID_LEN) != 0) {
		ms_id_format(s->raw + 2, got);
		ms_id_format(pk->id, want);
		return err_set(e, ERR_FINDING, "%s: signed by key %s, not by this key (%s)", sig_path,
		               got, want);
	}
	if (sig_message(file, memcmp(s->raw, SIG_ALG_HASHED, 2) == 0, &m, e) < 0)
		return -1;
	if (!hash_ed25519_verify(pk->pk, m.p, m.len, s->raw + 2 + MS_ID_LEN)) {
		err_set(e, ERR_FINDING, "%s: the signature does not hold: the file was changed or "
		        "signed with another key", file);
		goto done;
	}
	buf_reset(&m);
	if (buf_add(&m, s->raw + 2 + MS_ID_LEN, 64) < 0 ||
	    buf_add(&m, s->trusted.p, s->trusted.len) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (!hash_ed25519_verify(pk->pk, m.p, m.len, s->global)) {
		err_set(e, ERR_FINDING, "%s:3: the trusted comment was changed", sig_path);
		goto done;
	}
	rc = 0;
done:
	buf_release(&m);
	return rc;
}

int
ms_verify(const struct ms_pub *pk, const char *file, const char *sig_path, char *trusted,
          size_t n, struct err *e)
{
	struct sigfile s;
	int rc;

	memset(&s, 0, sizeof s);
	rc = sig_read(sig_path, &s, e);
	if (rc == 0)
		rc = sig_check(pk, file, sig_path, &s, e);
	if (rc == 0 && n > 0)
		snprintf(trusted, n, "%s", s.trusted.p != NULL ? s.trusted.p : "");
	buf_release(&s.trusted);
	return rc;
}
