/* re.c: gitleaks' regular expressions (Go RE2 syntax, the subset in
 * docs/design.md) parsed into a tree, written out as a POSIX extended
 * regular expression for regcomp(3), and compiled into a small program
 * for a backtracking matcher that remembers which (instruction, position)
 * pairs it has tried, so it never does more than instructions times bytes
 * steps (the "bit-state" method of RE2).  regexec finds whether and how far
 * a rule matches; the program takes the capture groups out of those bytes
 * with Go's priorities (leftmost-first, lazy quantifiers), which POSIX's
 * leftmost-longest cannot give, and decides allowlist patterns on short
 * strings. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---------------------------------------------------------------- tree */

enum { N_SET, N_CAT, N_ALT, N_REP, N_GROUP, N_BOL, N_EOL, N_WB, N_NWB, N_EMPTY };

struct node {
	int op;
	int min, max;  /* N_REP; max -1 for no bound */
	int greedy;    /* N_REP */
	int cap;       /* N_GROUP: Go capture index, 0 for a non-capturing group */
	int set;       /* N_SET: index into sets */
	int kid;       /* first child, -1 none */
	int next;      /* next sibling, -1 none */
};

/* Flags of (?flags): case-insensitive, dot matches newline. */
enum { F_I = 1, F_S = 2 };

#define MAX_DEPTH 100
#define MAX_REPEAT 1000
#define MAX_NODES 100000
#define MAX_INST 40000

struct parser {
	const char *s, *p, *end;
	struct node *n;
	int nn, cn;
	uint8_t (*sets)[32];
	int nsets, csets;
	int ncap;
	int depth;
	int quote;  /* inside \Q...\E: every byte is itself */
	int oom;
	char *why;
	size_t whylen;
};

