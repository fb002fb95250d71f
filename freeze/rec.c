/* rec.c: the flat reader of rec.h.  One pass builds the token array and
 * checks the grammar; a second walks it in canonical order and writes. */
#include "rec.h"

#include <stdlib.h>
#include <string.h>

#include "../common/utf8.h"

/* Records are small; a line past these sizes takes the tree reader. */
#define REC_MAX_TOKENS 65536
#define REC_MAX_MEMBERS 256

struct tok {
	uint64_t pre;      /* keys: the first 8 bytes, big-endian, zero-padded */
	uint32_t off, len; /* the value's text; a string's without its quotes */
	uint32_t end;      /* the token after this value and everything in it */
	uint32_t n;        /* members of an object, elements of an array */
	uint32_t ord;      /* objects: their key tokens in key order, in s->ord */
	uint8_t type;
};

struct rec_scan {
	const unsigned char *text;
	struct tok *t;
	size_t nt, cap;
	uint32_t *ord;      /* objects' key tokens, each object's sorted */
	size_t nord, ordcap;
};

/* Bytes a string may hold as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(0), R16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	R16(1), R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	R16(1), R16(1),
	R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
#undef R16
};

static uint64_t prefix8(const unsigned char *p, size_t n);

struct rec_scan *
rec_scan_new(void)
{
	return calloc(1, sizeof(struct rec_scan));
}

void
rec_scan_free(struct rec_scan *s)
{
	if (s == NULL)
		return;
	free(s->t);
	free(s->ord);
	free(s);
}

struct rd {
	struct rec_scan *s;
	const unsigned char *start, *p, *end;
	int depth;
	int check;       /* rec_check: the text must already be canonical */
	uint32_t *stack; /* key tokens of the objects still open */
	size_t nstack;
};

