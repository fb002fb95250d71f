/* canon.c: the one canonical JSON writer (RFC 8785).  Keys sorted by UTF-16
 * code units, ECMAScript number text, minimal string escaping. */
#include "../common/utf8.h"
#include "json.h"
#include "pow5.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const unsigned char canon_plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(0), R16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	R16(1), R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	R16(1), R16(1),
	R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
#undef R16
};


/* Next UTF-16 code unit of a UTF-8 string; *pending holds the low
 * surrogate of a supplementary character between calls.  Returns 0 at the
 * end.  Input is trusted to be well-formed (the reader checked it). */
static unsigned
next_unit(const unsigned char **s, unsigned *pending)
{
	const unsigned char *p = *s;
	unsigned cp;

	if (*pending) {
		cp = *pending;
		*pending = 0;
		return cp;
	}
	if (*p == 0)
		return 0;
	if (p[0] < 0x80) {
		cp = p[0];
		p += 1;
	} else if ((p[0] & 0xE0) == 0xC0) {
		cp = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
		p += 2;
	} else if ((p[0] & 0xF0) == 0xE0) {
		cp = (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
		p += 3;
	} else {
		cp = (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
		p += 4;
	}
	*s = p;
	if (cp >= 0x10000) {
		cp -= 0x10000;
		*pending = 0xDC00 | (cp & 0x3FF);
		return 0xD800 | cp >> 10;
	}
	/* U+0000 is held as C0 80 and sorts as code unit 0; it then never
	 * equals the terminator because the string goes on. */
	return cp == 0 ? 0 : cp;
}

int
canon_keycmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	unsigned pa = 0, pb = 0;

	/* Keys are mostly ASCII, where UTF-16 order is byte order: skip the
	 * common ASCII prefix, and decide here when the first difference is
	 * ASCII too.  The prefix ends on a character boundary either way. */
	while (*p == *q && *p != 0 && *p < 0x80) {
		p++;
		q++;
	}
	if (*p < 0x80 && *q < 0x80)
		return *p == *q ? 0 : *p < *q ? -1 : 1;
	for (;;) {
		int enda = *p == 0 && pa == 0, endb = *q == 0 && pb == 0;
		unsigned ua, ub;

		if (enda || endb)
			return enda && endb ? 0 : enda ? -1 : 1;
		ua = next_unit(&p, &pa);
		ub = next_unit(&q, &pb);
		if (ua != ub)
			return ua < ub ? -1 : 1;
	}
}

/* Shortest round-trip digits, after Ryu (Ulf Adams, "Ryu: fast
 * float-to-string conversion", PLDI 2018).  A positive double is
 * mv 2^e2 with mv = 4 m2; its rounding interval runs from mm 2^e2 to
 * mp 2^e2 (mp = mv + 2, mm = mv - 2, or mv - 1 below a power of two,
 * where the gap under it is half the gap over it), ends included when m2
 * is even (a decimal halfway between two doubles reads as the even one).
 * Each of the three, times 2^e2 / 10^e10, is floored with one 64 x 128
 * bit multiplication by a power of five (pow5.h): e10 is chosen so that
 * they have a digit or two more than 17, and the paper proves the
 * products' floors exact at these table widths.  Digits are then
 * removed while the interval still holds a shorter number, and the last
 * one is rounded as x's own digits say, halfway to even: the fewest
 * digits that read back as x, and among those the closest to x, which is
 * the choice ECMAScript's Number::toString makes. */
__extension__ typedef unsigned __int128 u128;

/* A decimal d x 10^e. */
struct decimal {
	uint64_t d;
	int e;
};

/* The floors of mv, mp and mm times 2^e2 / 10^e10, and which are exact. */
struct scaled {
	uint64_t vr, vp, vm;
	int e10;
	int vr_exact, vp_exact, vm_exact;
};

/* floor(m mul / 2^j) for a 125-bit mul, j >= 64. */
static inline uint64_t
mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
	u128 lo = (u128)m * mul[0], hi = (u128)m * mul[1];

	return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}

/* The number of bits of 5^e, for 0 <= e <= 3528 (mk/pow5.py checks). */
static inline int
pow5_bits(int e)
{
	return (int)(((uint32_t)e * 1217359u) >> 19) + 1;
}

static inline int
divisible_pow5(uint64_t v, int q)
{
	for (; q > 0; q--, v /= 5)
		if (v % 5 != 0)
			return 0;
	return 1;
}