static int
fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(ps->why, ps->whylen, "offset %ld: ", (long)(at - ps->s));

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < ps->whylen)
		vsnprintf(ps->why + k, ps->whylen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static int
node_new(struct parser *ps, int op)
{
	if (ps->nn == ps->cn) {
		int nc = ps->cn ? 2 * ps->cn : 64;
		struct node *nv;
		if (nc > MAX_NODES || (nv = realloc(ps->n, (size_t)nc * sizeof *nv)) == NULL) {
			ps->oom = 1;
			return -1;
		}
		ps->n = nv;
		ps->cn = nc;
	}
	ps->n[ps->nn] = (struct node){ op, 0, 0, 1, 0, -1, -1, -1 };
	return ps->nn++;
}

static int
set_new(struct parser *ps)
{
	if (ps->nsets == ps->csets) {
		int nc = ps->csets ? 2 * ps->csets : 16;
		uint8_t (*nv)[32] = realloc(ps->sets, (size_t)nc * sizeof *nv);
		if (nv == NULL) {
			ps->oom = 1;
			return -1;
		}
		ps->sets = nv;
		ps->csets = nc;
	}
	memset(ps->sets[ps->nsets], 0, 32);
	return ps->nsets++;
}

static void
set_add(uint8_t *set, unsigned c)
{
	if (c != 0) /* NUL never matches: regcomp cannot be given one */
		set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static int
set_has(const uint8_t *set, unsigned c)
{
	return set[c >> 3] >> (c & 7) & 1;
}

static void
set_range(uint8_t *set, unsigned a, unsigned b)
{
	for (unsigned c = a; c <= b; c++)
		set_add(set, c);
}

static void
set_fold(uint8_t *set)
{
	for (unsigned c = 'a'; c <= 'z'; c++)
		if (set_has(set, c) || set_has(set, c - 32)) {
			set_add(set, c);
			set_add(set, c - 32);
		}
}

static void
set_invert(uint8_t *set)
{
	for (int i = 0; i < 32; i++)
		set[i] = (uint8_t)~set[i];
	set[0] &= 0xFE;
}

/* \d \s \w and their negations, into set; 0 when c names none of them. */
static int
perl_class(uint8_t *set, char c)
{
	uint8_t t[32] = { 0 };

	switch (c | 0x20) {
	case 'd':
		set_range(t, '0', '9');
		break;
	case 's':
		/* Go's \s: tab, newline, form feed, carriage return, space (not \v) */
		set_add(t, '\t');
		set_add(t, '\n');
		set_add(t, '\f');
		set_add(t, '\r');
		set_add(t, ' ');
		break;
	case 'w':
		set_range(t, '0', '9');
		set_range(t, 'A', 'Z');
		set_range(t, 'a', 'z');
		set_add(t, '_');
		break;
	default:
		return 0;
	}
	if (c >= 'A' && c <= 'Z')
		set_invert(t);
	for (int i = 0; i < 32; i++)
		set[i] |= t[i];
	return 1;
}

/* [:name:] (ASCII, as Go has them), into set; 0 when the name is unknown. */
static int
posix_class(uint8_t *set, const char *name, size_t n, int neg)
{
	static const struct {
		const char *name;
		const char *ranges; /* pairs of bytes */
	} cls[] = {
		{ "alnum", "09AZaz" }, { "alpha", "AZaz" }, { "ascii", "\x01\x7f" },
		{ "blank", "\t\t  " }, { "cntrl", "\x01\x1f\x7f\x7f" }, { "digit", "09" },
		{ "graph", "!~" }, { "lower", "az" }, { "print", " ~" },
		{ "punct", "!/:@[`{~" }, { "space", "\t\r  " }, { "upper", "AZ" },
		{ "word", "09AZaz__" }, { "xdigit", "09AFaf" },
	};
	for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
		if (strlen(cls[i].name) != n || memcmp(cls[i].name, name, n) != 0)
			continue;
		uint8_t t[32] = { 0 };
		for (const char *r = cls[i].ranges; *r; r += 2)
			set_range(t, (unsigned char)r[0], (unsigned char)r[1]);
		if (neg)
			set_invert(t);
		for (int k = 0; k < 32; k++)
			set[k] |= t[k];
		return 1;
	}
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* An escape that stands for one byte (after the backslash at p[-1]); the
 * byte, or -1 with the error set; *p is moved past it. */
static int
escape_byte(struct parser *ps, const char **pp)
{
	const char *p = *pp, *at = p - 1;
	unsigned c = (unsigned char)*p;
	long v = 0;

	if (p >= ps->end)
		return fail(ps, at, "trailing backslash");
	switch (c) {
	case 'a': *pp = p + 1; return 7;
	case 'f': *pp = p + 1; return '\f';
	case 't': *pp = p + 1; return '\t';
	case 'n': *pp = p + 1; return '\n';
	case 'r': *pp = p + 1; return '\r';
	case 'v': *pp = p + 1; return '\v';
	case 'x':
		p++;
		if (p < ps->end && *p == '{') {
			const char *q = ++p;
			while (q < ps->end && hexval(*q) >= 0 && q - p < 8)
				v = v * 16 + hexval(*q++);
			if (q == p || q >= ps->end || *q != '}')
				return fail(ps, at, "malformed \\x{...}");
			p = q + 1;
		} else {
			if (ps->end - p < 2 || hexval(p[0]) < 0 || hexval(p[1]) < 0)
				return fail(ps, at, "malformed \\x escape");
			v = hexval(p[0]) * 16 + hexval(p[1]);
			p += 2;
		}
		if (v == 0)
			return fail(ps, at, "\\x00: a NUL cannot be matched");
		if (v > 0x7F)
			return fail(ps, at, "\\x%lX: only ASCII code points are supported", v);
		*pp = p;
		return (int)v;
	}
	if (c >= '0' && c <= '9')
		return fail(ps, at, "\\%c: octal escapes and back references are not supported", c);
	if (c == 'p' || c == 'P')
		return fail(ps, at, "\\%c: Unicode classes are not supported", c);
	if (c == 'C' || c == 'K' || c == 'G' || c == 'Z' || c == 'X' || c == 'R' || c == 'h' ||
	    c == 'H' || c == 'V' || c == 'N' || c == 'e' || c == 'c')
		return fail(ps, at, "\\%c is not supported", c);
	if (c < 0x80 && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
		*pp = p + 1; /* an escaped punctuation character stands for itself */
		return (int)c;
	}
	return fail(ps, at, "unknown escape \\%c", c);
}

/* A POSIX class "[:name:]" (or "[:^name:]") at *pp inside a bracket
 * expression, added to set; *pp left past it. */
static int
class_posix(struct parser *ps, uint8_t *set, const char **pp)
{
	const char *p = *pp, *q = p + 2, *nm;
	int cneg = 0;

	if (q < ps->end && *q == '^') {
		cneg = 1;
		q++;
	}
	nm = q;
	while (q + 1 < ps->end && !(q[0] == ':' && q[1] == ']'))
		q++;
	if (q + 1 >= ps->end || !posix_class(set, nm, (size_t)(q - nm), cneg))
		return fail(ps, p, "unknown class [:%.*s:]", (int)(q - nm), nm);
	*pp = q + 2;
	return 0;
}

/* The upper end of a range "lo-hi" at *pp (lo itself when none follows),
 * *pp left past it; -1 on a bad one. */
static int
class_range_end(struct parser *ps, const char **pp, int lo)
{
	const char *p = *pp;
	int hi = lo;

	if (p + 1 < ps->end && *p == '-' && p[1] != ']') {
		p++;
		if (*p == '\\') {
			p++;
			hi = escape_byte(ps, &p);
			if (hi < 0)
				return -1;
		} else {
			hi = (unsigned char)*p++;
			if (hi >= 0x80)
				return fail(ps, p - 1,
				    "a non-ASCII byte in a character class is not supported");
		}
		if (hi < lo)
			return fail(ps, p - 1, "a range out of order in a character class");
	}
	*pp = p;
	return hi;
}

/* [...] at ps->p (just past the '['). */
static int
parse_class(struct parser *ps, int flags)
{
	const char *start = ps->p - 1, *p = ps->p;
	int neg = 0, first = 1, s = set_new(ps), id;
	uint8_t *set;

	if (s < 0)
		return -1;
	if (p < ps->end && *p == '^') {
		neg = 1;
		p++;
	}
	for (;;) {
		int lo, hi;
		if (p >= ps->end)
			return fail(ps, start, "missing ] of a character class");
		if (*p == ']' && !first)
			break;
		first = 0;
		set = ps->sets[s]; /* sets may have moved */
		if (*p == '[' && p + 1 < ps->end && p[1] == ':') {
			if (class_posix(ps, set, &p) < 0)
				return -1;
			continue;
		}
		if (*p == '\\') {
			p++;
			if (p < ps->end && perl_class(set, *p)) {
				p++;
				continue;
			}
			if (p < ps->end && (*p == 'b' || *p == 'B' || *p == 'A' || *p == 'z'))
				return fail(ps, p - 1, "\\%c inside a character class", *p);
			lo = escape_byte(ps, &p);
			if (lo < 0)
				return -1;
		} else {
			lo = (unsigned char)*p++;
			if (lo >= 0x80)
				return fail(ps, p - 1, "a non-ASCII byte in a character class is not supported");
		}
		if ((hi = class_range_end(ps, &p, lo)) < 0)
			return -1;
		set_range(set, (unsigned)lo, (unsigned)hi);
	}
	ps->p = p + 1;
	set = ps->sets[s];
	if (flags & F_I)
		set_fold(set);
	if (neg)
		set_invert(set);
	{
		int any = 0;
		for (int i = 0; i < 32; i++)
			any |= set[i];
		if (!any)
			return fail(ps, start, "a character class that matches nothing");
	}
	if ((id = node_new(ps, N_SET)) < 0)
		return -1;
	ps->n[id].set = s;
	return id;
}

static int
literal(struct parser *ps, unsigned c, int flags)
{
	int s = set_new(ps), id;

	if (s < 0)
		return -1;
	set_add(ps->sets[s], c);
	if ((flags & F_I) && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
		set_fold(ps->sets[s]);
	if ((id = node_new(ps, N_SET)) < 0)
		return -1;
	ps->n[id].set = s;
	return id;
}

static int
perl_node(struct parser *ps, char c)
{
	int s = set_new(ps), id;

	if (s < 0)
		return -1;
	perl_class(ps->sets[s], c);
	if ((id = node_new(ps, N_SET)) < 0)
		return -1;
	ps->n[id].set = s;
	return id;
}

static int parse_alt(struct parser *ps, int *flags);

/* A group's name after "(?P<" or "(?<" at *pp, up to and past its '>'. */
static int
group_name(struct parser *ps, const char *at, const char **pp)
{
	const char *p = *pp, *nm;

	p += *p == 'P' ? 2 : 1;
	nm = p;
	while (p < ps->end && *p != '>') {
		char c = *p;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		        (c >= 'A' && c <= 'Z') || c == '_'))
			return fail(ps, at, "a malformed group name");
		p++;
	}
	if (p >= ps->end || p == nm)
		return fail(ps, at, "a malformed group name");
	*pp = p + 1;
	return 0;
}

/* The flags after "(?" at *pp into *inner, *pp left past the ':' (0: a
 * group follows) or the ')' (1: the flags alone); -1 on bad ones. */
static int
group_flags(struct parser *ps, const char *at, const char **pp, int *inner)
{
	const char *p = *pp;
	int neg = 0, sawflag = 0;

	for (;;) {
		if (p >= ps->end)
			return fail(ps, at, "missing ) of a flag group");
		char c = *p++;
		if (c == 'm') {
			return fail(ps, p - 1, "the m flag is not supported (^ and $ match "
			    "where a rule is tried and where its window ends)");
		} else if (c == 'i' || c == 's') {
			int f = c == 'i' ? F_I : F_S;
			*inner = neg ? *inner & ~f : *inner | f;
			sawflag = 1;
		} else if (c == 'U') {
			return fail(ps, p - 1, "the U flag is not supported");
		} else if (c == '-' && !neg) {
			neg = 1;
			sawflag = 0;
		} else if (c == ')' || c == ':') {
			if (neg && !sawflag)
				return fail(ps, at, "a malformed flag group");
			*pp = p;
			return c == ')';
		} else {
			return fail(ps, p - 1, "unknown flag or group syntax (?%c", c);
		}
	}
}

/* (?flags), (?flags:...), (?:...), (?P<name>...), (?<name>...), (...) */
static int
parse_group(struct parser *ps, int *flags)
{
	const char *at = ps->p - 1, *p = ps->p;
	int inner = *flags, cap = 0, id, kid;

	if (p < ps->end && *p == '?') {
		p++;
		if (p < ps->end && (*p == '=' || *p == '!'))
			return fail(ps, at, "lookahead is not supported (nor is it in RE2)");
		if (p + 1 < ps->end && *p == '<' && (p[1] == '=' || p[1] == '!'))
			return fail(ps, at, "lookbehind is not supported (nor is it in RE2)");
		if ((p < ps->end && *p == 'P' && p + 1 < ps->end && p[1] == '<') ||
		    (p < ps->end && *p == '<')) {
			if (group_name(ps, at, &p) < 0)
				return -1;
			cap = ++ps->ncap;
		} else {
			int r = group_flags(ps, at, &p, &inner);
			if (r < 0)
				return -1;
			if (r == 1) {
				*flags = inner; /* (?i): to the end of the enclosing group */
				ps->p = p;
				return node_new(ps, N_EMPTY);
			}
		}
	} else {
		cap = ++ps->ncap;
	}
	ps->p = p;
	if (++ps->depth > MAX_DEPTH)
		return fail(ps, at, "groups nested more than %d deep", MAX_DEPTH);
	kid = parse_alt(ps, &inner);
	ps->depth--;
	if (kid < 0)
		return -1;
	if (ps->p >= ps->end || *ps->p != ')')
		return fail(ps, at, "missing )");
	ps->p++;
	if ((id = node_new(ps, N_GROUP)) < 0)
		return -1;
	ps->n[id].cap = cap;
	ps->n[id].kid = kid;
	return id;
}

/* {n}, {n,}, {n,m} at p; 1 with *min, *max set and *pp past it, 0 when
 * the brace is a literal. */
static int
parse_braces(const char *p, const char *end, int *min, int *max, const char **pp)
{
	long a = 0, b;
	const char *q = p + 1;

	if (q >= end || *q < '0' || *q > '9')
		return 0;
	while (q < end && *q >= '0' && *q <= '9' && a <= MAX_REPEAT)
		a = a * 10 + (*q++ - '0');
	b = a;
	if (q < end && *q == ',') {
		q++;
		if (q < end && *q == '}') {
			b = -1;
		} else {
			if (q >= end || *q < '0' || *q > '9')
				return 0;
			b = 0;
			while (q < end && *q >= '0' && *q <= '9' && b <= MAX_REPEAT)
				b = b * 10 + (*q++ - '0');
		}
	}
	if (q >= end || *q != '}')
		return 0;
	*min = (int)(a > MAX_REPEAT ? MAX_REPEAT + 1 : a);
	*max = (int)(b > MAX_REPEAT ? MAX_REPEAT + 1 : b);
	*pp = q + 1;
	return 1;
}

/* ".": any byte but NUL, and but newline unless (?s). */
static int
parse_dot(struct parser *ps, int flags)
{
	int s = set_new(ps), id;

	if (s < 0)
		return -1;
	set_range(ps->sets[s], 1, 255);
	if (!(flags & F_S))
		ps->sets[s]['\n' >> 3] &= (uint8_t)~(1u << ('\n' & 7));
	if ((id = node_new(ps, N_SET)) >= 0)
		ps->n[id].set = s;
	return id;
}

/* An escape after its backslash, but \Q: a Perl class, an assertion or
 * one escaped byte. */
static int
parse_escape(struct parser *ps, int flags)
{
	char e = ps->p < ps->end ? *ps->p : 0;

	if (e == 'd' || e == 'D' || e == 's' || e == 'S' || e == 'w' || e == 'W') {
		ps->p++;
		return perl_node(ps, e);
	} else if (e == 'b' || e == 'B') {
		ps->p++;
		return node_new(ps, e == 'b' ? N_WB : N_NWB);
	} else if (e == 'A') {
		ps->p++;
		return node_new(ps, N_BOL);
	} else if (e == 'z') {
		ps->p++;
		return node_new(ps, N_EOL);
	}
	const char *p = ps->p;
	int b = escape_byte(ps, &p);
	if (b < 0)
		return -1;
	ps->p = p;
	return literal(ps, (unsigned)b, flags);
}

/* Can node id match the empty string? */
static int
nullable(const struct parser *ps, int id)
{
	const struct node *n = &ps->n[id];
	int k;

	switch (n->op) {
	case N_SET:
		return 0;
	case N_CAT:
		for (k = n->kid; k >= 0; k = ps->n[k].next)
			if (!nullable(ps, k))
				return 0;
		return 1;
	case N_ALT:
		for (k = n->kid; k >= 0; k = ps->n[k].next)
			if (nullable(ps, k))
				return 1;
		return n->kid < 0;
	case N_REP:
		return n->min == 0 || nullable(ps, n->kid);
	case N_GROUP:
		return n->kid < 0 || nullable(ps, n->kid);
	default: /* the anchors and N_EMPTY */
		return 1;
	}
}

/* The quantifiers after atom id, each wrapping the one before: the
 * outermost. */
static int
parse_quantifiers(struct parser *ps, int id)
{
	if (id < 0)
		return -1;
	while (ps->p < ps->end) {
		int min, max, rep;
		const char *q = ps->p, *qat = ps->p;
		if (*q == '*') {
			min = 0, max = -1, q++;
		} else if (*q == '+') {
			min = 1, max = -1, q++;
		} else if (*q == '?') {
			min = 0, max = 1, q++;
		} else if (*q == '{' && parse_braces(q, ps->end, &min, &max, &q)) {
			if (min > MAX_REPEAT || max > MAX_REPEAT)
				return fail(ps, qat, "a repeat count over %d", MAX_REPEAT);
			if (max >= 0 && max < min)
				return fail(ps, qat, "a repeat count out of order");
			/* glibc's regcomp takes time and memory without bound on
			 * these ((?:){500}, (?:\b){24}, (?:a*){9,99}) */
			if ((max > 1 || max < 0) && nullable(ps, id))
				return fail(ps, qat, "a counted repetition of what may match nothing");
		} else {
			break;
		}
		if (ps->n[id].op == N_REP)
			return fail(ps, qat, "a repetition of a repetition (write (?:...) around it)");
		if ((rep = node_new(ps, N_REP)) < 0)
			return -1;
		ps->n[rep].min = min;
		ps->n[rep].max = max;
		ps->n[rep].kid = id;
		if (q < ps->end && *q == '?') {
			ps->n[rep].greedy = 0;
			q++;
		}
		ps->p = q;
		id = rep;
	}
	return id;
}

/* One atom and its quantifiers. */
static int
parse_atom(struct parser *ps, int *flags)
{
	const char *at = ps->p;
	unsigned c = (unsigned char)*ps->p++;
	int id;

	if (ps->quote) {
		id = literal(ps, c, *flags);
		if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == 'E') {
			ps->p += 2;
			ps->quote = 0;
		} else {
			return id; /* no quantifier inside \Q...\E */
		}
		return parse_quantifiers(ps, id);
	}
	switch (c) {
	case '(':
		id = parse_group(ps, flags);
		break;
	case '[':
		id = parse_class(ps, *flags);
		break;
	case '.':
		id = parse_dot(ps, *flags);
		break;
	case '^':
		id = node_new(ps, N_BOL);
		break;
	case '$':
		id = node_new(ps, N_EOL);
		break;
	case '*':
	case '+':
	case '?':
		return fail(ps, at, "missing argument to repetition operator %c", c);
	case ')':
		return fail(ps, at, "unexpected )");
	case '\\':
		if (ps->p < ps->end && *ps->p == 'Q') {
			/* \Q...\E: literal bytes, each an atom of its own */
			ps->p++;
			ps->quote = 1;
			if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == 'E') {
				ps->p += 2;
				ps->quote = 0;
			}
			return node_new(ps, N_EMPTY);
		}
		id = parse_escape(ps, *flags);
		break;
	default:
		id = literal(ps, c, *flags);
		break;
	}
	return parse_quantifiers(ps, id);
}

