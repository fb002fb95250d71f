/* read.c: the strict pull reader.  JSON text goes in, from memory or a
 * file read a block at a time, and comes out one token per call.  The
 * tree builder (json.c) and the streaming canonical writer (canon.c) both
 * read through it, so the grammar and every refusal live here once. */
#include "json.h"
#include "pow10.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../common/io.h"
#include "../common/utf8.h"

#define BLOCK ((size_t)1 << 20) /* a file is read this much at a time */

/* What the next bytes may be. */
enum state {
	ST_START,     /* before the value: the byte-order mark check */
	ST_VALUE,     /* a value */
	ST_ARR_FIRST, /* after '[': a value or ']' */
	ST_OBJ_FIRST, /* after '{': a key or '}' */
	ST_KEY,       /* after ',' in an object: a key */
	ST_COLON,     /* after a key */
	ST_AFTER,     /* after a value: ',', the close, or the end */
	ST_DONE       /* the end was given */
};

/* An open array or object; an object's keys, kept until it closes for the
 * duplicate check. */
struct frame {
	char obj;      /* 1 for an object */
	char ordered;  /* its keys so far came in increasing strcmp order */
	size_t k0;     /* its first key in keys[] */
	size_t arena0; /* where its keys begin in the arena */
};

struct keyrec {
	size_t off;      /* the key's NUL-terminated bytes in the arena */
	long line, col;  /* where it was written */
};

struct json_rd {
	const unsigned char *start; /* the byte at offset base */
	const unsigned char *p, *end;
	unsigned char *mem; /* a file's block buffer (NULL for memory) */
	size_t cap;
	int fd, own_fd, eof;
	unsigned long long base; /* offset of start in the input */
	unsigned long long bol;  /* offset where the current line begins */
	long line;
	const char *name;
	enum state state;
	int depth;
	struct buf scratch; /* an escaped string, decoded */
	struct buf arena;   /* the open objects' keys */
	struct keyrec *keys;
	size_t nkeys, capkeys;
	struct err *e;
	/* last: rd_new zeroes what comes before it and frame 0 only, since a
	 * frame is written when its container opens (6 KB zeroed for every
	 * small record read was a tenth of reading decisions) */
	struct frame frames[JSON_MAX_DEPTH + 1];
};

static unsigned long long
offset_of(const struct json_rd *r, const unsigned char *at)
{
	return r->base + (unsigned long long)(at - r->start);
}

static int
fail_at(struct json_rd *r, long line, long col, const char *what)
{
	return err_set(r->e, ERR_INPUT, "%s:%ld:%ld: %s", r->name, line, col, what);
}

/* at is on the current line: no error lies past a newline not skipped. */
static int
fail(struct json_rd *r, const unsigned char *at, const char *what)
{
	if (at > r->end)
		at = r->end;
	return fail_at(r, r->line, (long)(offset_of(r, at) - r->bol) + 1, what);
}

static int
nomem(struct json_rd *r)
{
	return err_set(r->e, ERR_NOMEM, "%s: out of memory", r->name);
}

static struct json_rd *
rd_new(const char *name, long first_line)
{
	struct json_rd *r = malloc(sizeof *r);

	if (r == NULL)
		return NULL;
	memset(r, 0, offsetof(struct json_rd, frames) + sizeof r->frames[0]);
	r->fd = -1;
	r->name = name ? name : "<input>";
	r->line = first_line;
	r->state = ST_START;
	return r;
}

struct json_rd *
json_rd_mem(const char *p, size_t len, const char *name, long first_line)
{
	struct json_rd *r = rd_new(name, first_line);

	if (r == NULL)
		return NULL;
	r->start = r->p = (const unsigned char *)(p ? p : "");
	r->end = r->p + (p ? len : 0);
	r->eof = 1;
	return r;
}

