/* rec.c: the flat reader of rec.h.  One pass builds the token array and
 * checks the grammar; a second walks it in canonical order and writes. */
#include "rec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define REC_AVX2 1
#endif

#include "../common/utf8.h"
#include "json.h"

/* Records are small; a line past these sizes takes the tree reader. */
#define REC_MAX_TOKENS 65536
#define REC_MAX_MEMBERS 256
/* Shapes rec_check remembers (see tpl_match). */
#define REC_SHAPES 4

struct tok {
	uint64_t pre;      /* keys: the first 8 bytes, big-endian, zero-padded;
	                    * arrays: the token after their last element */
	uint32_t off, len; /* the value's text; a string's without its quotes */
	uint32_t end;      /* the token after this value and everything in it */
	uint32_t n;        /* members of an object, elements of an array */
	uint32_t ord;      /* objects: their key tokens in key order, in s->ord;
	                    * arrays: their first element */
	uint8_t type;
};

struct tpl;

/* The record just read is text, with tokens t[0..nt) and key order ord:
 * either read_all's own arrays (tb, ob) or a shape's (cur). */
struct rec_scan {
	const unsigned char *text;
	const struct tok *t;
	const uint32_t *ord;
	size_t nt;
	struct tpl *cur;    /* the shape t and ord belong to, or NULL */
	struct tok *tb;     /* read_all's tokens */
	size_t cap;
	uint32_t *ob;       /* read_all's objects' key tokens, each object's sorted */
	size_t nord, ordcap;
	struct tpl *tpl[REC_SHAPES]; /* shapes seen lately */
	unsigned ntpl, mru, victim, misses, skip;
	unsigned cmiss, cskip; /* rec_canon: records not canonical, and a rest */
	uint64_t gen;       /* shapes made so far: each shape's number */
	uint8_t *mark;      /* scratch for making a shape */
	size_t markcap;
	uint64_t *quotes;   /* tpl_match: bit i set when text[i] is '"' */
	size_t qcap;
	int avx2;           /* the processor has AVX2 (bytes_scan) */
};


/* A key's first eight bytes, big-endian, zero-padded: keys hold no NUL
 * here, so comparing these numbers orders keys unless they are equal. */
static inline uint64_t
prefix8(const unsigned char *p, size_t n, const unsigned char *end)
{
	uint64_t x = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One load when eight bytes are there to read; keep the key's own. */
	if (end - p >= 8) {
		memcpy(&x, p, 8);
		if (n < 8)
			x &= (1ull << (8 * n)) - 1;
		return __builtin_bswap64(x);
	}
#endif
	for (size_t k = 0; k < 8; k++)
		x = x << 8 | (k < n ? p[k] : 0);
	return x;
}

/* A shape: what every record laid out like one already read shares.  Its
 * text, between the steps that read a value, must be the same bytes; its
 * values must read as canonical values of the same kind.  Such a record is
 * canonical exactly when the first was, and has the same tokens but for
 * where its values lie (and the elements of arrays of strings, whose
 * number may differ: they go after the shape's own tokens).  Tokens
 * other than values keep the places they have in the shape's text: their
 * bytes are the same, and only keys' bytes are ever read.  See
 * tpl_match. */
enum { STEP_END, STEP_STR, STEP_NUM, STEP_STRS };

/* A step: the shape's bytes off..off+len, then a value (none at the end). */
struct step {
	uint32_t off, len; /* bytes of the shape's text */
	uint32_t tok;      /* STR, NUM, STRS: the value's token */
	uint8_t kind;
	uint16_t nfix;     /* fused steps: values within the bytes (struct fix) */
};

/* A value of the shape's own text, found the same in every record read
 * while learning (a model's name, an engine's digest): the bytes around it
 * and it are compared as one, and only its token's place is set. */
struct fix {
	uint32_t tok;
	uint32_t rel; /* where it lies from the start of its step's bytes */
	uint32_t len;
};

/* Records a shape reads before its values the same in all of them are
 * taken as part of its text; misses in a row after which it learns again,
 * and how often it may. */
#define LEARN 8
#define FUSE_MISSES 4
#define FUSE_RELEARN 8

struct tpl {
	unsigned char *text;
	struct tok *t;       /* nt of its own, then elements of arrays of strings */
	size_t nt, cap;
	uint32_t *ord;
	struct step *step;
	size_t nstep;
	uint64_t gen;
	/* Learning: how many records read had each step's value the same as
	 * the shape's (vlen: its length there).  Then fstep: the steps again,
	 * those values made part of the bytes, whose tokens' places fix[]
	 * sets (each step's nfix in turn). */
	uint32_t *vlen, *nsame;
	unsigned seen, fmiss, relearn;
	int fused;           /* 0 learning, 1 fstep in use, -1 not worth it */
	struct step *fstep;
	struct fix *fix;
};

static void
tpl_unfuse(struct tpl *T)
{
	free(T->fstep);
	free(T->fix);
	T->fstep = NULL;
	T->fix = NULL;
}

/* What a shape was made of (tpl_build makes it again); not its tokens,
 * whose room is kept. */
static void
tpl_clear(struct tpl *T)
{
	tpl_unfuse(T);
	free(T->text);
	free(T->ord);
	free(T->step);
	free(T->vlen);
	free(T->nsame);
}

static void
tpl_free(struct tpl *T)
{
	if (T == NULL)
		return;
	tpl_clear(T);
	free(T->t);
	free(T);
}

struct rec_scan *
rec_scan_new(void)
{
	struct rec_scan *s = calloc(1, sizeof(struct rec_scan));

#ifdef REC_AVX2
	if (s != NULL) {
		__builtin_cpu_init();
		s->avx2 = __builtin_cpu_supports("avx2");
	}
#endif
	return s;
}