static int
parse_cat(struct parser *ps, int *flags)
{
	int first = -1, last = -1, id;

	while (ps->p < ps->end && (ps->quote || (*ps->p != '|' && *ps->p != ')'))) {
		int a = parse_atom(ps, flags);
		if (a < 0)
			return -1;
		if (ps->n[a].op == N_EMPTY)
			continue;
		if (first < 0)
			first = a;
		else
			ps->n[last].next = a;
		last = a;
	}
	if (first < 0)
		return node_new(ps, N_EMPTY);
	if (ps->n[first].next < 0)
		return first;
	if ((id = node_new(ps, N_CAT)) < 0)
		return -1;
	ps->n[id].kid = first;
	return id;
}

static int
parse_alt(struct parser *ps, int *flags)
{
	int first = parse_cat(ps, flags), last = first, id;

	if (first < 0)
		return -1;
	if (ps->p >= ps->end || *ps->p != '|')
		return first;
	while (ps->p < ps->end && *ps->p == '|') {
		int c;
		ps->p++;
		if ((c = parse_cat(ps, flags)) < 0)
			return -1;
		ps->n[last].next = c;
		last = c;
	}
	if ((id = node_new(ps, N_ALT)) < 0)
		return -1;
	ps->n[id].kid = first;
	return id;
}

