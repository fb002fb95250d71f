/* rec.h: one JSON Lines record read flat, without a tree.
 *
 * A freeze canonicalizes and summarizes every record of a ledger, and a
 * verify does it again for every stored record; building a cJSON tree per
 * record (dozens of allocations, strtod and printf per number) was most of
 * the cost.  rec_scan reads the common shape of a record into a flat array
 * of tokens and writes its canonical bytes in the same pass.  The common
 * shape is: one object, ASCII keys, strings without escapes or control
 * characters, numbers without an exponent and with at most 15 significant
 * digits, nesting at most REC_MAX_DEPTH.  Anything else, including every
 * error, answers REC_OTHER: the caller then reads the record with the
 * strict tree reader (json.h), which accepts or refuses it with the message
 * users see.  So this reader only has to be right when it says yes, and a
 * test and a fuzz target check that its yes always agrees with the tree
 * reader and the canonical writer byte for byte.
 *
 * Ownership: a struct rec_scan is scratch for one thread, reused record
 * after record (rec_scan_new / rec_scan_free).  Token text points into the
 * caller's input, which must outlive the lookups.
 */
#ifndef COHORT_REC_H
#define COHORT_REC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/buf.h"

#define REC_MAX_DEPTH 16

enum { REC_OK = 0, REC_OTHER = 1, REC_NOMEM = -1 };
/* REC_XSTRING: a string value holding escapes; rec_str gives its JSON
 * text as written (canonical in a record rec_check said yes to), not its
 * characters, so a reader that needs them takes the tree reader's way. */
enum { REC_OBJECT, REC_ARRAY, REC_STRING, REC_NUMBER, REC_TRUE, REC_FALSE, REC_NULL,
	REC_XSTRING };

struct rec_scan;

struct rec_scan *rec_scan_new(void);
void rec_scan_free(struct rec_scan *s);
/* For tests: read without AVX2 where the processor has it (the SSE2 or
 * plain C way every x86-64 processor takes otherwise). */
void rec_scan_no_avx2(struct rec_scan *s);

/* Read p[0..n) and append its canonical bytes to canon.  REC_OK, REC_OTHER
 * (not the common shape, or not valid: canon is then unspecified), or
 * REC_NOMEM.  Token 0 is the top-level object. */
int rec_scan(struct rec_scan *s, const char *p, size_t n, struct buf *canon);

/* rec_scan for text that should already be canonical (a stored record):
 * REC_OK only when p[0..n) is exactly the canonical bytes rec_scan would
 * write, with nothing written; the lookups below then work on it. */
int rec_check(struct rec_scan *s, const char *p, size_t n);
/* rec_scan by the quicker way of rec_check when p[0..n) is canonical
 * already (its bytes then copied), as a log written canonical is: the same
 * results, canon ending in a NUL.  With as_is, a text canonical already is
 * not copied: *as_is says whether it was (1: nothing appended).  When
 * records keep not being canonical, it stops asking for a while. */
int rec_canon(struct rec_scan *s, const char *p, size_t n, struct buf *canon, int *as_is);
/* Records of a ledger mostly share a shape: the same keys in the same
 * places, only their values differing.  rec_check remembers the last few
 * shapes and reads a record of one of them by comparing the bytes between
 * values and reading only the values.  rec_shape names the shape of the
 * record just read (nonzero), or 0: two records read by one rec_scan with
 * the same nonzero shape have the same token for every member of every
 * object, so member lookups give the same answers. */
uint64_t rec_shape(const struct rec_scan *s);

/* The value of key in object token obj, or -1 when absent (or obj is not
 * an object). */
int rec_member(const struct rec_scan *s, int obj, const char *key);
/* A list of ASCII keys in byte order (which for them is RFC 8785 order),
 * made ready once for rec_members. */
#define REC_MAX_KEYS 32
struct rec_keys {
	int n;
	const char *key[REC_MAX_KEYS];
	size_t len[REC_MAX_KEYS];
	uint64_t pre[REC_MAX_KEYS];
};
/* -1 when keys are more than REC_MAX_KEYS or out of order. */
int rec_keys_init(struct rec_keys *k, const char *const *keys, int n);
/* rec_member for every key of k at once: out[i] gets the value of key i or
 * -1.  One merge of two sorted lists, instead of a search per key. */
void rec_members(const struct rec_scan *s, int obj, const struct rec_keys *k, int *out);
/* A token's type (REC_*), or -1 for tok < 0. */
int rec_type(const struct rec_scan *s, int tok);
/* A string token's bytes (not NUL-terminated: strings hold no escapes, so
 * these are its characters). */
const char *rec_str(const struct rec_scan *s, int tok, size_t *len);
/* A number token's value, exactly as strtod reads it: 0, or -1 when it
 * is not a number or not finite (the caller then takes the tree reader's
 * way, which words the error). */
int rec_num(const struct rec_scan *s, int tok, double *x);
/* rec_num for a number token's text (exactly strtod's value, or -1).
 * Numbers with at most 15 digits and no exponent take one exact integer
 * and one power of ten; the others one strtod. */
int rec_num_text(const char *p, size_t len, double *x);
/* rec_num_text's quick way, inline, for the common numbers (at most 15
 * digits, point or not: their digits as one integer, exact below 2^53,
 * over one exact power of ten, one IEEE rounding); 1 for the others. */
static inline int
rec_num_quick(const char *text, size_t len, double *x)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15 };
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	int neg = len > 0 && *p == '-', digits = 0, frac = -1;
	uint64_t m = 0;

	for (p += neg; p < end && digits <= 15; p++) {
		if (*p == '.') {
			frac = 0;
			continue;
		}
		if (*p < '0' || *p > '9')
			return 1; /* an exponent */
		m = m * 10 + (uint64_t)(*p - '0');
		digits++;
		frac += frac >= 0;
	}
	if (p != end || digits > 15 || len == 0)
		return 1;
	*x = frac > 0 ? (double)m / p10[frac] : (double)m;
	if (neg)
		*x = -*x;
	return 0;
}
/* Of the eight bytes in x (loaded as they lie in memory, little-endian),
 * those a string cannot hold as they are, or past ASCII: a quote, a
 * backslash, a control character, a byte from 0x80.  Their high bits are
 * set, and the lowest set is the first such byte (a borrow runs only
 * upward from a true one).  Zero when all eight are plain. */
static inline uint64_t
rec_special8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

	return (((q - ones) & ~q) | ((b - ones) & ~b) | (x - ones * 0x20) | x) &
	    0x8080808080808080ull;
}
/* A token's type and text at once: type is REC_*, -1 for an absent
 * token (tok < 0), -2 for no token; p and len as rec_str gives them for
 * strings, the number's text for numbers. */
struct rec_view {
	const char *p;
	size_t len;
	int type;
};
/* Views of n tokens in one call, where rec_type and rec_str would make
 * two calls each. */
void rec_views(const struct rec_scan *s, const int *tok, int n, struct rec_view *out);
/* 1 when token arr is an array of strings only (or of nothing). */
int rec_all_strings(const struct rec_scan *s, int arr);
/* Elements of an array token: the first, then each next; -1 at the end. */
int rec_first(const struct rec_scan *s, int arr);
int rec_next(const struct rec_scan *s, int arr, int tok);

#endif