void
rec_scan_no_avx2(struct rec_scan *s)
{
	s->avx2 = 0;
}

void
rec_scan_free(struct rec_scan *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < s->ntpl; i++)
		tpl_free(s->tpl[i]);
	free(s->tb);
	free(s->ob);
	free(s->mark);
	free(s->quotes);
	free(s);
}

/* Keys hold no NUL here, so their zero-padded 8-byte prefixes, compared
 * as numbers, order them unless the prefixes are equal. */
static inline int
bytecmp(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
	size_t n = na < nb ? na : nb;

	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

static inline int
keycmp(const struct rec_scan *s, uint32_t a, uint32_t b)
{
	const struct tok *x = &s->t[a], *y = &s->t[b];

	if (x->pre != y->pre)
		return x->pre < y->pre ? -1 : 1;
	if (x->len <= 8 && y->len <= 8) /* all of both in the prefixes */
		return x->len < y->len ? -1 : x->len > y->len;
	return bytecmp(s->text + x->off, x->len, s->text + y->off, y->len);
}

/* A number's value by json_number_value (slow_value), and its canonical
 * text too (out, NUL-terminated) by canon_number (slow_number): the way
 * for the numbers the digit rules below leave aside (past 15 significant
 * digits, as harnesses print 17, and with an exponent).  -1 when it is not finite (the tree reader
 * words that error) or too long to be a double's text worth a look. */
static int
slow_value(const unsigned char *p, size_t len, double *x)
{
	return len >= 64 || json_number_value(p, len, x) != 0 ? -1 : 0;
}

static int
slow_number(const unsigned char *p, size_t len, double *x, char out[32])
{
	if (slow_value(p, len, x) < 0)
		return -1;
	canon_number(*x, out);
	return 0;
}

/* Whether a number's text (grammar checked) is exactly what canon_number
 * writes for its value. */
static int
written_as_canon(const unsigned char *p, size_t len)
{
	char out[32];
	double x;

	return slow_number(p, len, &x, out) == 0 && strlen(out) == len && memcmp(out, p, len) == 0;
}

/* The end of the string whose text starts at p (after its quote): the
 * closing quote, or NULL outside the common shape (escapes, control
 * characters, ill-formed UTF-8, non-ASCII when ascii, no end). */
static inline const unsigned char *
string_end(const unsigned char *p, const unsigned char *end, int ascii)
{
	for (;;) {
		/* Eight bytes at a time while none needs a look: no quote,
		 * backslash, control character or non-ASCII byte. */
		while (end - p >= 8) {
			uint64_t x;
			memcpy(&x, p, 8);
			uint64_t hit = rec_special8(x);
			if (hit) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				/* the lowest flagged byte is the first that needs a look
				 * (borrows only run upward from a true one) */
				p += __builtin_ctzll(hit) / 8;
#endif
				break;
			}
			p += 8;
		}
		while (p < end && canon_plain[*p])
			p++;
		if (p >= end)
			return NULL;
		if (*p == '"')
			return p;
		if (*p < 0x80 || ascii)
			return NULL;
		size_t n = utf8_seq_len(p, end);
		if (n == 0)
			return NULL;
		p += n;
	}
}

/* One escape at p (after its backslash): its code point and its length
 * (the backslash not counted), or -1.  canonical: only the escapes
 * RFC 8785 writes (\" \\ \b \f \n \r \t, \u00xx in lowercase for the
 * other control characters).  Surrogates must pair; a lone one is left
 * to the tree reader. */
static int
escape_at(const unsigned char *p, const unsigned char *end, int canonical, unsigned *cp)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c;
	unsigned lo;

	if (p >= end)
		return -1;
	if (*p != 'u') {
		if ((c = memchr(from, *p, 8)) == NULL || *p == '\0' || (canonical && *p == '/'))
			return -1;
		*cp = (unsigned char)to[c - from];
		return 1;
	}
	if (json_hex4(p + 1, end, canonical, cp) < 0)
		return -1;
	if (canonical)
		return *cp < 0x20 && memchr("\b\f\n\r\t", (int)*cp, 5) == NULL ? 5 : -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return -1;
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 5;
	if (end - p < 11 || p[5] != '\\' || p[6] != 'u' || json_hex4(p + 7, end, 0, &lo) < 0 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return -1;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 11;
}

/* string_end for a string that holds escapes (p after its quote): the
 * closing quote, or NULL.  Not in the hot loop: such strings are few. */
static const unsigned char *
escaped_end(const unsigned char *p, const unsigned char *end, int canonical)
{
	unsigned cp;
	int n;

	while (p < end) {
		if (*p == '"')
			return p;
		if (*p == '\\') {
			if ((n = escape_at(p + 1, end, canonical, &cp)) < 0)
				return NULL;
			p += 1 + (size_t)n;
		} else if (*p < 0x20) {
			return NULL;
		} else if (*p < 0x80) {
			p++;
		} else {
			size_t k = utf8_seq_len(p, end);
			if (k == 0)
				return NULL;
			p += k;
		}
	}
	return NULL;
}

/* A string value's canonical text (RFC 8785 section 3.2.2.2) from its
 * escaped text p[0..n) (escaped_end said yes): never longer. */
static char *
escaped_write(const unsigned char *p, size_t n, char *o)
{
	const unsigned char *end = p + n;
	unsigned cp;

	while (p < end) {
		if (*p != '\\') {
			*o++ = (char)*p++;
			continue;
		}
		p += 1 + (size_t)escape_at(p + 1, end, 0, &cp);
		if (cp == '"' || cp == '\\') {
			*o++ = '\\';
			*o++ = (char)cp;
		} else if (cp < 0x20) {
			const char *sh = memchr("\b\f\n\r\t", (int)cp, 5);
			*o++ = '\\';
			if (cp != 0 && sh != NULL) {
				*o++ = "bfnrt"[sh - "\b\f\n\r\t"];
			} else {
				memcpy(o, "u00", 3);
				o[3] = "0123456789abcdef"[cp >> 4];
				o[4] = "0123456789abcdef"[cp & 15];
				o += 5;
			}
		} else if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | cp >> 6);
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | cp >> 12);
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | cp >> 18);
			*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	return o;
}