/* ------------------------------------------------------- POSIX output */

struct out {
	char *p;
	size_t len, cap;
	int oom;
	int ngroup; /* POSIX subexpressions opened so far */
};

static void
out_add(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t nc = o->cap ? o->cap : 256;
		char *nv;
		while (nc < o->len + n + 1)
			nc *= 2;
		if ((nv = realloc(o->p, nc)) == NULL) {
			o->oom = 1;
			return;
		}
		o->p = nv;
		o->cap = nc;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void
out_c(struct out *o, char c)
{
	out_add(o, &c, 1);
}

static int
set_count(const uint8_t *set, int *only)
{
	int n = 0;
	for (int c = 1; c < 256; c++)
		if (set_has(set, (unsigned)c)) {
			n++;
			*only = c;
		}
	return n;
}

/* A set as one byte or a bracket expression that regcomp reads the same
 * way: ']' first, '^' not first, '-' last, '[' before '-' (so it never
 * starts "[:"), everything else in ranges of bytes. */
static void
emit_set(struct out *o, const uint8_t *set)
{
	int only = 0, n = set_count(set, &only);

	if (n == 1) {
		if (strchr(".[]()*+?{}|^$\\", only) != NULL)
			out_c(o, '\\');
		out_c(o, (char)only);
		return;
	}
	size_t body;
	int lbracket;

	out_c(o, '[');
	body = o->len;
	if (set_has(set, ']'))
		out_c(o, ']');
	for (int c = 1; c < 256; c++) {
		int d;
		if (!set_has(set, (unsigned)c) || c == ']' || c == '^' || c == '-' || c == '[')
			continue;
		d = c;
		while (d + 1 < 256 && set_has(set, (unsigned)d + 1) && d + 1 != ']' && d + 1 != '^' &&
		    d + 1 != '-' && d + 1 != '[')
			d++;
		out_c(o, (char)c);
		if (d > c + 1)
			out_c(o, '-');
		if (d > c)
			out_c(o, (char)d);
		c = d;
	}
	lbracket = set_has(set, '[');
	if (set_has(set, '^')) {
		if (o->len == body && !lbracket) {
			/* only '^' and '-': "[-^]", as '^' first would negate */
			out_add(o, "-^]", 3);
			return;
		}
		if (o->len == body) {
			out_c(o, '['); /* "[[^": '[' then '^', no class syntax */
			lbracket = 0;
		}
		out_c(o, '^');
	}
	if (lbracket)
		out_c(o, '['); /* late, so it never begins "[:", "[." or "[=" */
	if (set_has(set, '-'))
		out_c(o, '-');
	out_c(o, ']');
}

static void emit_posix(struct out *o, const struct parser *ps, int id, int *map);

static void
emit_group(struct out *o, const struct parser *ps, int kid, int cap, int *map)
{
	out_c(o, '(');
	o->ngroup++;
	if (cap > 0)
		map[cap] = o->ngroup;
	if (kid >= 0)
		emit_posix(o, ps, kid, map);
	out_c(o, ')');
}

static void
emit_posix(struct out *o, const struct parser *ps, int id, int *map)
{
	const struct node *n = &ps->n[id];
	char buf[32];

	switch (n->op) {
	case N_SET:
		emit_set(o, ps->sets[n->set]);
		break;
	case N_CAT:
		for (int k = n->kid; k >= 0; k = ps->n[k].next)
			emit_posix(o, ps, k, map);
		break;
	case N_ALT:
		for (int k = n->kid; k >= 0; k = ps->n[k].next) {
			if (k != n->kid)
				out_c(o, '|');
			emit_posix(o, ps, k, map);
		}
		break;
	case N_GROUP:
		emit_group(o, ps, n->kid, n->cap, map);
		break;
	case N_REP: {
		const struct node *k = &ps->n[n->kid];
		if (k->op == N_SET || k->op == N_GROUP)
			emit_posix(o, ps, n->kid, map);
		else
			emit_group(o, ps, n->kid, 0, map);
		if (n->min == 0 && n->max == -1)
			out_c(o, '*');
		else if (n->min == 1 && n->max == -1)
			out_c(o, '+');
		else if (n->min == 0 && n->max == 1)
			out_c(o, '?');
		else if (n->max == -1)
			out_add(o, buf, (size_t)snprintf(buf, sizeof buf, "{%d,}", n->min));
		else if (n->max == n->min)
			out_add(o, buf, (size_t)snprintf(buf, sizeof buf, "{%d}", n->min));
		else
			out_add(o, buf, (size_t)snprintf(buf, sizeof buf, "{%d,%d}", n->min, n->max));
		break;
	}
	case N_BOL:
		out_c(o, '^');
		break;
	case N_EOL:
		out_c(o, '$');
		break;
	case N_WB:
		out_add(o, "\\b", 2);
		break;
	case N_NWB:
		out_add(o, "\\B", 2);
		break;
	case N_EMPTY:
		out_add(o, "()", 2);
		o->ngroup++;
		break;
	}
}

/* ------------------------------------------------------------ program */

enum { I_SET, I_SPLIT, I_JMP, I_SAVE, I_BOL, I_EOL, I_WB, I_NWB, I_MATCH };

struct secret_re_inst {
	int op;
	int x, y; /* I_SET: set; I_SPLIT: first, second choice; I_JMP: target; I_SAVE: slot */
};

struct prog {
	struct secret_re_inst *i;
	int n, cap;
	int over;
};

static int
inst(struct prog *pg, int op, int x, int y)
{
	if (pg->over)
		return 0;
	if (pg->n == pg->cap) {
		int nc = pg->cap ? 2 * pg->cap : 64;
		struct secret_re_inst *nv;
		if (nc > MAX_INST || (nv = realloc(pg->i, (size_t)nc * sizeof *nv)) == NULL) {
			pg->over = 1;
			return 0;
		}
		pg->i = nv;
		pg->cap = nc;
	}
	pg->i[pg->n] = (struct secret_re_inst){ op, x, y };
	return pg->n++;
}

static void emit_prog(struct prog *pg, const struct parser *ps, int id);

/* An alternation: a split before each branch but the last, each
 * branch's end a jump past them all. */
static void
emit_alt(struct prog *pg, const struct parser *ps, const struct node *n)
{
	int *jumps, nj = 0, nk = 0, k;

	for (k = n->kid; k >= 0; k = ps->n[k].next)
		nk++;
	if ((jumps = malloc((size_t)nk * sizeof *jumps)) == NULL) {
		pg->over = 1;
		return;
	}
	for (k = n->kid; k >= 0 && !pg->over; k = ps->n[k].next) {
		if (ps->n[k].next < 0) {
			emit_prog(pg, ps, k);
			break;
		}
		int s = inst(pg, I_SPLIT, 0, 0);
		if (pg->over)
			break;
		pg->i[s].x = pg->n;
		emit_prog(pg, ps, k);
		jumps[nj++] = inst(pg, I_JMP, 0, 0);
		if (pg->over)
			break;
		pg->i[s].y = pg->n;
	}
	for (int q = 0; q < nj && !pg->over; q++)
		pg->i[jumps[q]].x = pg->n;
	free(jumps);
}

/* A repetition: min copies, then a loop (no upper bound) or max - min
 * optional copies, each one split past, greedy or not. */
static void
emit_rep(struct prog *pg, const struct parser *ps, const struct node *n)
{
	for (int k = 0; k < n->min; k++)
		emit_prog(pg, ps, n->kid);
	if (n->max == -1) {
		int s = inst(pg, I_SPLIT, 0, 0);
		int body = pg->n;
		emit_prog(pg, ps, n->kid);
		inst(pg, I_JMP, s, 0);
		if (pg->over)
			return;
		pg->i[s].x = n->greedy ? body : pg->n;
		pg->i[s].y = n->greedy ? pg->n : body;
	} else {
		int opt = n->max - n->min, *splits;
		if (opt <= 0)
			return;
		if ((splits = malloc((size_t)opt * sizeof *splits)) == NULL) {
			pg->over = 1;
			return;
		}
		for (int k = 0; k < opt && !pg->over; k++) {
			splits[k] = inst(pg, I_SPLIT, 0, 0);
			if (pg->over)
				break;
			if (n->greedy)
				pg->i[splits[k]].x = pg->n;
			else
				pg->i[splits[k]].y = pg->n;
			emit_prog(pg, ps, n->kid);
		}
		for (int k = 0; k < opt && !pg->over; k++) {
			if (n->greedy)
				pg->i[splits[k]].y = pg->n;
			else
				pg->i[splits[k]].x = pg->n;
		}
		free(splits);
	}
}

static void
emit_prog(struct prog *pg, const struct parser *ps, int id)
{
	const struct node *n = &ps->n[id];

	if (pg->over)
		return;
	switch (n->op) {
	case N_SET:
		inst(pg, I_SET, n->set, 0);
		break;
	case N_CAT:
		for (int k = n->kid; k >= 0; k = ps->n[k].next)
			emit_prog(pg, ps, k);
		break;
	case N_ALT:
		emit_alt(pg, ps, n);
		break;
	case N_GROUP:
		if (n->cap > 0)
			inst(pg, I_SAVE, 2 * n->cap, 0);
		emit_prog(pg, ps, n->kid);
		if (n->cap > 0)
			inst(pg, I_SAVE, 2 * n->cap + 1, 0);
		break;
	case N_REP:
		emit_rep(pg, ps, n);
		break;
	case N_BOL:
		inst(pg, I_BOL, 0, 0);
		break;
	case N_EOL:
		inst(pg, I_EOL, 0, 0);
		break;
	case N_WB:
		inst(pg, I_WB, 0, 0);
		break;
	case N_NWB:
		inst(pg, I_NWB, 0, 0);
		break;
	case N_EMPTY:
		break;
	}
}

/* Does every match begin with ^ (ignoring groups around it)? */
static int
leads_with(const struct parser *ps, int id, int op)
{
	const struct node *n = &ps->n[id];

	switch (n->op) {
	case N_CAT:
		return leads_with(ps, n->kid, op);
	case N_GROUP:
		return n->kid >= 0 && leads_with(ps, n->kid, op);
	case N_ALT:
		for (int k = n->kid; k >= 0; k = ps->n[k].next)
			if (!leads_with(ps, k, op))
				return 0;
		return 1;
	case N_REP:
		return n->min > 0 && leads_with(ps, n->kid, op);
	default:
		return n->op == op;
	}
}

/* Is there a ^, \b or \B anywhere under id? */
static int
has_context(const struct parser *ps, int id)
{
	const struct node *n = &ps->n[id];

	if (n->op == N_BOL || n->op == N_WB || n->op == N_NWB)
		return 1;
	for (int k = n->kid; k >= 0; k = ps->n[k].next)
		if (has_context(ps, k))
			return 1;
	return 0;
}

/* The class of a leading X* (min 0, no bound), or -1. */
static int
lead_star_set(const struct parser *ps, int id)
{
	const struct node *n = &ps->n[id];

	if (n->op == N_CAT)
		n = &ps->n[n->kid];
	if (n->op == N_REP && n->min == 0 && n->max == -1 && ps->n[n->kid].op == N_SET)
		return ps->n[n->kid].set;
	return -1;
}

/* The POSIX form of the expression at root, whole-anchored, into
 * re->posix; -1 out of memory. */
static int
posix_form(struct secret_re *re, const struct parser *ps, int root)
{
	struct out o = { 0 };

	out_add(&o, "^(", 2);
	o.ngroup = 1;
	emit_posix(&o, ps, root, re->posix_group);
	out_c(&o, ')');
	if (o.oom) {
		free(o.p);
		return -1;
	}
	re->posix = o.p;
	return 0;
}

/* What the expression at root begins with, for the scanner to skip
 * starts that cannot match: \b, ^, or a starred set without context. */
static void
lead_facts(struct secret_re *re, const struct parser *ps, int root)
{
	int ls = lead_star_set(ps, root);

	re->lead_b = leads_with(ps, root, N_WB);
	re->lead_caret = leads_with(ps, root, N_BOL);
	if (ls >= 0 && !has_context(ps, root)) {
		re->lead_star = 1;
		memcpy(re->lead_set, ps->sets[ls], 32);
	}
}

/* The backtracking program of the expression at root, group 0 around
 * it, into re->prog (left NULL when too large). */
static void
program(struct secret_re *re, const struct parser *ps, int root)
{
	struct prog pg = { 0 };

	inst(&pg, I_SAVE, 0, 0);
	emit_prog(&pg, ps, root);
	inst(&pg, I_SAVE, 1, 0);
	inst(&pg, I_MATCH, 0, 0);
	if (!pg.over) {
		re->prog = pg.i;
		re->ninst = pg.n;
		pg.i = NULL;
	}
	free(pg.i);
}

struct secret_re *
secret_re_compile(const char *pattern, char *why, size_t whylen)
{
	struct parser ps = { 0 };
	struct secret_re *re = NULL;
	int flags = 0, root;

	ps.s = ps.p = pattern;
	ps.end = pattern + strlen(pattern);
	ps.why = why;
	ps.whylen = whylen;
	why[0] = '\0';
	root = parse_alt(&ps, &flags);
	if (root >= 0 && ps.p < ps.end) {
		fail(&ps, ps.p, "unexpected )");
		root = -1;
	}
	if (root < 0) {
		if (ps.oom)
			snprintf(why, whylen, "out of memory or an expression too large");
		goto done;
	}
	if ((re = calloc(1, sizeof *re)) == NULL ||
	    (re->posix_group = calloc((size_t)ps.ncap + 1, sizeof *re->posix_group)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto done;
	}
	re->ngroups = ps.ncap;
	if (posix_form(re, &ps, root) < 0) {
		snprintf(why, whylen, "out of memory");
		goto done;
	}
	lead_facts(re, &ps, root);
	program(re, &ps, root);
	re->sets = ps.sets;
	re->nsets = ps.nsets;
	ps.sets = NULL;
	free(ps.n);
	return re;
done:
	secret_re_free(re);
	free(ps.n);
	free(ps.sets);
	return NULL;
}

void
secret_re_free(struct secret_re *re)
{
	if (re == NULL)
		return;
	free(re->posix);
	free(re->posix_group);
	free(re->prog);
	free(re->sets);
	free(re);
}

/* At most the memory regcomp may take for re's translation.  glibc builds
 * an epsilon closure for each node, so what it takes grows with the square
 * of the nodes (counted repetitions of what may match nothing, on which it
 * grows faster, are refused).  Measured: the built-in rules take at most
 * 3.3 bytes per instruction squared (the pypi rule's 1,973 instructions,
 * 12.7 MB); of 1,169 random expressions, the most 25.4 (911 instructions,
 * 21 MB), none over 740 KB when small.  The room is only looked for, not
 * kept: it costs addresses for a moment, not memory.  A program too large
 * to build (ninst 0) has more than MAX_INST instructions. */
static size_t
regcomp_need(const struct secret_re *re)
{
	double n = re->ninst > 0 ? re->ninst : MAX_INST;
	double need = 32.0 * n * n + 2048.0 * n + 2097152.0;

	return need < (double)(SIZE_MAX / 4) ? (size_t)need : SIZE_MAX / 4;
}

int
secret_regcomp(regex_t *rx, const struct secret_re *re, const char *posix, int flags)
{
	size_t need = regcomp_need(re);
	void *room = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	    -1, 0);

	if (room == MAP_FAILED)
		return REG_ESPACE;
	munmap(room, need);
	return regcomp(rx, posix, flags);
}

/* ------------------------------------------------------------ matcher */

struct secret_re_job {
	int pc;      /* -1: restore caps[slot] to val */
	int slot;
	long pos;    /* or the value to restore */
};

/* Visited bits at most: 4 MiB of them, a bit per instruction and byte. */
#define MAX_VISIT_WORDS ((size_t)1 << 16)

void
secret_re_work_release(struct secret_re_work *w)
{
	free(w->visit);
	free(w->stk);
	*w = (struct secret_re_work)SECRET_RE_WORK_INIT;
}

static int
grow_stack(struct secret_re_work *w)
{
	size_t nc = w->stk_cap ? 2 * w->stk_cap : 256;
	struct secret_re_job *nv = realloc(w->stk, nc * sizeof *nv);

	if (nv == NULL)
		return -1;
	w->stk = nv;
	w->stk_cap = nc;
	return 0;
}

static inline int
push(struct secret_re_work *w, size_t *sp, int pc, int slot, long pos)
{
	if (*sp == w->stk_cap && grow_stack(w) < 0)
		return -1;
	w->stk[(*sp)++] = (struct secret_re_job){ pc, slot, pos };
	return 0;
}

static int
isword(unsigned c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Run from (pc 0, start) over t[0..lim], n the bytes assertions may see;
 * visited bits are shared by the caller's calls.  1 matched (caps set when
 * caps is not NULL), 0 not, -1 out of memory.  One loop on purpose: the
 * scanner's innermost step, run per instruction and byte of every file. */
static int
bs_run(const struct secret_re *re, const unsigned char *t, size_t n, size_t lim, int noteol,
    size_t start, long *caps, struct secret_re_work *w)
{
	size_t sp = 0, width = lim + 1;

	if (push(w, &sp, 0, 0, (long)start) < 0)
		return -1;
	while (sp > 0) {
		struct secret_re_job j = w->stk[--sp];
		int pc = j.pc;
		size_t pos = (size_t)j.pos;

		if (pc < 0) {
			if (caps)
				caps[j.slot] = j.pos;
			continue;
		}
		for (;;) {
			size_t bit = (size_t)pc * width + pos;
			const struct secret_re_inst *in;
			if (w->visit[bit >> 6] >> (bit & 63) & 1)
				break;
			w->visit[bit >> 6] |= (uint64_t)1 << (bit & 63);
			in = &re->prog[pc];
			switch (in->op) {
			case I_SET:
				if (pos < lim && set_has(re->sets[in->x], t[pos])) {
					pc++;
					pos++;
					continue;
				}
				break;
			case I_SPLIT:
				if (push(w, &sp, in->y, 0, (long)pos) < 0)
					return -1;
				pc = in->x;
				continue;
			case I_JMP:
				pc = in->x;
				continue;
			case I_SAVE:
				if (caps) {
					if (push(w, &sp, -1, in->x, caps[in->x]) < 0)
						return -1;
					caps[in->x] = (long)pos;
				}
				pc++;
				continue;
			case I_BOL:
				if (pos == 0) {
					pc++;
					continue;
				}
				break;
			case I_EOL:
				if (pos == n && !noteol) {
					pc++;
					continue;
				}
				break;
			case I_WB:
			case I_NWB: {
				int a = pos > 0 && isword(t[pos - 1]), b = pos < n && isword(t[pos]);
				if ((a != b) == (in->op == I_WB)) {
					pc++;
					continue;
				}
				break;
			}
			case I_MATCH:
				return 1;
			}
			break;
		}
	}
	return 0;
}

static int
visit_reset(const struct secret_re *re, size_t lim, struct secret_re_work *w)
{
	size_t bits = (size_t)re->ninst * (lim + 1), words = (bits + 63) / 64;

	if (re->ninst == 0 || words > MAX_VISIT_WORDS)
		return -1;
	if (words > w->visit_cap) {
		uint64_t *nv = realloc(w->visit, words * sizeof *nv);
		if (nv == NULL)
			return -1;
		w->visit = nv;
		w->visit_cap = words;
	}
	memset(w->visit, 0, words * sizeof *w->visit);
	return 0;
}

int
secret_re_match_at(const struct secret_re *re, const unsigned char *t, size_t n, size_t lim, int noteol,
    long *caps, struct secret_re_work *w)
{
	if (visit_reset(re, lim, w) < 0)
		return -1;
	for (int k = 0; k < 2 * (re->ngroups + 1); k++)
		caps[k] = -1;
	return bs_run(re, t, n, lim, noteol, 0, caps, w);
}

int
secret_re_search(const struct secret_re *re, const unsigned char *t, size_t n, struct secret_re_work *w)
{
	if (visit_reset(re, n, w) < 0)
		return -1;
	for (size_t s = 0; s <= n; s++) {
		int r = bs_run(re, t, n, n, 0, s, NULL, w);
		if (r != 0)
			return r;
	}
	return 0;
}