static inline int
divisible_pow2(uint64_t v, int q)
{
	return q < 64 && (v & ((UINT64_C(1) << q) - 1)) == 0;
}

static void
scale(uint64_t m2, int e2, int mm_shift, struct scaled *s)
{
	uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 1 - (uint64_t)mm_shift;
	const uint64_t *mul;
	int q, j;

	if (e2 >= 0) {
		/* 10^q = 2^q 5^q with q <= e2: divide by 5^q, shift by the rest */
		q = (int)(((uint32_t)e2 * 78913u) >> 18) - 1; /* floor(e2 log10 2) - 1 */
		q = q < 0 ? 0 : q;
		s->e10 = q;
		mul = POW5_INV[q];
		j = -e2 + q + POW5_BITS + pow5_bits(q) - 1;
		s->vr_exact = divisible_pow5(mv, q);
		s->vp_exact = divisible_pow5(mp, q);
		s->vm_exact = divisible_pow5(mm, q);
	} else {
		/* times 5^i / 2^q, i = -e2 - q */
		q = (int)(((uint32_t)-e2 * 732923u) >> 20) - 1; /* floor(-e2 log10 5) - 1 */
		q = q < 0 ? 0 : q;
		s->e10 = q + e2;
		int i = -e2 - q;
		mul = POW5[i];
		j = q - (pow5_bits(i) - POW5_BITS);
		s->vr_exact = divisible_pow2(mv, q);
		s->vp_exact = divisible_pow2(mp, q);
		s->vm_exact = divisible_pow2(mm, q);
	}
	s->vr = mul_shift(mv, mul, j);
	s->vp = mul_shift(mp, mul, j);
	s->vm = mul_shift(mm, mul, j);
}

/* The shortest decimal in the scaled interval, rounded as x's digits say. */
static struct decimal
shortest_in(const struct scaled *s, int accept)
{
	uint64_t vr = s->vr, vp = s->vp, vm = s->vm;
	/* vm_low: vm (times 10^removed) is the lower end itself, and in;
	 * vr_zeros: x is vr exactly but for the digits removed, all of
	 * which except the last were zeros */
	int vm_low = accept && s->vm_exact, vr_zeros = s->vr_exact, removed = 0;
	unsigned last = 0;

	if (!accept && s->vp_exact)
		vp--; /* the upper end itself is out */
	while (vp / 10 > vm / 10) {
		vm_low &= vm % 10 == 0;
		vr_zeros &= last == 0;
		last = (unsigned)(vr % 10);
		vr /= 10, vp /= 10, vm /= 10, removed++;
	}
	if (vm_low) /* the lower end may have zeros left to drop */
		while (vm % 10 == 0) {
			vr_zeros &= last == 0;
			last = (unsigned)(vr % 10);
			vr /= 10, vp /= 10, vm /= 10, removed++;
		}
	if (vr_zeros && last == 5 && vr % 2 == 0)
		last = 4; /* exactly halfway: to the even one */
	return (struct decimal){ vr + ((vr == vm && !vm_low) || last >= 5), s->e10 + removed };
}

/* x > 0, finite. */
static struct decimal
shortest(double x)
{
	uint64_t bits, mant, m2;
	int bexp, e2;
	struct scaled s;

	memcpy(&bits, &x, sizeof bits);
	mant = bits & ((UINT64_C(1) << 52) - 1);
	bexp = (int)(bits >> 52 & 0x7FF);
	m2 = bexp == 0 ? mant : mant | UINT64_C(1) << 52;
	e2 = (bexp == 0 ? 1 : bexp) - 1075 - 2;
	scale(m2, e2, mant != 0 || bexp <= 1, &s);
	return shortest_in(&s, (m2 & 1) == 0);
}

/* ECMAScript's text for digits (k of them, no leading or trailing zero)
 * times 10^(n - k), at o; returns the end. */
static char *
format_es(const char *digits, int k, int n, char *o)
{
	if (k <= n && n <= 21) {
		memcpy(o, digits, k);
		o += k;
		for (int i = 0; i < n - k; i++)
			*o++ = '0';
	} else if (0 < n && n <= 21) {
		memcpy(o, digits, n);
		o += n;
		*o++ = '.';
		memcpy(o, digits + n, k - n);
		o += k - n;
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -n; i++)
			*o++ = '0';
		memcpy(o, digits, k);
		o += k;
	} else {
		*o++ = digits[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, k - 1);
			o += k - 1;
		}
		int e = n - 1 < 0 ? 1 - n : n - 1;
		*o++ = 'e';
		*o++ = n - 1 < 0 ? '-' : '+';
		if (e >= 100)
			*o++ = (char)('0' + e / 100);
		if (e >= 10)
			*o++ = (char)('0' + e / 10 % 10);
		*o++ = (char)('0' + e % 10);
	}
	return o;
}