/* The end of the run of digits from p (before end), eight bytes at a time
 * where eight are there: a byte is a digit when its high half is 3 and
 * adding 6 leaves it so.  (A carry out of a byte that is not a digit may
 * spoil the bytes above it, never the first that is not.) */
static inline const unsigned char *
digits_end(const unsigned char *p, const unsigned char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, three = 0x3030303030303030ull;
	while (end - p >= 8) {
		uint64_t x, bad;
		memcpy(&x, p, 8);
		bad = ((x & hi) ^ three) | (((x + 0x0606060606060606ull) & hi) ^ three);
		if (bad)
			return p + (__builtin_ctzll(bad) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The end of a number's text at p (grammar checked; no exponent), or NULL.
 * With check, also NULL unless the text is canonical (json_number_canonical's
 * rules, decided here in the same pass for all but long integers). */
static inline __attribute__((always_inline)) const unsigned char *
number_end(const unsigned char *p, const unsigned char *end, int check)
{
	const unsigned char *s = p, *i0, *f0 = NULL;
	int neg = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	i0 = p;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return NULL;
	} else {
		p = digits_end(p, end);
	}
	const unsigned char *i1 = p;
	if (p < end && *p == '.') {
		p++;
		f0 = p;
		if (p >= end || *p < '0' || *p > '9')
			return NULL;
		p = digits_end(p, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return NULL;
		p = digits_end(p, end);
		return !check || written_as_canon(s, (size_t)(p - s)) ? p : NULL;
	}
	if (!check)
		return p;
	size_t intlen = (size_t)(i1 - i0);
	int zero_int = *i0 == '0';
	if (f0 == NULL) {
		if (zero_int)
			return neg ? NULL : p; /* "0", not "-0" */
		return intlen <= 15 || json_number_canonical(s, (size_t)(p - s)) ||
		    written_as_canon(s, (size_t)(p - s)) ? p : NULL;
	}
	if (p[-1] == '0')
		return NULL; /* a trailing zero after the point */
	size_t fraclen = (size_t)(p - f0);
	if (!zero_int)
		return intlen + fraclen <= 15 || written_as_canon(s, (size_t)(p - s)) ? p : NULL;
	/* 0.000ddd: at most five zeros after the point, 15 digits after them */
	size_t z = 0;
	while (f0[z] == '0')
		z++;
	return (z <= 5 && fraclen - z <= 15) || written_as_canon(s, (size_t)(p - s)) ? p : NULL;
}

#define WS(p, end) \
	do { \
		if (!check) \
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) \
				p++; \
	} while (0)

/* An open object or array. */
struct open {
	uint32_t tok;   /* its token */
	uint32_t keys;  /* objects: where its keys start in the key stack */
	uint32_t n;     /* elements so far */
	int object;
};

/* Close the object at o: its keys, sorted (or, when check, found to be in
 * order already), go to s->ob. */
static int
close_object(struct rec_scan *s, const struct open *o, uint32_t *k, size_t n, uint32_t nt,
    int check)
{
	if (n > REC_MAX_MEMBERS)
		return REC_OTHER;
	if (!check) {
		/* Insertion sort: a dozen or two keys, often nearly in order, on
		 * their prefixes side by side (a key's token looked up for each
		 * comparison was a seventh of reading a record in random order). */
		uint64_t pre[REC_MAX_MEMBERS];
		for (size_t a = 0; a < n; a++)
			pre[a] = s->t[k[a]].pre;
		for (size_t a = 1; a < n; a++) {
			uint64_t px = pre[a];
			uint32_t x = k[a];
			size_t b = a;
			while (b > 0 && (pre[b - 1] > px || (pre[b - 1] == px && keycmp(s, k[b - 1], x) > 0))) {
				pre[b] = pre[b - 1];
				k[b] = k[b - 1];
				b--;
			}
			pre[b] = px;
			k[b] = x;
		}
	}
	for (size_t a = 1; a < n; a++)
		if (keycmp(s, k[a - 1], k[a]) >= 0)
			return REC_OTHER; /* out of order (check), or a duplicate */
	if (s->nord + n > s->ordcap) {
		size_t cap = s->ordcap ? s->ordcap : 256;
		while (cap < s->nord + n)
			cap *= 2;
		uint32_t *m = realloc(s->ob, cap * sizeof *m);
		if (m == NULL)
			return REC_NOMEM;
		s->ob = m;
		s->ord = m;
		s->ordcap = cap;
	}
	for (size_t a = 0; a < n; a++)
		s->ob[s->nord + a] = k[a];
	s->tb[o->tok].ord = (uint32_t)s->nord;
	s->tb[o->tok].n = (uint32_t)n;
	s->tb[o->tok].end = nt;
	s->nord += n;
	return REC_OK;
}

/* Tokens of the one object in p[0..n), in one loop without recursion.
 * Long on purpose: every token costs a few stores, no call. */
static int
read_all(struct rec_scan *s, const char *text, size_t len, int check)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len, *q;
	struct open open[REC_MAX_DEPTH];
	uint32_t keys[REC_MAX_DEPTH * REC_MAX_MEMBERS];
	size_t depth = 0, nkeys = 0, cap = len + 1 < REC_MAX_TOKENS ? len + 1 : REC_MAX_TOKENS;
	struct tok *t;
	uint32_t nt = 0; /* tokens so far: s->nt, kept in a register */
	int rc;

	s->text = p;
	s->nt = 0;
	s->nord = 0;
	s->cur = NULL;
	s->t = s->tb;
	s->ord = s->ob;
	if (len > UINT32_MAX / 2)
		return REC_OTHER;
	/* Each token starts at its own byte: room for all of them at once. */
	if (s->cap < cap) {
		t = realloc(s->tb, cap * sizeof *t);
		if (t == NULL)
			return REC_NOMEM;
		s->tb = t;
		s->t = t;
		s->cap = cap;
	}
	t = s->tb;
	WS(p, end);
	if (p >= end || *p != '{')
		return REC_OTHER;
	for (;;) {
		/* a value at p */
		uint32_t i = nt;
		if (p >= end || i >= s->cap)
			return REC_OTHER;
		t[i].pre = 0;
		t[i].off = (uint32_t)(p - s->text);
		t[i].n = 0;
		t[i].ord = 0;
		switch (*p) {
		case '"':
			t[i].type = REC_STRING;
			if ((q = string_end(p + 1, end, 0)) == NULL) {
				if ((q = escaped_end(p + 1, end, check)) == NULL)
					return REC_OTHER;
				t[i].type = REC_XSTRING;
			}
			t[i].off++;
			t[i].len = (uint32_t)(q - p - 1);
			t[i].end = i + 1;
			nt++;
			p = q + 1;
			break;
		case '{':
		case '[':
			if (depth == REC_MAX_DEPTH)
				return REC_OTHER;
			t[i].type = *p == '{' ? REC_OBJECT : REC_ARRAY;
			t[i].len = 0;
			nt++;
			open[depth] = (struct open){ i, (uint32_t)nkeys, 0, *p == '{' };
			depth++;
			p++;
			WS(p, end);
			if (p < end && *p == (open[depth - 1].object ? '}' : ']'))
				goto close;
			goto member;
		case 't':
		case 'f':
		case 'n': {
			static const char *const words[] = { "true", "false", "null" };
			int w = *p == 't' ? 0 : *p == 'f' ? 1 : 2;
			size_t wn = strlen(words[w]);
			if ((size_t)(end - p) < wn || memcmp(p, words[w], wn) != 0)
				return REC_OTHER;
			t[i].type = (uint8_t)(w == 0 ? REC_TRUE : w == 1 ? REC_FALSE : REC_NULL);
			t[i].len = (uint32_t)wn;
			t[i].end = i + 1;
			nt++;
			p += wn;
			break;
		}
		default:
			if ((q = number_end(p, end, check)) == NULL)
				return REC_OTHER;
			t[i].type = REC_NUMBER;
			t[i].len = (uint32_t)(q - p);
			t[i].end = i + 1;
			nt++;
			p = q;
			break;
		}
	after:
		/* after a value: the next member or element, or the end of its
		 * container */
		WS(p, end);
		if (depth == 0)
		{
			s->nt = nt;
			return p == end ? REC_OK : REC_OTHER;
		}
		if (p < end && *p == ',') {
			p++;
			WS(p, end);
			goto member;
		}
		if (p < end && *p == (open[depth - 1].object ? '}' : ']'))
			goto close;
		return REC_OTHER;
	member:
		/* the next member (key and ':') of an object, or element of an
		 * array, whose value the loop reads */
		open[depth - 1].n++;
		if (open[depth - 1].object) {
			uint32_t k = nt;
			if (p >= end || *p != '"' || k >= s->cap || nkeys == sizeof keys / sizeof keys[0])
				return REC_OTHER;
			if ((q = string_end(p + 1, end, 1)) == NULL)
				return REC_OTHER;
			t[k].type = REC_STRING;
			t[k].off = (uint32_t)(p + 1 - s->text);
			t[k].len = (uint32_t)(q - p - 1);
			t[k].end = k + 1;
			t[k].n = 0;
			t[k].ord = 0;
			t[k].pre = prefix8(p + 1, t[k].len, end);
			keys[nkeys++] = k;
			nt++;
			p = q + 1;
			WS(p, end);
			if (p >= end || *p != ':')
				return REC_OTHER;
			p++;
			WS(p, end);
		}
		continue;
	close:
		/* the container at the top closes at p */
		depth--;
		if (open[depth].object) {
			size_t n = nkeys - open[depth].keys;
			if ((rc = close_object(s, &open[depth], keys + open[depth].keys, n, nt, check)) !=
			    REC_OK)
				return rc;
			nkeys = open[depth].keys;
		} else {
			/* elements: tokens ord up to pre (rec_first, rec_next) */
			t[open[depth].tok].n = open[depth].n;
			t[open[depth].tok].end = nt;
			t[open[depth].tok].ord = open[depth].tok + 1;
			t[open[depth].tok].pre = nt;
		}
		p++;
		goto after;
	}
}
#undef WS

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
		if (*p < '0' || *p > '9')
			return -1; /* an exponent: strtod's way */
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

/* Whether a number's text (grammar checked) is an integer of up to 15
 * digits other than -0. */
static inline int
plain_integer(const unsigned char *p, size_t len)
{
	size_t i = len > 0 && p[0] == '-';

	if (len - i > 15 || len == i || (i == 1 && p[1] == '0'))
		return 0;
	for (; i < len; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
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
	case REC_XSTRING:
		*o++ = '"';
		o = escaped_write(s->text + t->off, t->len, o);
		*o++ = '"';
		return o;
	case REC_NUMBER: {
		struct dec d;
		char num[32];
		double x;
		/* an integer of up to 15 digits is its own canonical text (its
		 * grammar was checked: no leading zero), but -0 */
		if (plain_integer(s->text + t->off, t->len)) {
			memcpy(o, s->text + t->off, t->len);
			return o + t->len;
		}
		if (dec_read(s->text + t->off, t->len, &d) == 0)
			return dec_write(&d, o);
		/* canon has room for the input's bytes: a text that grows
		 * (1E5 is 100000) takes the tree reader's way */
		if (slow_number(s->text + t->off, t->len, &x, num) < 0 || strlen(num) > t->len)
			return NULL;
		memcpy(o, num, strlen(num));
		return o + strlen(num);
	}
	default:
		memcpy(o, s->text + t->off, t->len);
		return o + t->len;
	}
}


/* Whether a[0..n) and b[0..n) are the same bytes: the steps' bytes are a
 * few to a few dozen, where a call to memcmp costs more than the compare. */
static inline int
same(const unsigned char *a, const unsigned char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

#ifdef __SSE2__
	/* a shape's values the same in every record make long runs */
	if (n >= 16) {
		size_t i = 0;
		for (; i + 16 < n; i += 16)
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + i)),
			    _mm_loadu_si128((const __m128i *)(b + i)))) != 0xFFFF)
				return 0;
		/* the last sixteen, overlapping what was compared */
		return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + n - 16)),
		    _mm_loadu_si128((const __m128i *)(b + n - 16)))) == 0xFFFF;
	}