static void
ws(struct rd *r)
{
	/* Canonical text has no whitespace: leaving it there makes the
	 * grammar refuse it. */
	if (r->check)
		return;
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static inline long
push(struct rd *r, int type)
{
	struct rec_scan *s = r->s;

	if (s->nt == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct tok *t;
		if (cap > REC_MAX_TOKENS)
			return -REC_OTHER - 1;
		t = realloc(s->t, cap * sizeof *t);
		if (t == NULL)
			return -1;
		s->t = t;
		s->cap = cap;
	}
	s->t[s->nt] = (struct tok){ 0, (uint32_t)(r->p - r->start), 0, 0, 0, 0, (uint8_t)type };
	return (long)s->nt++;
}

/* The string at r->p (its opening quote).  ASCII only when key.  Works
 * in locals and stores the token once: byte loads may alias anything, so
 * a store into the token array in the loop would force reloads. */
static int
string(struct rd *r, int key)
{
	const unsigned char *q0 = r->p + 1, *p = q0, *end = r->end;
	uint64_t pre = 0;
	long i;

	for (;;) {
		/* Eight bytes at a time while none needs a look: no quote,
		 * backslash, control character or non-ASCII byte. */
		while (end - p >= 8) {
			uint64_t x;
			memcpy(&x, p, 8);
			uint64_t q = x ^ 0x2222222222222222ull, b = x ^ 0x5c5c5c5c5c5c5c5cull;
			uint64_t hit = ((q - 0x0101010101010101ull) & ~q) |
			    ((b - 0x0101010101010101ull) & ~b) | (x - 0x2020202020202020ull) | x;
			if (hit & 0x8080808080808080ull)
				break;
			p += 8;
		}
		while (p < end && plain[*p])
			p++;
		if (p >= end)
			return REC_OTHER;
		if (*p == '"')
			break;
		if (*p < 0x80 || key)
			return REC_OTHER; /* escapes, control characters */
		size_t n = utf8_seq_len(p, end);
		if (n == 0)
			return REC_OTHER;
		p += n;
	}
	if (key)
		pre = prefix8(q0, (size_t)(p - q0));
	if ((i = push(r, REC_STRING)) < 0)
		return i == -1 ? REC_NOMEM : REC_OTHER;
	struct tok *t = &r->s->t[i];
	t->pre = pre;
	t->off = (uint32_t)(q0 - r->start);
	t->len = (uint32_t)(p - q0);
	t->end = (uint32_t)i + 1;
	r->p = p + 1;
	return REC_OK;
}

/* Whether a number without exponent (grammar checked) is in the form
 * canon_number writes: up to 15 significant digits (then they are the
 * shortest that read back), no trailing zero after the point, no -0, and
 * within ECMAScript's plain notation (below 1e21, at least 1e-6). */
static int
canonical_number(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *point = NULL, *first = NULL, *last = NULL;
	int neg = *p == '-';

	for (const unsigned char *q = p + neg; q < end; q++) {
		if (*q == '.')
			point = q;
		else if (*q != '0') {
			if (first == NULL)
				first = q;
			last = q;
		}
	}
	if (first == NULL) /* zero: only "0" */
		return len == 1;
	if (point != NULL && end[-1] == '0')
		return 0;
	size_t intlen = (size_t)((point ? point : end) - (p + neg));
	if (intlen > 21)
		return 0;
	/* significant digits from the first nonzero to the last, the point
	 * not counted */
	size_t sig = (size_t)(last - first) + 1 - (point && first < point && point < last);
	if (sig > 15)
		return 0;
	/* 0.000001 is plain, 0.0000001 is 1e-7 */
	if (point != NULL && first > point && first - point > 6)
		return 0;
	return 1;
}

static int
number(struct rd *r)
{
	const unsigned char *p = r->p, *end = r->end;
	long i = push(r, REC_NUMBER);

	if (i < 0)
		return i == -1 ? REC_NOMEM : REC_OTHER;
	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return REC_OTHER;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return REC_OTHER;
	} else {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return REC_OTHER;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E'))
		return REC_OTHER; /* exponents: the tree reader's way */
	if (r->check && !canonical_number(r->p, (size_t)(p - r->p)))
		return REC_OTHER;
	r->s->t[i].len = (uint32_t)(p - r->p);
	r->s->t[i].end = (uint32_t)i + 1;
	r->p = p;
	return REC_OK;
}

static int value(struct rd *r);

/* Byte order of two short strings (keys are ASCII here, where byte order
 * is UTF-16 order); a loop, as a call to memcmp costs more than it does. */
static inline int
bytecmp(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
	size_t n = na < nb ? na : nb;

	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

/* Keys hold no NUL here, so their zero-padded 8-byte prefixes, compared
 * as numbers, order them unless the prefixes are equal. */
static inline int
keycmp(const struct rec_scan *s, uint32_t a, uint32_t b)
{
	const struct tok *x = &s->t[a], *y = &s->t[b];

	if (x->pre != y->pre)
		return x->pre < y->pre ? -1 : 1;
	return bytecmp(s->text + x->off, x->len, s->text + y->off, y->len);
}

static int
object(struct rd *r)
{
	struct rec_scan *s = r->s;
	long i = push(r, REC_OBJECT);
	size_t base = r->nstack, n;
	int rc;

	if (i < 0)
		return i == -1 ? REC_NOMEM : REC_OTHER;
	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
	} else {
		for (;;) {
			if (r->p >= r->end || *r->p != '"')
				return REC_OTHER;
			if (r->nstack == REC_MAX_DEPTH * REC_MAX_MEMBERS)
				return REC_OTHER;
			r->stack[r->nstack++] = (uint32_t)s->nt;
			if ((rc = string(r, 1)) != REC_OK)
				return rc;
			ws(r);
			if (r->p >= r->end || *r->p != ':')
				return REC_OTHER;
			r->p++;
			ws(r);
			if ((rc = value(r)) != REC_OK)
				return rc;
			ws(r);
			if (r->p < r->end && *r->p == ',') {
				r->p++;
				ws(r);
				continue;
			}
			if (r->p < r->end && *r->p == '}') {
				r->p++;
				break;
			}
			return REC_OTHER;
		}
	}
	n = r->nstack - base;
	if (n > REC_MAX_MEMBERS)
		return REC_OTHER;
	uint32_t *k = r->stack + base;
	if (r->check) {
		/* already in order, each key after the one before */
		for (size_t a = 1; a < n; a++)
			if (keycmp(s, k[a - 1], k[a]) >= 0)
				return REC_OTHER;
	}
	/* Insertion sort: a dozen or two keys, often nearly in order. */
	for (size_t a = 1; a < n && !r->check; a++) {
		uint32_t x = k[a];
		size_t b = a;
		while (b > 0 && keycmp(s, k[b - 1], x) > 0) {
			k[b] = k[b - 1];
			b--;
		}
		k[b] = x;
	}
	for (size_t a = 1; a < n; a++)
		if (keycmp(s, k[a - 1], k[a]) == 0)
			return REC_OTHER; /* a duplicate: the tree reader names it */
	if (s->nord + n > s->ordcap) {
		size_t cap = s->ordcap ? s->ordcap : 256;
		while (cap < s->nord + n)
			cap *= 2;
		uint32_t *o = realloc(s->ord, cap * sizeof *o);
		if (o == NULL)
			return REC_NOMEM;
		s->ord = o;
		s->ordcap = cap;
	}
	for (size_t a = 0; a < n; a++)
		s->ord[s->nord + a] = k[a];
	s->t[i].ord = (uint32_t)s->nord;
	s->t[i].n = (uint32_t)n;
	s->t[i].end = (uint32_t)s->nt;
	s->nord += n;
	r->nstack = base;
	return REC_OK;
}

static int
array(struct rd *r)
{
	long i = push(r, REC_ARRAY);
	uint32_t n = 0;
	int rc;

	if (i < 0)
		return i == -1 ? REC_NOMEM : REC_OTHER;
	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
	} else {
		for (;;) {
			if ((rc = value(r)) != REC_OK)
				return rc;
			n++;
			ws(r);
			if (r->p < r->end && *r->p == ',') {
				r->p++;
				ws(r);
				continue;
			}
			if (r->p < r->end && *r->p == ']') {
				r->p++;
				break;
			}
			return REC_OTHER;
		}
	}
	r->s->t[i].n = n;
	r->s->t[i].end = (uint32_t)r->s->nt;
	return REC_OK;
}