void
canon_number(double x, char out[32])
{
	char digits[20], *d = digits + sizeof digits, *o = out;
	struct decimal dec;

	if (x == 0) {
		strcpy(out, "0");
		return;
	}
	if (x < 0) {
		*o++ = '-';
		x = -x;
	}
	if (x < 9007199254740992.0 && x == floor(x)) {
		/* An integer below 2^53: its digits (most numbers in a ledger
		 * are counts). */
		dec = (struct decimal){ (uint64_t)x, 0 };
	} else {
		dec = shortest(x);
	}
	while (dec.d % 10 == 0) {
		dec.d /= 10;
		dec.e++;
	}
	do
		*--d = (char)('0' + dec.d % 10);
	while (dec.d /= 10);
	int k = (int)(digits + sizeof digits - d);
	*format_es(d, k, dec.e + k, o) = '\0';
}

/* Length of the well-formed UTF-8 sequence at p (C0 80, our U+0000,
 * included), or 0; p is NUL-terminated. */
static size_t
seq_len(const unsigned char *p)
{
	if (p[0] == 0xC0)
		return p[1] == 0x80 ? 2 : 0;
	return utf8_seq_len(p, p + 4);
}

/* One pass: copy runs of plain bytes, escape what RFC 8785 escapes, and
 * check UTF-8 on the way.  -1 out of memory, -2 not UTF-8. */
static int
write_string(const char *s, struct buf *b)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t plain = 0;

	/* most strings are plain bytes only: quoted at once */
	while (canon_plain[p[plain]])
		plain++;
	if (p[plain] == 0) {
		if (buf_grow(b, plain + 2) < 0)
			return -1;
		b->p[b->len++] = '"';
		memcpy(b->p + b->len, p, plain);
		b->len += plain;
		b->p[b->len++] = '"';
		b->p[b->len] = '\0';
		return 0;
	}
	if (buf_addc(b, '"') < 0)
		return -1;
	for (;;) {
		run = p;
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run && buf_add(b, run, p - run) < 0)
			return -1;
		if (*p == 0)
			break;
		if (*p >= 0x80) {
			size_t n = seq_len(p);
			if (n == 0)
				return -2;
			if (n == 2 && p[0] == 0xC0) {
				if (buf_add(b, "\\u0000", 6) < 0)
					return -1;
			} else if (buf_add(b, p, n) < 0) {
				return -1;
			}
			p += n;
			continue;
		}
		char esc[7] = { '\\', 0 };
		size_t n = 2;
		switch (*p) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			n = 6;
		}
		if (buf_add(b, esc, n) < 0)
			return -1;
		p++;
	}
	return buf_addc(b, '"');
}

static int
cmp_items(const void *a, const void *b)
{
	return canon_keycmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static int write_value(const cJSON *v, struct buf *b, struct err *e, int depth);

static int
write_string_checked(const char *s, struct buf *b, struct err *e)
{
	int rc;

	if (s == NULL)
		return err_set(e, ERR_INPUT, "canonical writer: null string");
	rc = write_string(s, b);
	if (rc == -1)
		return err_set(e, ERR_NOMEM, "canonical writer: out of memory");
	if (rc == -2)
		return err_set(e, ERR_INPUT, "canonical writer: string is not UTF-8");
	return 0;
}

int
canon_string(const char *s, struct buf *out, struct err *e)
{
	return write_string_checked(s, out, e);
}

static int
write_object(const cJSON *v, struct buf *b, struct err *e, int depth)
{
	const cJSON *stack[16], **items = stack, *c;
	size_t n = 0, i;
	int rc = 0;

	for (c = v->child; c; c = c->next)
		n++;
	if (n > 16) {
		items = malloc(n * sizeof *items);
		if (items == NULL)
			return err_set(e, ERR_NOMEM, "canonical writer: out of memory");
	}
	i = 0;
	for (c = v->child; c; c = c->next) {
		if (c->string == NULL) {
			rc = err_set(e, ERR_INPUT, "canonical writer: object member without a key");
			goto done;
		}
		items[i++] = c;
	}
	/* Stored records are canonical already: sort only when out of order. */
	for (i = 1; i < n; i++)
		if (canon_keycmp(items[i - 1]->string, items[i]->string) > 0) {
			qsort(items, n, sizeof *items, cmp_items);
			break;
		}
	if (buf_addc(b, '{') < 0)
		goto nomem;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(items[i - 1]->string, items[i]->string) == 0) {
			rc = err_set(e, ERR_INPUT, "canonical writer: duplicate key \"%.100s\"",
			    items[i]->string);
			goto done;
		}
		if (i > 0 && buf_addc(b, ',') < 0)
			goto nomem;
		if ((rc = write_string_checked(items[i]->string, b, e)) < 0)
			goto done;
		if (buf_addc(b, ':') < 0)
			goto nomem;
		if ((rc = write_value(items[i], b, e, depth + 1)) < 0)
			goto done;
	}
	if (buf_addc(b, '}') < 0)
		goto nomem;