#endif
	if (n >= 8) {
		size_t i = 0;
		for (; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		/* the last eight, overlapping what was compared */
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return 0;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Whether array token i holds one or more strings and nothing else. */
static int
strings_only(const struct tok *t, uint32_t i)
{
	if (t[i].n == 0 || t[i].end != i + 1 + t[i].n)
		return 0;
	for (uint32_t k = i + 1; k < t[i].end; k++)
		if (t[k].type != REC_STRING)
			return 0;
	return 1;
}

static int
grow(void **p, size_t *cap, size_t want, size_t size)
{
	if (*cap >= want)
		return 0;
	void *q = realloc(*p, want * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = want;
	return 0;
}

/* Make T the shape of the record read_all has just found canonical:
 * p[0..n), with s->tb and s->ob.  Its values are the strings that are not
 * keys, the numbers, and the arrays of strings; all between is its steps'
 * bytes. */
static int
tpl_build(struct rec_scan *s, struct tpl *T, const unsigned char *p, size_t n)
{
	size_t nt = s->nt, c = T->cap;
	uint32_t lit = 0, skip = 0;

	tpl_clear(T);
	T->text = malloc(n + 1);
	T->ord = malloc((s->nord + 1) * sizeof *T->ord);
	T->step = malloc((nt + 1) * sizeof *T->step);
	T->vlen = calloc(nt + 1, sizeof *T->vlen);
	T->nsame = calloc(nt + 1, sizeof *T->nsame);
	T->seen = T->fmiss = T->relearn = 0;
	T->fused = 0;
	if (T->text == NULL || T->ord == NULL || T->step == NULL || T->vlen == NULL ||
	    T->nsame == NULL ||
	    grow((void **)&T->t, &c, nt + 16, sizeof *T->t) < 0 ||
	    grow((void **)&s->mark, &s->markcap, nt, 1) < 0)
		return -1;
	T->cap = c;
	memcpy(T->text, p, n);
	memcpy(T->t, s->tb, nt * sizeof *T->t);
	if (s->nord > 0) /* {} has none, and no ob yet */
		memcpy(T->ord, s->ob, s->nord * sizeof *T->ord);
	T->nt = nt;
	T->nstep = 0;
	T->gen = ++s->gen;
	/* which strings are keys */
	memset(s->mark, 0, nt);
	for (size_t i = 0; i < nt; i++)
		if (s->tb[i].type == REC_OBJECT)
			for (uint32_t m = 0; m < s->tb[i].n; m++)
				s->mark[s->ob[s->tb[i].ord + m]] = 1;
	for (uint32_t i = 0; i < nt; i++) {
		const struct tok *k = &s->tb[i];
		uint32_t vend;
		uint8_t kind;
		if (i < skip)
			continue; /* an element of an array of strings */
		if (k->type == REC_STRING && !s->mark[i]) {
			kind = STEP_STR;
			vend = k->off + k->len;
		} else if (k->type == REC_NUMBER) {
			kind = STEP_NUM;
			vend = k->off + k->len;
		} else if (k->type == REC_ARRAY && strings_only(s->tb, i)) {
			const struct tok *last = &s->tb[i + k->n];
			kind = STEP_STRS;
			vend = last->off + last->len + 2; /* its quote and ']' */
			skip = k->end;
		} else {
			continue;
		}
		T->vlen[T->nstep] = vend - k->off;
		T->step[T->nstep++] = (struct step){ lit, k->off - lit, i, kind, 0 };
		lit = vend;
	}
	T->step[T->nstep++] = (struct step){ lit, (uint32_t)n - lit, 0, STEP_END, 0 };
	return 0;
}

enum { BYTES_CONTROL = 1, BYTES_HIGH = 2 };

/* One pass over p[0..n): the quotes' places as bits in q (n / 64 + 1
 * words), and whether any byte is a control character or backslash
 * (which no record of the common shape holds as it is: BYTES_CONTROL) or
 * not ASCII (BYTES_HIGH: its strings then need a look at their UTF-8). */
static int
bytes_scan(const unsigned char *p, size_t n, uint64_t *q)
{
	size_t i = 0, w = 0;
	int flags = 0;

#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	const __m128i bias = _mm_set1_epi8((char)0x80), low = _mm_set1_epi8((char)(0x80 + 0x20));
	__m128i bad = _mm_setzero_si128();
	unsigned high = 0;
	unsigned char last[64];
	for (; i < n; i += 64, w++) {
		const unsigned char *b = p + i;
		uint64_t bits = 0;
		if (n - i < 64) {
			/* the last part block, as a whole one padded with spaces */
			memset(last, ' ', sizeof last);
			memcpy(last, p + i, n - i);
			b = last;
		}
		for (int k = 0; k < 4; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(b + 16 * k));
			bits |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << (16 * k);
			/* below 0x20, signed after the bias: a control character */
			bad = _mm_or_si128(bad, _mm_cmplt_epi8(_mm_xor_si128(v, bias), low));
			bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, bs));
			high |= (unsigned)_mm_movemask_epi8(v);
		}
		q[w] = bits;
	}
	i = n;
	if (_mm_movemask_epi8(bad))
		flags |= BYTES_CONTROL;
	if (high)
		flags |= BYTES_HIGH;
#endif
	for (; i < n; w++) {
		uint64_t bits = 0;
		for (unsigned k = 0; k < 64 && i < n; k++, i++) {
			bits |= (uint64_t)(p[i] == '"') << k;
			if (p[i] < 0x20 || p[i] == '\\')
				flags |= BYTES_CONTROL;
			if (p[i] >= 0x80)
				flags |= BYTES_HIGH;
		}
		q[w] = bits;
	}
	q[w] = 0;
	return flags;
}