static int
literal(struct rd *r, const char *word, size_t n, int type)
{
	long i;

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return REC_OTHER;
	if ((i = push(r, type)) < 0)
		return i == -1 ? REC_NOMEM : REC_OTHER;
	r->s->t[i].len = (uint32_t)n;
	r->s->t[i].end = (uint32_t)i + 1;
	r->p += n;
	return REC_OK;
}

static int
value(struct rd *r)
{
	int rc;

	if (r->p >= r->end)
		return REC_OTHER;
	switch (*r->p) {
	case '{':
	case '[':
		if (++r->depth > REC_MAX_DEPTH)
			return REC_OTHER;
		rc = *r->p == '{' ? object(r) : array(r);
		r->depth--;
		return rc;
	case '"': return string(r, 0);
	case 't': return literal(r, "true", 4, REC_TRUE);
	case 'f': return literal(r, "false", 5, REC_FALSE);
	case 'n': return literal(r, "null", 4, REC_NULL);
	default: return number(r);
	}
}

/* A number without exponent as 0.DIGITS x 10^n, DIGITS (k of them, no
 * leading or trailing zero) also as the integer m.  -1 past 15
 * significant digits or far from 1 (there the digits that read back need
 * not be the ones written). */
struct dec {
	char digits[16];
	int k, n, neg;
	uint64_t m;
};

static int
dec_read(const unsigned char *p, size_t len, struct dec *d)
{
	const unsigned char *end = p + len;
	int intdigits = 0, seen = 0, zeros = 0, lead = 0;

	d->k = 0;
	d->m = 0;
	d->neg = p < end && *p == '-';
	p += d->neg;
	for (int frac = 0; p < end; p++) {
		if (*p == '.') {
			frac = 1;
			continue;
		}
		if (!frac)
			intdigits++;
		if (*p == '0') {
			if (seen)
				zeros++;
			else
				lead++;
			continue;
		}
		/* a nonzero digit: the zeros before it were inside the digits */
		if (d->k + zeros + 1 > 15)
			return -1;
		for (; zeros > 0; zeros--) {
			d->digits[d->k++] = '0';
			d->m *= 10;
		}
		d->digits[d->k++] = (char)*p;
		d->m = d->m * 10 + (uint64_t)(*p - '0');
		seen = 1;
	}
	d->digits[d->k] = '\0';
	d->n = intdigits - lead;
	if (d->k == 0)
		d->n = 0;
	return d->n > 300 || d->n < -290 ? -1 : 0;
}