done:
	if (items != stack)
		free(items);
	return rc;
nomem:
	rc = err_set(e, ERR_NOMEM, "canonical writer: out of memory");
	goto done;
}

static int
write_value(const cJSON *v, struct buf *b, struct err *e, int depth)
{
	char num[32];

	if (depth > JSON_MAX_DEPTH)
		return err_set(e, ERR_INPUT, "canonical writer: nesting deeper than %d", JSON_MAX_DEPTH);
	switch (v->type & 0xFF) {
	case cJSON_NULL:
		return buf_adds(b, "null") < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	case cJSON_True:
		return buf_adds(b, "true") < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	case cJSON_False:
		return buf_adds(b, "false") < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	case cJSON_Number:
		if (!isfinite(v->valuedouble))
			return err_set(e, ERR_INPUT, "canonical writer: number is not finite");
		canon_number(v->valuedouble, num);
		return buf_adds(b, num) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	case cJSON_String:
		return write_string_checked(v->valuestring, b, e);
	case cJSON_Array:
		if (buf_addc(b, '[') < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		for (const cJSON *c = v->child; c; c = c->next) {
			if (c != v->child && buf_addc(b, ',') < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
			if (write_value(c, b, e, depth + 1) < 0)
				return -1;
		}
		return buf_addc(b, ']') < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	case cJSON_Object:
		return write_object(v, b, e, depth);
	default:
		return err_set(e, ERR_INPUT, "canonical writer: unsupported value type");
	}
}

int
canon_write(const cJSON *v, struct buf *out, struct err *e)
{
	if (v == NULL)
		return err_set(e, ERR_INPUT, "canonical writer: no value");
	return write_value(v, out, e, 0);
}

int
canon_digest(const cJSON *v, struct buf *scratch, uint8_t d[HASH_LEN], struct err *e)
{
	buf_reset(scratch);
	if (canon_write(v, scratch, e) < 0)
		return -1;
	hash_bytes(scratch->p ? scratch->p : "", scratch->len, d);
	return 0;
}

int
canon_id(const cJSON *v, char id[HASH_ID_LEN + 1], struct err *e)
{
	struct buf b = BUF_INIT;
	uint8_t d[HASH_LEN];
	int rc = canon_digest(v, &b, d, e);

	if (rc == 0)
		hash_id_format(d, id);
	buf_release(&b);
	return rc;
}

/* The streaming writer.  Bytes wait in out while an object is open (its
 * members are written in the order read, then put in canonical order when
 * it closes, if they were not); with none open they go to the sink once
 * there are FLUSH of them. */
#define FLUSH ((size_t)1 << 18)

struct sframe {
	char obj;      /* an object, not an array */
	char sorted;   /* its members so far came in canonical order */
	size_t n;      /* members or elements so far */
	size_t start;  /* where its '{' is in out */
	size_t m0;     /* its first member in members[] */
	size_t k0;     /* where its keys begin in the key arena */
};

struct member {
	size_t key;   /* the key's characters (NUL-terminated) in the arena */
	size_t start; /* its text, "key":value, in out */
	size_t len;
};

/* A member's key and text, for the sort. */
struct mview {
	const char *key;
	size_t start, len;
};

struct streamer {
	struct buf out, keys, scratch;
	struct member *m;
	size_t nm, capm;
	struct mview *v;
	size_t capv;
	struct sframe f[JSON_MAX_DEPTH + 1];
	int depth, held; /* held: objects open */
	const struct canon_sink *sink;
	struct err *e;
};

static int
s_nomem(struct streamer *s)
{
	return err_set(s->e, ERR_NOMEM, "canonical writer: out of memory");
}

/* buf_add and buf_addc, inline: the writer's every byte goes through
 * them. */
static inline int
s_put(struct streamer *s, const void *p, size_t n)
{
	struct buf *b = &s->out;

	if (b->len + n >= b->cap && buf_grow(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static inline int
s_putc(struct streamer *s, char c)
{
	struct buf *b = &s->out;

	if (b->len + 1 >= b->cap && buf_grow(b, 1) < 0)
		return -1;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
	return 0;
}

static int
s_flush(struct streamer *s)
{
	if (s->out.len == 0)
		return 0;
	if (s->sink->put(s->sink->ctx, s->out.p, s->out.len, s->e) < 0)
		return -1;
	buf_reset(&s->out);
	return 0;
}

/* A string token's canonical text: as written when it had no escapes (RFC
 * 8785 escapes only what JSON requires escaped), else from its characters. */
static int
s_string(struct streamer *s, const char *p, size_t len, int plain)
{
	if (!plain)
		return write_string(p, &s->out) < 0 ? s_nomem(s) : 0;
	if (buf_grow(&s->out, len + 2) < 0)
		return s_nomem(s);
	s->out.p[s->out.len++] = '"';
	memcpy(s->out.p + s->out.len, p, len);
	s->out.len += len;
	s->out.p[s->out.len++] = '"';
	s->out.p[s->out.len] = '\0';
	return 0;
}

static int
mview_cmp(const void *a, const void *b)
{
	return canon_keycmp(((const struct mview *)a)->key, ((const struct mview *)b)->key);
}

/* The members of the object closing at f, put in canonical order in place
 * (the same bytes, rearranged). */
static int
s_sort(struct streamer *s, const struct sframe *f)
{
	size_t n = s->nm - f->m0, at = f->start + 1;

	if (n > s->capv) {
		struct mview *g = realloc(s->v, n * sizeof *g);
		if (g == NULL)
			return s_nomem(s);
		s->v = g;
		s->capv = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct member *m = &s->m[f->m0 + i];
		s->v[i] = (struct mview){ s->keys.p + m->key, m->start, m->len };
	}
	if (n > 32) {
		qsort(s->v, n, sizeof *s->v, mview_cmp);
	} else {
		/* a record's few keys: insertion, without qsort's calls */
		for (size_t i = 1; i < n; i++) {
			struct mview x = s->v[i];
			size_t j = i;
			for (; j > 0 && canon_keycmp(s->v[j - 1].key, x.key) > 0; j--)
				s->v[j] = s->v[j - 1];
			s->v[j] = x;
		}
	}
	buf_reset(&s->scratch);
	if (buf_grow(&s->scratch, s->out.len - f->start) < 0)
		return s_nomem(s);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			s->scratch.p[s->scratch.len++] = ',';
		memcpy(s->scratch.p + s->scratch.len, s->out.p + s->v[i].start, s->v[i].len);
		s->scratch.len += s->v[i].len;
	}
	memcpy(s->out.p + at, s->scratch.p, s->scratch.len);
	return 0;
}

static int
s_key(struct streamer *s, const struct json_tok *t)
{
	struct sframe *f = &s->f[s->depth];
	size_t key = s->keys.len;

	if (f->n > 0) {
		s->m[s->nm - 1].len = s->out.len - s->m[s->nm - 1].start;
		if (s_putc(s, ',') < 0)
			return s_nomem(s);
	}
	if (s->nm == s->capm) {
		size_t cap = s->capm ? 2 * s->capm : 64;
		struct member *g = realloc(s->m, cap * sizeof *g);
		if (g == NULL)
			return s_nomem(s);
		s->m = g;
		s->capm = cap;
	}
	if (buf_add(&s->keys, t->s, t->len) < 0 || buf_addc(&s->keys, '\0') < 0)
		return s_nomem(s);
	if (f->sorted && f->n > 0 &&
	    canon_keycmp(s->keys.p + s->m[s->nm - 1].key, s->keys.p + key) > 0)
		f->sorted = 0;
	s->m[s->nm++] = (struct member){ key, s->out.len, 0 };
	f->n++;
	if (s_string(s, t->plain ? t->s : s->keys.p + key, t->len, t->plain) < 0)
		return -1;
	return s_putc(s, ':') < 0 ? s_nomem(s) : 0;
}

static int
s_close(struct streamer *s, const struct json_tok *t)
{
	struct sframe *f = &s->f[s->depth];

	if (t->type == JSON_OBJECT_END) {
		if (f->n > 0)
			s->m[s->nm - 1].len = s->out.len - s->m[s->nm - 1].start;
		if (!f->sorted && s_sort(s, f) < 0)
			return -1;
		s->nm = f->m0;
		buf_cut(&s->keys, f->k0);
		s->held--;
	}
	s->depth--;
	return s_putc(s, t->type == JSON_OBJECT_END ? '}' : ']') < 0 ? s_nomem(s) : 0;
}

/* A value token: its separator in an array, then its text or its
 * container's opening. */
static int
s_value(struct streamer *s, const struct json_tok *t)
{
	struct sframe *f = &s->f[s->depth];
	char num[32];

	if (s->depth > 0 && !f->obj && f->n++ > 0 && s_putc(s, ',') < 0)
		return s_nomem(s);
	switch (t->type) {
	case JSON_NULL:
		return s_put(s, "null", 4) < 0 ? s_nomem(s) : 0;
	case JSON_TRUE:
		return s_put(s, "true", 4) < 0 ? s_nomem(s) : 0;
	case JSON_FALSE:
		return s_put(s, "false", 5) < 0 ? s_nomem(s) : 0;
	case JSON_NUMBER:
		if (t->plain)
			return s_put(s, t->s, t->len) < 0 ? s_nomem(s) : 0;
		canon_number(t->x, num);
		return s_put(s, num, strlen(num)) < 0 ? s_nomem(s) : 0;
	case JSON_STRING:
		return s_string(s, t->s, t->len, t->plain);
	default:
		break;
	}
	f = &s->f[++s->depth];
	*f = (struct sframe){ .obj = t->type == JSON_OBJECT, .sorted = 1, .start = s->out.len,
		.m0 = s->nm, .k0 = s->keys.len };
	s->held += f->obj;
	return s_putc(s, f->obj ? '{' : '[') < 0 ? s_nomem(s) : 0;
}

static int
s_step(struct streamer *s, const struct json_tok *t)
{
	switch (t->type) {
	case JSON_KEY:
		return s_key(s, t);
	case JSON_OBJECT_END:
	case JSON_ARRAY_END:
		return s_close(s, t);
	default:
		return s_value(s, t);
	}
}

/* The numbers that follow a number in its array, read a run at a time. */
static int
s_run(struct streamer *s, struct json_rd *r)
{
	struct json_tok t[128];
	size_t n;

	while ((n = json_rd_run(r, t, 128)) > 0)
		for (size_t i = 0; i < n; i++)
			if (s_value(s, &t[i]) < 0)
				return -1;
	return 0;
}

int
canon_stream(struct json_rd *r, const struct canon_sink *sink, struct err *e)
{
	struct streamer *s = calloc(1, sizeof *s);
	struct json_tok t;
	int rc;

	if (s == NULL)
		return err_set(e, ERR_NOMEM, "canonical writer: out of memory");
	s->sink = sink;
	s->e = e;
	while ((rc = json_rd_next(r, &t, e)) == 0 && t.type != JSON_EOF) {
		/* the run after a canonical number, as the reader's skip takes it */
		if ((rc = s_step(s, &t)) < 0 || (t.type == JSON_NUMBER && t.plain &&
		    (rc = s_run(s, r)) < 0))
			break;
		if (s->held == 0 && s->out.len >= FLUSH && (rc = s_flush(s)) < 0)
			break;
	}
	if (rc == 0)
		rc = s_flush(s);
	buf_release(&s->out);
	buf_release(&s->keys);
	buf_release(&s->scratch);
	free(s->m);
	free(s->v);
	free(s);
	return rc;
}

static int
hash_put(void *ctx, const void *p, size_t n, struct err *e)
{
	if (hash_update(ctx, p, n) < 0)
		return err_set(e, ERR_IO, "sha256 failed");
	return 0;
}

int
canon_stream_id(struct json_rd *r, char id[HASH_ID_LEN + 1], struct err *e)
{
	struct hash *h = hash_new();
	const struct canon_sink sink = { hash_put, h };
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (h == NULL || hash_init(h) < 0)
		err_set(e, ERR_NOMEM, "out of memory");
	else if (canon_stream(r, &sink, e) == 0 && hash_final(h, d) == 0) {
		hash_id_format(d, id);
		rc = 0;
	}
	hash_free(h);
	return rc;
}

int
canon_id_text(const char *p, size_t len, const char *name, char id[HASH_ID_LEN + 1],
    struct err *e)
{
	struct json_rd *r = json_rd_mem(p, len, name, 1);
	int rc;

	if (r == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	rc = canon_stream_id(r, id, e);
	json_rd_free(r);
	return rc;
}