#ifdef REC_AVX2
/* bytes_scan 32 bytes at a time, for processors that have AVX2. */
__attribute__((target("avx2"))) static int
bytes_scan_avx2(const unsigned char *p, size_t n, uint64_t *q)
{
	const __m256i quote = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\');
	const __m256i bias = _mm256_set1_epi8((char)0x80), low = _mm256_set1_epi8((char)(0x80 + 0x20));
	__m256i bad = _mm256_setzero_si256();
	unsigned high = 0;
	size_t i = 0, w = 0;
	unsigned char last[64];

	for (; i < n; i += 64, w++) {
		const unsigned char *b = p + i;
		if (n - i < 64) {
			/* the last part block, as a whole one padded with spaces */
			memset(last, ' ', sizeof last);
			memcpy(last, p + i, n - i);
			b = last;
		}
		__m256i v0 = _mm256_loadu_si256((const __m256i *)b);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(b + 32));
		q[w] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, quote)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, quote)) << 32;
		/* below 0x20, signed after the bias: a control character */
		bad = _mm256_or_si256(bad, _mm256_cmpgt_epi8(low, _mm256_xor_si256(v0, bias)));
		bad = _mm256_or_si256(bad, _mm256_cmpgt_epi8(low, _mm256_xor_si256(v1, bias)));
		bad = _mm256_or_si256(bad, _mm256_cmpeq_epi8(v0, bs));
		bad = _mm256_or_si256(bad, _mm256_cmpeq_epi8(v1, bs));
		high |= (unsigned)_mm256_movemask_epi8(_mm256_or_si256(v0, v1));
	}
	q[w] = 0;
	return (_mm256_movemask_epi8(bad) ? BYTES_CONTROL : 0) | (high ? BYTES_HIGH : 0);
}
#endif