/* ECMAScript Number::toString from the digits (canon.c's rules). */
static char *
dec_write(const struct dec *d, char *o)
{
	int k = d->k, n = d->n;

	if (k == 0) {
		*o++ = '0';
		return o;
	}
	if (d->neg)
		*o++ = '-';
	if (k <= n && n <= 21) {
		memcpy(o, d->digits, (size_t)k);
		o += k;
		for (int i = 0; i < n - k; i++)
			*o++ = '0';
	} else if (0 < n && n <= 21) {
		memcpy(o, d->digits, (size_t)n);
		o += n;
		*o++ = '.';
		memcpy(o, d->digits + n, (size_t)(k - n));
		o += k - n;
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -n; i++)
			*o++ = '0';
		memcpy(o, d->digits, (size_t)k);
		o += k;
	} else {
		int x = n - 1, ax = x < 0 ? -x : x;
		char rev[4];
		int m = 0;
		*o++ = d->digits[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, d->digits + 1, (size_t)(k - 1));
			o += k - 1;
		}
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		do {
			rev[m++] = (char)('0' + ax % 10);
			ax /= 10;
		} while (ax);
		while (m)
			*o++ = rev[--m];
	}
	return o;
}

/* Write token i canonically at o (room checked by the caller: canonical
 * text is never longer than what was read).  Returns the end, or NULL
 * when a number is outside the common shape. */
static char *
emit(const struct rec_scan *s, uint32_t i, char *o)
{
	const struct tok *t = &s->t[i];

	switch (t->type) {
	case REC_OBJECT:
		*o++ = '{';
		for (uint32_t m = 0; m < t->n; m++) {
			uint32_t key = s->ord[t->ord + m];
			if (m)
				*o++ = ',';
			*o++ = '"';
			memcpy(o, s->text + s->t[key].off, s->t[key].len);
			o += s->t[key].len;
			*o++ = '"';
			*o++ = ':';
			if ((o = emit(s, key + 1, o)) == NULL)
				return NULL;
		}
		*o++ = '}';
		return o;
	case REC_ARRAY:
		*o++ = '[';
		for (uint32_t e = i + 1, m = 0; m < t->n; m++, e = s->t[e].end) {
			if (m)
				*o++ = ',';
			if ((o = emit(s, e, o)) == NULL)
				return NULL;
		}
		*o++ = ']';
		return o;
	case REC_STRING:
		*o++ = '"';
		memcpy(o, s->text + t->off, t->len);
		o += t->len;
		*o++ = '"';
		return o;
	case REC_NUMBER: {
		struct dec d;
		if (dec_read(s->text + t->off, t->len, &d) < 0)
			return NULL;
		return dec_write(&d, o);
	}
	default:
		memcpy(o, s->text + t->off, t->len);
		return o + t->len;
	}
}

/* Tokens of the one object in p[0..n). */
static int
read_all(struct rec_scan *s, const char *p, size_t n, int check)
{
	uint32_t stack[REC_MAX_DEPTH * REC_MAX_MEMBERS];
	struct rd r = { s, (const unsigned char *)p, (const unsigned char *)p,
		(const unsigned char *)p + n, 0, check, stack, 0 };
	int rc;

	s->text = r.start;
	s->nt = 0;
	s->nord = 0;
	if (n > UINT32_MAX / 2)
		return REC_OTHER;
	ws(&r);
	if (r.p >= r.end || *r.p != '{')
		return REC_OTHER;
	if ((rc = value(&r)) != REC_OK)
		return rc;
	ws(&r);
	return r.p == r.end ? REC_OK : REC_OTHER;
}

int
rec_check(struct rec_scan *s, const char *p, size_t n)
{
	return read_all(s, p, n, 1);
}