struct json_rd *
json_rd_open(const char *path, size_t block, struct err *e)
{
	int std = path == NULL || strcmp(path, "-") == 0;
	int fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct json_rd *r;
	struct stat st;

	if (fd < 0) {
		err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (!std && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		err_set(e, ERR_IO, "%s: is a directory", path);
		return NULL;
	}
	r = rd_new(io_name(path), 1);
	block = block ? block : BLOCK;
	if (r == NULL || (r->mem = malloc(block)) == NULL) {
		if (!std)
			close(fd);
		free(r);
		err_set(e, ERR_NOMEM, "%s: out of memory", io_name(path));
		return NULL;
	}
	r->cap = block;
	r->start = r->p = r->end = r->mem;
	r->fd = fd;
	r->own_fd = !std;
	return r;
}

void
json_rd_free(struct json_rd *r)
{
	if (r == NULL)
		return;
	if (r->own_fd)
		close(r->fd);
	free(r->mem);
	buf_release(&r->scratch);
	buf_release(&r->arena);
	free(r->keys);
	free(r);
}

/* Keep the unread bytes (the token being read begins there), make room
 * (twice the buffer when they fill half of it, so a long token is scanned
 * again only a bounded number of times), and read until the buffer is
 * full or the input ends. */
static int
refill(struct json_rd *r)
{
	size_t keep = (size_t)(r->end - r->p), got;

	if (r->mem == NULL || r->eof)
		return fail(r, r->end, "unexpected end of input"); /* not reached */
	r->base = offset_of(r, r->p);
	memmove(r->mem, r->p, keep);
	if (keep > r->cap / 2) {
		unsigned char *g = realloc(r->mem, 2 * r->cap);
		if (g == NULL)
			return nomem(r);
		r->mem = g;
		r->cap *= 2;
	}
	r->start = r->p = r->mem;
	for (got = keep; got < r->cap && !r->eof;) {
		ssize_t n = read(r->fd, r->mem + got, r->cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(r->e, ERR_IO, "%s: read error: %s", r->name, strerror(errno));
		if (n == 0)
			r->eof = 1;
		got += (size_t)n;
	}
	r->end = r->mem + got;
	return 0;
}

static void
skip_ws(struct json_rd *r)
{
	const unsigned char *p = r->p, *end = r->end;

	for (; p < end; p++) {
		if (*p == '\n') {
			r->line++;
			r->bol = offset_of(r, p) + 1;
		} else if (*p != ' ' && *p != '\t' && *p != '\r') {
			break;
		}
	}
	r->p = p;
}

int
json_hex4(const unsigned char *p, const unsigned char *end, int lower, unsigned *out)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (!lower && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	*out = v;
	return 0;
}

/* U+0000 as C0 80 (json.h). */
static int
put_utf8(struct buf *b, unsigned cp)
{
	char t[4];
	size_t n;

	if (cp == 0) {
		t[0] = (char)0xC0;
		t[1] = (char)0x80;
		n = 2;
	} else if (cp < 0x80) {
		t[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = (char)(0xC0 | cp >> 6);
		t[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = (char)(0xE0 | cp >> 12);
		t[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		t[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		t[0] = (char)(0xF0 | cp >> 18);
		t[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		t[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		t[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return buf_add(b, t, n);
}

/* The escape whose backslash is at *pp: its code point, and *pp past it. */
static int
escape(struct json_rd *r, const unsigned char **pp, unsigned *out)
{
	const unsigned char *p = *pp + 1;
	unsigned cp, lo;

	if (p >= r->end)
		return fail(r, p, "unterminated string");
	switch (*p) {
	case '"': cp = '"'; break;
	case '\\': cp = '\\'; break;
	case '/': cp = '/'; break;
	case 'b': cp = '\b'; break;
	case 'f': cp = '\f'; break;
	case 'n': cp = '\n'; break;
	case 'r': cp = '\r'; break;
	case 't': cp = '\t'; break;
	case 'u':
		if (json_hex4(p + 1, r->end, 0, &cp) < 0)
			return fail(r, p - 1, "bad \\u escape");
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return fail(r, p - 1, "lone surrogate escape");
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			if (r->end - p < 11 || p[5] != '\\' || p[6] != 'u' ||
			    json_hex4(p + 7, r->end, 0, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
				return fail(r, p - 1, "lone surrogate escape");
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		}
		p += 4;
		break;
	default:
		return fail(r, p - 1, "bad escape in string");
	}
	*pp = p + 1;
	*out = cp;
	return 0;
}

/* The first byte at or after p that ends a run of plain string bytes:
 * a quote, a backslash, a control character or a non-ASCII byte. */
static const unsigned char *
plain_run(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);

	/* As signed bytes, the non-ASCII ones are negative: one compare
	 * finds them and the control characters. */
	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
		    _mm_cmpeq_epi8(v, bslash)), _mm_cmplt_epi8(v, space));
		int m = _mm_movemask_epi8(hit);
		if (m != 0)
			return p + __builtin_ctz((unsigned)m);
	}
#endif
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* The string whose quote is at r->p.  1 read, 0 more bytes needed, -1
 * refused.  Without escapes its text is its characters, given in place;
 * with them, they are decoded into the scratch buffer. */
static int
lex_string(struct json_rd *r, struct json_tok *t)
{
	const unsigned char *p = r->p + 1, *end = r->end, *run = p;
	struct buf *b = &r->scratch;
	int escaped = 0;
	unsigned cp = 0;

	for (;;) {
		p = plain_run(p, end);
		if (p >= end)
			return r->eof ? fail(r, p, "unterminated string") : 0;
		if (*p == '"')
			break;
		if (*p < 0x20)
			return fail(r, p, "control character in string");
		if (*p >= 0x80) {
			size_t n = utf8_seq_len(p, end);
			if (n == 0 && end - p < 4 && !r->eof)
				return 0;
			if (n == 0)
				return fail(r, p, "invalid UTF-8");
			p += n;
			continue;
		}
		if (end - p < 12 && !r->eof) /* the longest escape: a pair */
			return 0;
		if (!escaped)
			buf_reset(b);
		escaped = 1;
		if (buf_add(b, run, (size_t)(p - run)) < 0)
			return nomem(r);
		if (escape(r, &p, &cp) < 0)
			return -1;
		if (put_utf8(b, cp) < 0)
			return nomem(r);
		run = p;
	}
	if (escaped) {
		if (buf_add(b, run, (size_t)(p - run)) < 0)
			return nomem(r);
		t->s = b->p;
		t->len = b->len;
	} else {
		t->s = (const char *)r->p + 1;
		t->len = (size_t)(p - r->p - 1);
	}
	t->plain = !escaped;
	r->p = p + 1;
	return 1;
}

static const unsigned char *
digits(const unsigned char *p, const unsigned char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The number's grammar, on its bytes [s, end): the end, or NULL refused. */
static const unsigned char *
number_grammar(struct json_rd *r, const unsigned char *s, const unsigned char *end)
{
	const unsigned char *p = s + (*s == '-'), *q;

	if (p >= end || *p < '0' || *p > '9')
		return fail(r, s, "bad number"), NULL;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return fail(r, s, "bad number: leading zero"), NULL;
	} else {
		p = digits(p, end);
	}
	if (p < end && *p == '.') {
		if ((q = digits(p + 1, end)) == p + 1)
			return fail(r, s, "bad number: no digit after the point"), NULL;
		p = q;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if ((q = digits(p, end)) == p)
			return fail(r, s, "bad number: no digit in the exponent"), NULL;
		p = q;
	}
	return p;
}

/* The powers of ten a double holds exactly: Clinger's fast path divides
 * by them. */
static const double P10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* w x 10^q (w nonzero, its digits exact; q from POW10_LO to POW10_HI)
 * correctly rounded to a double, by Eisel and Lemire's method as
 * fast_float has it (Lemire, "Number parsing at a gigabyte per second",
 * 2021): w's 64 bits times a 128-bit power of five give the significand
 * and the bits below it; 1 and *x, or 0 where the product cannot decide
 * (a result that is subnormal or out of range, or too close to a
 * halfway point to tell), for strtod to take. */
static int
eisel_lemire(uint64_t w, int q, int neg, double *x)
{
	const uint64_t *t = POW10_128[q - POW10_LO];
	int lz = __builtin_clzll(w), upper;
	unsigned __int128 p, p2;
	uint64_t hi, lo, mant, bits;
	int64_t power2;

	w <<= lz;
	p = (unsigned __int128)w * t[0];
	hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	if ((hi & 0x1FF) == 0x1FF) { /* the low half of the power may carry into the 55 bits */
		p2 = (unsigned __int128)w * t[1];
		lo += (uint64_t)(p2 >> 64);
		hi += lo < (uint64_t)(p2 >> 64);
	}
	if (lo == UINT64_MAX && (q < -27 || q > 55))
		return 0;
	upper = (int)(hi >> 63);
	mant = hi >> (upper + 9);
	power2 = ((((152170 + 65536) * (int64_t)q) >> 16) + 63) + upper - lz + 1023;
	if (power2 <= 0)
		return 0;
	/* exactly halfway (only where 5^q fits 64 bits): round to even */
	if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1 && mant << (upper + 9) == hi)
		mant &= ~(uint64_t)1;
	mant += mant & 1;
	mant >>= 1;
	if (mant >= (uint64_t)2 << 52) {
		mant = (uint64_t)1 << 52;
		power2++;
	}
	if (power2 >= 0x7FF)
		return 0;
	bits = (mant & ~((uint64_t)1 << 52)) | (uint64_t)power2 << 52 | (uint64_t)neg << 63;
	memcpy(x, &bits, sizeof bits);
	return 1;
}

/* A number's value, as strtod reads it.  Up to 15 significant digits
 * times or over a power of ten up to 10^22 is one exact integer and one
 * exact power, so one IEEE operation rounds it correctly (Clinger's fast
 * path); up to 19 digits with any exponent in range goes to
 * eisel_lemire; anything else (more digits, an exponent past the table,
 * a case eisel_lemire leaves) is strtod's. */
int
json_number_value(const unsigned char *s, size_t n, double *x)
{
	const unsigned char *p = s + (*s == '-'), *end = s + n;
	uint64_t m = 0;
	int sig = 0, e10 = 0;
	char tmp[64], *num = tmp;

	for (; p < end && *p >= '0' && *p <= '9'; p++)
		if (sig > 0 || *p != '0')
			m = m * 10 + (uint64_t)(*p - '0'), sig++;
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, e10--)
			if (sig > 0 || *p != '0')
				m = m * 10 + (uint64_t)(*p - '0'), sig++;
	if (p == end && sig <= 15 && e10 >= -22) {
		*x = m == 0 ? 0 : e10 == 0 ? (double)m : (double)m / P10[-e10];
		if (*s == '-')
			*x = -*x;
		return 0;
	}
	if (p < end && (*p == 'e' || *p == 'E') && sig > 0 && sig <= 19) {
		int sign = p + 1 < end && (p[1] == '-' || p[1] == '+'), eneg = sign && p[1] == '-',
		    ex = 0;
		const unsigned char *d0 = p += 1 + sign;
		for (; p < end && *p >= '0' && *p <= '9' && ex < 100000; p++)
			ex = ex * 10 + (*p - '0');
		ex = eneg ? -ex : ex;
		if (p == end && p > d0 && e10 + ex >= POW10_LO && e10 + ex <= POW10_HI &&
		    eisel_lemire(m, e10 + ex, *s == '-', x))
			return 0;
	} else if (p == end && sig > 15 && sig <= 19 && e10 >= POW10_LO &&
	    eisel_lemire(m, e10, *s == '-', x)) {
		return 0;
	}
	if (n >= sizeof tmp && (num = malloc(n + 1)) == NULL)
		return -2;
	memcpy(num, s, n);
	num[n] = '\0';
	/* The process never calls setlocale, so strtod reads '.' as the point. */
	*x = strtod(num, NULL);
	if (num != tmp)
		free(num);
	return isfinite(*x) ? 0 : -1;
}

static int
number_value(struct json_rd *r, const unsigned char *s, size_t n, double *x)
{
	int rc = json_number_value(s, n, x);

	if (rc == -2)
		return nomem(r);
	if (rc < 0)
		return fail(r, s, "number out of double range");
	return 0;
}

int
json_number_canonical(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *point = NULL, *first = NULL, *last = NULL;
	int neg = *p == '-';

	for (const unsigned char *q = p + neg; q < end; q++) {
		if (*q == 'e' || *q == 'E')
			return 0;
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

/* The common number in one pass: -?(0|[1-9][0-9]*)(.[0-9]+)?, at most 15
 * significant digits and 22 after the point, then a byte that cannot go
 * on a number: its value as number_value gives it (Clinger's fast path)
 * into *x, whether it is canonical (json_number_canonical's rules, which
 * come down here to a zero, a trailing zero and leading zeros after
 * "0.") into *plain, and its end.  NULL for any other text, which the
 * full path reads (and refuses, if it must).  A parse of a fingerprint's
 * five million replicates spent more on a number's four passes than on
 * anything else. */
static const unsigned char *
number_fast(const unsigned char *s, const unsigned char *lim, double *x, int *plain)
{
	const unsigned char *p = s < lim && *s == '-' ? s + 1 : s, *f0 = NULL;
	uint64_t m = 0;
	int sig = 0, zint;

	if (p >= lim || *p < '0' || *p > '9')
		return NULL;
	zint = *p == '0';
	if (zint)
		p++;
	else
		for (; p < lim && *p >= '0' && *p <= '9'; p++, sig++)
			m = m * 10 + (uint64_t)(*p - '0');
	if (p < lim && *p == '.') {
		f0 = ++p;
		for (; p < lim && *p >= '0' && *p <= '9'; p++)
			if (sig > 0 || *p != '0')
				m = m * 10 + (uint64_t)(*p - '0'), sig++;
		if (p == f0)
			return NULL;
	}
	/* the next byte must end it: not a digit, point, sign or exponent */
	if (p >= lim || (*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
	    *p == '+' || *p == '-' || sig > 15 || (f0 && p - f0 > 22))
		return NULL;
	*x = m == 0 ? 0 : f0 == NULL || p == f0 ? (double)m : (double)m / P10[p - f0];
	if (*s == '-')
		*x = -*x;
	if (m == 0)
		*plain = p - s == 1; /* "0" alone */
	else if (f0 == NULL)
		*plain = 1;
	else if (p[-1] == '0')
		*plain = 0;
	else {
		size_t z = 0;
		while (zint && f0[z] == '0')
			z++;
		*plain = z <= 5; /* 0.000001 is plain, 0.0000001 is 1e-7 */
	}
	return p;
}

static int
lex_number(struct json_rd *r, struct json_tok *t)
{
	const unsigned char *s = r->p, *end = s, *p;

	if ((p = number_fast(s, r->end, &t->x, &t->plain)) != NULL) {
		t->type = JSON_NUMBER;
		t->s = (const char *)s;
		t->len = (size_t)(p - s);
		r->p = p;
		return 1;
	}

	while (end < r->end && ((*end >= '0' && *end <= '9') || *end == '.' || *end == '-' ||
	    *end == '+' || *end == 'e' || *end == 'E'))
		end++;
	if (end == r->end && !r->eof)
		return 0;
	if ((p = number_grammar(r, s, end)) == NULL)
		return -1;
	if (number_value(r, s, (size_t)(p - s), &t->x) < 0)
		return -1;
	t->type = JSON_NUMBER;
	t->s = (const char *)s;
	t->len = (size_t)(p - s);
	t->plain = json_number_canonical(s, t->len);
	r->p = p;
	return 1;
}

static int
lex_word(struct json_rd *r, struct json_tok *t, const char *word, enum json_type type)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n && !r->eof)
		return 0;
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return fail(r, r->p, "unexpected word");
	t->type = type;
	r->p += n;
	return 1;
}

static int
open_container(struct json_rd *r, struct json_tok *t)
{
	struct frame *f;

	if (r->depth + 1 > JSON_MAX_DEPTH)
		return fail(r, r->p, "nesting deeper than 256");
	f = &r->frames[++r->depth];
	f->obj = *r->p == '{';
	f->ordered = 1;
	f->k0 = r->nkeys;
	f->arena0 = r->arena.len;
	t->type = f->obj ? JSON_OBJECT : JSON_ARRAY;
	r->state = f->obj ? ST_OBJ_FIRST : ST_ARR_FIRST;
	r->p++;
	return 1;
}

/* A value at r->p (not white space, not the end). */
static int
lex_value(struct json_rd *r, struct json_tok *t)
{
	int rc;

	switch (*r->p) {
	case '{':
	case '[':
		return open_container(r, t);
	case '"':
		rc = lex_string(r, t);
		t->type = JSON_STRING;
		break;
	case 't':
		rc = lex_word(r, t, "true", JSON_TRUE);
		break;
	case 'f':
		rc = lex_word(r, t, "false", JSON_FALSE);
		break;
	case 'n':
		rc = lex_word(r, t, "null", JSON_NULL);
		break;
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
			rc = lex_number(r, t);
			break;
		}
		if (*r->p >= 0x80 && r->end - r->p < 4 && !r->eof)
			return 0;
		if (*r->p >= 0x80 && utf8_seq_len(r->p, r->end) == 0)
			return fail(r, r->p, "invalid UTF-8");
		return fail(r, r->p, "unexpected character");
	}
	if (rc == 1)
		r->state = ST_AFTER;
	return rc;
}

/* A key of a closing object, and its place in keys[] (the later of two
 * equal keys is the one named). */
struct ki {
	const char *k;
	size_t i;
};

static int
keyrec_cmp(const void *a, const void *b)
{
	const struct ki *x = a, *y = b;
	int c = strcmp(x->k, y->k);

	return c != 0 ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* An object's keys came out of order: sort them and name the second of
 * the first duplicate pair in that order. */
static int
dup_check(struct json_rd *r, const struct frame *f)
{
	struct ki small[32], *v = small;
	size_t n = r->nkeys - f->k0;
	int rc = 0;

	if (n > 32 && (v = malloc(n * sizeof *v)) == NULL)
		return nomem(r);
	for (size_t i = 0; i < n; i++) {
		v[i].k = r->arena.p + r->keys[f->k0 + i].off;
		v[i].i = f->k0 + i;
	}
	if (n > 32) {
		qsort(v, n, sizeof *v, keyrec_cmp);
	} else {
		/* a record's few keys: insertion, without qsort's calls */
		for (size_t i = 1; i < n; i++) {
			struct ki x = v[i];
			size_t j = i;
			for (; j > 0 && strcmp(v[j - 1].k, x.k) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	for (size_t i = 1; i < n && rc == 0; i++)
		if (strcmp(v[i - 1].k, v[i].k) == 0) {
			char what[200];
			const struct keyrec *k = &r->keys[v[i].i];
			snprintf(what, sizeof what, "duplicate key \"%.120s\"", v[i].k);
			rc = fail_at(r, k->line, k->col, what);
		}
	if (v != small)
		free(v);
	return rc;
}

static int
close_container(struct json_rd *r, struct json_tok *t)
{
	struct frame *f = &r->frames[r->depth];

	if (f->obj && !f->ordered && dup_check(r, f) < 0)
		return -1;
	r->nkeys = f->k0;
	buf_cut(&r->arena, f->arena0);
	t->type = f->obj ? JSON_OBJECT_END : JSON_ARRAY_END;
	r->depth--;
	r->state = ST_AFTER;
	r->p++;
	return 1;
}

/* Keep the key for the duplicate check at the object's end.  While each
 * key sorts after the one before (as producers almost always write
 * them), that comparison proves there is no duplicate, and the sort at
 * the end is skipped. */
static int
key_keep(struct json_rd *r, const struct json_tok *t)
{
	struct frame *f = &r->frames[r->depth];
	size_t off = r->arena.len;

	if (r->nkeys == r->capkeys) {
		size_t cap = r->capkeys ? 2 * r->capkeys : 64;
		struct keyrec *g = realloc(r->keys, cap * sizeof *g);
		if (g == NULL)
			return nomem(r);
		r->keys = g;
		r->capkeys = cap;
	}
	if (buf_add(&r->arena, t->s, t->len) < 0 || buf_addc(&r->arena, '\0') < 0)
		return nomem(r);
	if (f->ordered && r->nkeys > f->k0 &&
	    strcmp(r->arena.p + r->keys[r->nkeys - 1].off, r->arena.p + off) >= 0)
		f->ordered = 0;
	r->keys[r->nkeys++] = (struct keyrec){ off, t->line, t->col };
	return 0;
}

static int
lex_key(struct json_rd *r, struct json_tok *t)
{
	int rc;

	if (r->p >= r->end || *r->p != '"')
		return fail(r, r->p, "expected a string key");
	if ((rc = lex_string(r, t)) != 1)
		return rc;
	t->type = JSON_KEY;
	if (key_keep(r, t) < 0)
		return -1;
	r->state = ST_COLON;
	return 1;
}

/* After a value: the separator or the close of the container it is in,
 * or the end of the input. */
static int
lex_after(struct json_rd *r, struct json_tok *t)
{
	int obj = r->frames[r->depth].obj;

	if (r->depth == 0) {
		if (r->p < r->end)
			return fail(r, r->p, "trailing data after the value");
		t->type = JSON_EOF;
		r->state = ST_DONE;
		return 1;
	}
	if (*r->p == (obj ? '}' : ']'))
		return close_container(r, t);
	if (*r->p != ',')
		return fail(r, r->p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	r->p++;
	r->state = obj ? ST_KEY : ST_VALUE;
	return 2; /* go on */
}

/* One token from the bytes at hand: 1 read, 0 more bytes needed, -1
 * refused.  Only a finished step moves r->p and r->state, so a step that
 * needs more bytes is taken again from where it began. */
static int
step(struct json_rd *r, struct json_tok *t)
{
	const unsigned char *q;
	int rc;

	/* the commonest step of an array of numbers, ",NUMBER", at once: no
	 * white space to skip, no state to pass through */
	if (r->state == ST_AFTER && r->depth > 0 && !r->frames[r->depth].obj && r->p < r->end &&
	    *r->p == ',' && (q = number_fast(r->p + 1, r->end, &t->x, &t->plain)) != NULL) {
		t->type = JSON_NUMBER;
		t->s = (const char *)r->p + 1;
		t->len = (size_t)(q - r->p - 1);
		t->line = r->line;
		t->col = (long)(offset_of(r, r->p + 1) - r->bol) + 1;
		r->p = q;
		return 1;
	}
	for (;;) {
		if (r->state == ST_START) {
			if (r->end - r->p < 3 && !r->eof)
				return 0;
			if (r->end - r->p >= 3 && memcmp(r->p, "\xEF\xBB\xBF", 3) == 0)
				return fail(r, r->p, "byte-order mark not allowed");
			r->state = ST_VALUE;
		}
		if (r->state == ST_DONE) {
			t->type = JSON_EOF;
			return 1;
		}
		skip_ws(r);
		if (r->p >= r->end && !r->eof)
			return 0;
		t->line = r->line;
		t->col = (long)(offset_of(r, r->p) - r->bol) + 1;
		switch (r->state) {
		case ST_VALUE:
			if (r->p >= r->end)
				return fail(r, r->p, "unexpected end of input");
			return lex_value(r, t);
		case ST_ARR_FIRST:
			if (r->p < r->end && *r->p == ']')
				return close_container(r, t);
			r->state = ST_VALUE;
			continue;
		case ST_OBJ_FIRST:
			if (r->p < r->end && *r->p == '}')
				return close_container(r, t);
			/* fall through */
		case ST_KEY:
			return lex_key(r, t);
		case ST_COLON:
			if (r->p >= r->end || *r->p != ':')
				return fail(r, r->p, "expected ':'");
			r->p++;
			r->state = ST_VALUE;
			continue;
		case ST_AFTER:
			if (r->depth > 0 && r->p >= r->end)
				return fail(r, r->p, r->frames[r->depth].obj ? "expected ',' or '}'"
				    : "expected ',' or ']'");
			if ((rc = lex_after(r, t)) != 2)
				return rc;
			continue;
		default:
			return fail(r, r->p, "unexpected character");
		}
	}
}

size_t
json_rd_run(struct json_rd *r, struct json_tok *t, size_t cap)
{
	const unsigned char *p = r->p, *q, *v;
	size_t n = 0;

	if (r->state != ST_AFTER || r->depth == 0 || r->frames[r->depth].obj)
		return 0;
	/* step's comma path, with the blanks a writer may put after a comma
	 * (not a newline, which would move the line) */
	while (n < cap && p < r->end && *p == ',') {
		for (v = p + 1; v < r->end && (*v == ' ' || *v == '\t');)
			v++;
		if ((q = number_fast(v, r->end, &t[n].x, &t[n].plain)) == NULL)
			break;
		t[n].type = JSON_NUMBER;
		t[n].s = (const char *)v;
		t[n].len = (size_t)(q - v);
		t[n].line = r->line;
		t[n].col = (long)(offset_of(r, v) - r->bol) + 1;
		n++;
		p = q;
	}
	r->p = p;
	return n;
}

int
json_rd_next(struct json_rd *r, struct json_tok *t, struct err *e)
{
	int rc;

	r->e = e;
	t->s = NULL;
	t->len = 0;
	t->plain = 0;
	while ((rc = step(r, t)) == 0)
		if (refill(r) < 0)
			return -1;
	return rc < 0 ? -1 : 0;
}