/* The first quote at or after offset at, or NULL. */
static inline const unsigned char *
next_quote(const uint64_t *q, size_t nw, const unsigned char *p, size_t at)
{
	size_t w = at >> 6;
	uint64_t bits = q[w] >> (at & 63);

	if (bits)
		return p + at + (size_t)__builtin_ctzll(bits);
	while (++w < nw)
		if (q[w])
			return p + w * 64 + (size_t)__builtin_ctzll(q[w]);
	return NULL;
}

/* Read p[0..n) by steps st (T's own, or its fused ones with their fix-ups
 * fix): REC_OK when it is a record of shape T, its values each
 * canonical (then the record is canonical, as T's was, and its tokens are
 * T's with their places here); REC_OTHER when it is not.  flags and nw:
 * bytes_scan's, of p into s->quotes.  Long on purpose: the fast path of
 * every record of a ledger, each step a compare and a store, no call. */
static int
tpl_walk(struct rec_scan *s, struct tpl *T, const struct step *steps, const struct fix *fix,
    const unsigned char *p, size_t n, int flags)
{
	const unsigned char *x = p, *end = p + n, *q;
	struct tok *t = T->t;
	size_t nt = T->nt, nw = n / 64 + 1;

	/* Without bytes past ASCII and without backslashes, a string is
	 * everything up to the next quote. */
#define STRING_END(x) \
	(flags & (BYTES_HIGH | BYTES_CONTROL) ? string_end((x), end, 0) : \
	    next_quote(s->quotes, nw, p, (size_t)((x) - p)))
	for (const struct step *st = steps;; st++) {
		struct tok *v = &t[st->tok];
		if ((size_t)(end - x) < st->len || !same(x, T->text + st->off, st->len))
			return REC_OTHER;
		if (st->nfix > 0) {
			/* the end and place in locals: the stores below could be to them */
			const struct fix *fe = fix + st->nfix;
			uint32_t at = (uint32_t)(x - p);
			for (; fix < fe; fix++) {
				struct tok *c = &t[fix->tok];
				c->off = at + fix->rel;
				c->len = fix->len;
			}
		}
		x += st->len;
		switch (st->kind) {
		case STEP_END:
			goto end;
		case STEP_STR:
			if ((q = STRING_END(x)) == NULL)
				return REC_OTHER;
			v->off = (uint32_t)(x - p);
			v->len = (uint32_t)(q - x);
			x = q;
			break;
		case STEP_NUM:
			if ((q = number_end(x, end, 1)) == NULL)
				return REC_OTHER;
			v->off = (uint32_t)(x - p);
			v->len = (uint32_t)(q - x);
			x = q;
			break;
		default: { /* STEP_STRS: '[' strings ']' */
			uint32_t first = (uint32_t)nt;
			if (x >= end || *x != '[')
				return REC_OTHER;
			v->off = (uint32_t)(x - p);
			x++;
			if (x < end && *x == ']') {
				x++;
			} else {
				for (;;) {
					if (x >= end || *x != '"' || (q = STRING_END(x + 1)) == NULL ||
					    nt >= REC_MAX_TOKENS)
						return REC_OTHER;
					if (nt == T->cap) {
						size_t c = T->cap;
						if (grow((void **)&T->t, &c, 2 * T->cap, sizeof *T->t) < 0)
							return REC_NOMEM;
						T->cap = c;
						t = T->t;
						v = &t[st->tok];
					}
					t[nt] = (struct tok){ 0, (uint32_t)(x + 1 - p), (uint32_t)(q - x - 1),
						(uint32_t)nt + 1, 0, 0, REC_STRING };
					nt++;
					x = q + 1;
					if (x < end && *x == ',') {
						x++;
						continue;
					}
					if (x < end && *x == ']') {
						x++;
						break;
					}
					return REC_OTHER;
				}
			}
			v->n = (uint32_t)nt - first;
			v->ord = first;
			v->pre = nt;
			break;
		}
		}
	}
end:
#undef STRING_END
	if (x != end)
		return REC_OTHER;
	s->text = p;
	s->t = t;
	s->ord = T->ord;
	s->nt = nt;
	s->cur = T;
	return REC_OK;
}