int
rec_scan(struct rec_scan *s, const char *p, size_t n, struct buf *canon)
{
	char *o;
	int rc;

	if ((rc = read_all(s, p, n, 0)) != REC_OK)
		return rc;
	/* Canonical text is never longer than the text read: whitespace goes,
	 * strings stay, and a number's canonical form without an exponent in
	 * its input is at most as long as that input. */
	if (buf_grow(canon, n + 1) < 0)
		return REC_NOMEM;
	o = emit(s, 0, canon->p + canon->len);
	if (o == NULL)
		return REC_OTHER;
	canon->len = (size_t)(o - canon->p);
	canon->p[canon->len] = '\0';
	return REC_OK;
}

int
rec_member(const struct rec_scan *s, int obj, const char *key)
{
	const struct tok *t;
	size_t klen = strlen(key);
	uint32_t lo = 0, hi;

	if (obj < 0 || (size_t)obj >= s->nt || s->t[obj].type != REC_OBJECT)
		return -1;
	t = &s->t[obj];
	hi = t->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, k = s->ord[t->ord + mid];
		const struct tok *kt = &s->t[k];
		int c = bytecmp(s->text + kt->off, kt->len, (const unsigned char *)key, klen);
		if (c == 0)
			return (int)k + 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static uint64_t
prefix8(const unsigned char *p, size_t n)
{
	uint64_t pre = 0;

	for (size_t k = 0; k < 8; k++)
		pre = pre << 8 | (k < n ? p[k] : 0);
	return pre;
}

int
rec_keys_init(struct rec_keys *k, const char *const *keys, int n)
{
	if (n > REC_MAX_KEYS)
		return -1;
	k->n = n;
	for (int i = 0; i < n; i++) {
		k->key[i] = keys[i];
		k->len[i] = strlen(keys[i]);
		k->pre[i] = prefix8((const unsigned char *)keys[i], k->len[i]);
		if (i > 0 && strcmp(keys[i - 1], keys[i]) >= 0)
			return -1;
	}
	return 0;
}

void
rec_members(const struct rec_scan *s, int obj, const struct rec_keys *k, int *out)
{
	const struct tok *t;
	uint32_t m = 0;

	for (int i = 0; i < k->n; i++)
		out[i] = -1;
	if (obj < 0 || (size_t)obj >= s->nt || s->t[obj].type != REC_OBJECT)
		return;
	t = &s->t[obj];
	for (int i = 0; i < k->n && m < t->n;) {
		const struct tok *kt = &s->t[s->ord[t->ord + m]];
		int c = kt->pre != k->pre[i] ? (kt->pre < k->pre[i] ? -1 : 1) :
		    bytecmp(s->text + kt->off, kt->len, (const unsigned char *)k->key[i], k->len[i]);
		if (c == 0)
			out[i++] = (int)s->ord[t->ord + m] + 1;
		if (c <= 0)
			m++;
		else
			i++;
	}
}

int
rec_type(const struct rec_scan *s, int tok)
{
	return tok < 0 || (size_t)tok >= s->nt ? -1 : s->t[tok].type;
}

const char *
rec_str(const struct rec_scan *s, int tok, size_t *len)
{
	*len = s->t[tok].len;
	return (const char *)s->text + s->t[tok].off;
}

int
rec_num(const struct rec_scan *s, int tok, double *x)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	struct dec d;
	int e10;

	if (rec_type(s, tok) != REC_NUMBER || dec_read(s->text + s->t[tok].off, s->t[tok].len, &d) < 0)
		return -1;
	/* One exact integer (below 2^53) times or over one exact power of ten
	 * is a single IEEE rounding: the correctly rounded value strtod gives. */
	e10 = d.n - d.k;
	if (d.k == 0)
		*x = 0;
	else if (e10 >= 0 && e10 <= 22)
		*x = (double)d.m * p10[e10];
	else if (e10 < 0 && e10 >= -22)
		*x = (double)d.m / p10[-e10];
	else
		return -1;
	if (d.neg)
		*x = -*x;
	return 0;
}

int
rec_first(const struct rec_scan *s, int arr)
{
	if (rec_type(s, arr) != REC_ARRAY || s->t[arr].n == 0)
		return -1;
	return arr + 1;
}

int
rec_next(const struct rec_scan *s, int arr, int tok)
{
	uint32_t next = s->t[tok].end;

	return next < s->t[arr].end ? (int)next : -1;
}