/* T's steps again with the values found the same in every record read
 * while learning made part of the bytes around them.  -1 out of memory
 * (T then reads without them). */
static int
tpl_fuse(struct tpl *T)
{
	uint32_t lo = 0, nf = 0, nfix = 0;
	uint16_t here = 0; /* values within the step being made */

	T->fstep = malloc(T->nstep * sizeof *T->fstep);
	T->fix = malloc(T->nstep * sizeof *T->fix);
	if (T->fstep == NULL || T->fix == NULL) {
		tpl_unfuse(T);
		return -1;
	}
	for (size_t i = 0; i < T->nstep; i++) {
		const struct step *st = &T->step[i];
		uint32_t vat = st->off + st->len; /* its value, in the shape's text */
		if ((st->kind == STEP_STR || st->kind == STEP_NUM) && T->nsame[i] == T->seen &&
		    here < UINT16_MAX) {
			/* the value and the next step's bytes join this step's */
			T->fix[nfix++] = (struct fix){ st->tok, vat - lo, T->vlen[i] };
			here++;
			continue;
		}
		T->fstep[nf++] = (struct step){ lo, vat - lo, st->tok, st->kind, here };
		here = 0;
		if (i + 1 < T->nstep)
			lo = T->step[i + 1].off;
	}
	T->fused = 1;
	return 0;
}

/* A record just read by T's own steps: which of its values are T's. */
static void
tpl_learn(struct tpl *T, const unsigned char *p)
{
	int any = 0;

	for (size_t i = 0; i < T->nstep; i++) {
		const struct step *st = &T->step[i];
		const struct tok *v = &T->t[st->tok];
		if ((st->kind == STEP_STR || st->kind == STEP_NUM) && v->len == T->vlen[i] &&
		    memcmp(p + v->off, T->text + st->off + st->len, v->len) == 0)
			T->nsame[i]++;
	}
	if (++T->seen < LEARN)
		return;
	for (size_t i = 0; i < T->nstep; i++)
		any |= T->nsame[i] == T->seen && T->step[i].kind != STEP_END;
	if (!any || tpl_fuse(T) < 0)
		T->fused = -1;
}

/* Read p[0..n) as a record of shape T (tpl_walk), by the fused steps when
 * T has them and they hold, else by its own. */
static int
tpl_match(struct rec_scan *s, struct tpl *T, const unsigned char *p, size_t n)
{
	size_t nw = n / 64 + 1;
	int flags, rc;

	if (nw + 1 > s->qcap && grow((void **)&s->quotes, &s->qcap, nw + 1, sizeof *s->quotes) < 0)
		return REC_NOMEM;
#ifdef REC_AVX2
	flags = s->avx2 ? bytes_scan_avx2(p, n, s->quotes) : bytes_scan(p, n, s->quotes);
#else
	flags = bytes_scan(p, n, s->quotes);
#endif
	/* A backslash may be in the shape's literal bytes (an escaped string
	 * every record repeats); a value that holds one, or a control
	 * character, fails its STRING_END below. */
	if (T->fused == 1) {
		rc = tpl_walk(s, T, T->fstep, T->fix, p, n, flags);
		if (rc != REC_OTHER) {
			if (rc == REC_OK)
				T->fmiss = 0;
			return rc;
		}
	}
	rc = tpl_walk(s, T, T->step, NULL, p, n, flags);
	if (rc != REC_OK)
		return rc;
	if (T->fused == 1 && ++T->fmiss >= FUSE_MISSES) {
		/* what was the same is no longer: learn again, a few times */
		tpl_unfuse(T);
		memset(T->nsame, 0, T->nstep * sizeof *T->nsame);
		T->seen = T->fmiss = 0;
		T->fused = ++T->relearn > FUSE_RELEARN ? -1 : 0;
	} else if (T->fused == 0) {
		tpl_learn(T, p);
	}
	return REC_OK;
}

int
rec_check(struct rec_scan *s, const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	int rc;

	/* Records of one ledger mostly share a few shapes: try those seen
	 * lately, the last one first.  When shapes keep changing, rest a while
	 * from trying (a miss costs part of a read). */
	if (s->skip > 0) {
		s->skip--;
		return read_all(s, text, n, 1);
	}
	if (n <= UINT32_MAX / 2)
		for (unsigned k = 0; k < s->ntpl; k++) {
			unsigned j = (s->mru + k) % s->ntpl;
			if ((rc = tpl_match(s, s->tpl[j], p, n)) == REC_OK) {
				s->mru = j;
				s->misses = 0;
				return REC_OK;
			}
			if (rc == REC_NOMEM)
				return rc;
		}
	if ((rc = read_all(s, text, n, 1)) != REC_OK)
		return rc;
	if (s->ntpl > 0 && ++s->misses >= 8) {
		s->misses = 0;
		s->skip = 64;
		return REC_OK;
	}
	/* A new shape, in a free place or in place of the oldest made. */
	unsigned j = s->ntpl < REC_SHAPES ? s->ntpl : s->victim++ % REC_SHAPES;
	if (j == s->ntpl) {
		if ((s->tpl[j] = calloc(1, sizeof *s->tpl[j])) == NULL)
			return REC_NOMEM;
		s->ntpl++;
	}
	if (tpl_build(s, s->tpl[j], p, n) < 0) {
		/* a shape half made must not be tried */
		tpl_free(s->tpl[j]);
		s->tpl[j] = s->tpl[--s->ntpl];
		return REC_NOMEM;
	}
	s->mru = j;
	return REC_OK;
}

uint64_t
rec_shape(const struct rec_scan *s)
{
	return s->cur != NULL ? s->cur->gen : 0;
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
rec_canon(struct rec_scan *s, const char *p, size_t n, struct buf *canon, int *as_is)
{
	int rc;

	if (as_is != NULL)
		*as_is = 0;
	/* Records of one log are mostly all canonical or all not: after a
	 * run of ones that are not, rest a long while from asking (a miss
	 * costs up to a read). */
	if (s->cskip > 0) {
		s->cskip--;
		return rec_scan(s, p, n, canon);
	}
	if ((rc = rec_check(s, p, n)) != REC_OTHER) {
		s->cmiss = 0;
		if (rc != REC_OK)
			return rc;
		if (as_is != NULL)
			return *as_is = 1, REC_OK;
		return buf_add(canon, p, n) < 0 ? REC_NOMEM : REC_OK;
	}
	if (++s->cmiss >= 16) {
		s->cmiss = 0;
		s->cskip = 4096;
	}
	return rec_scan(s, p, n, canon);
}

/* A key's bytes: in the shape's text when the record was read by its
 * shape (the same bytes as the record's). */
static inline const unsigned char *
key_text(const struct rec_scan *s, const struct tok *k)
{
	return (s->cur != NULL ? s->cur->text : s->text) + k->off;
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
		int c = bytecmp(key_text(s, kt), kt->len, (const unsigned char *)key, klen);
		if (c == 0)
			return (int)k + 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
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
		k->pre[i] = prefix8((const unsigned char *)keys[i], k->len[i],
		    (const unsigned char *)keys[i] + k->len[i]);
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
		    kt->len <= 8 && k->len[i] <= 8 ? (kt->len > k->len[i]) - (kt->len < k->len[i]) :
		    bytecmp(key_text(s, kt), kt->len, (const unsigned char *)k->key[i], k->len[i]);
		if (c == 0)
			out[i++] = (int)s->ord[t->ord + m] + 1;
		if (c <= 0)
			m++;
		else
			i++;
	}
}

void
rec_views(const struct rec_scan *s, const int *tok, int n, struct rec_view *out)
{
	for (int i = 0; i < n; i++) {
		int k = tok[i];
		if (k < 0 || (size_t)k >= s->nt) {
			out[i] = (struct rec_view){ NULL, 0, k < 0 ? -1 : -2 };
			continue;
		}
		out[i].p = (const char *)s->text + s->t[k].off;
		out[i].len = s->t[k].len;
		out[i].type = s->t[k].type;
	}
}

int
rec_all_strings(const struct rec_scan *s, int arr)
{
	if (rec_type(s, arr) != REC_ARRAY)
		return 0;
	for (int t = rec_first(s, arr); t >= 0; t = rec_next(s, arr, t))
		if (s->t[t].type != REC_STRING)
			return 0;
	return 1;
}

int
rec_type(const struct rec_scan *s, int tok)
{
	return tok < 0 || (size_t)tok >= s->nt ? -1 : s->t[tok].type;
}

const char *
rec_str(const struct rec_scan *s, int tok, size_t *len)
{
	const struct tok *t = &s->t[tok];

	*len = t->len;
	/* A string with escapes is never a value of a shape, always part of
	 * its literal bytes (tpl_build): its place is in the shape's text. */
	if (t->type == REC_XSTRING)
		return (const char *)key_text(s, t);
	return (const char *)s->text + t->off;
}

int
rec_num(const struct rec_scan *s, int tok, double *x)
{
	if (rec_type(s, tok) != REC_NUMBER)
		return -1;
	return rec_num_text((const char *)s->text + s->t[tok].off, s->t[tok].len, x);
}

int
rec_num_text(const char *text, size_t len, double *x)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	struct dec d;
	int e10;

	if (rec_num_quick(text, len, x) == 0)
		return 0;
	/* the value alone: its canonical text is not asked for here */
	if (dec_read((const unsigned char *)text, len, &d) < 0)
		return slow_value((const unsigned char *)text, len, x);
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
		return slow_value((const unsigned char *)text, len, x);
	if (d.neg)
		*x = -*x;
	return 0;
}

int
rec_first(const struct rec_scan *s, int arr)
{
	if (rec_type(s, arr) != REC_ARRAY || s->t[arr].n == 0)
		return -1;
	return (int)s->t[arr].ord;
}

int
rec_next(const struct rec_scan *s, int arr, int tok)
{
	uint32_t next = s->t[tok].end;

	return next < s->t[arr].pre ? (int)next : -1;
}
