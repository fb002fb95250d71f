/* rules.c: the rules of the credential scan, read from gitleaks'
 * configuration format: a strict reader for the part of TOML that format
 * uses (docs/design.md lists it), the rules and allowlists built from it,
 * and the keyword index the scan's prefilter uses.  Every error names the
 * file, the line and the field. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/utf8.h"

/* The built-in rules: secret/rules.toml, made into a C array when
 * the program is built (secret/module.mk). */
extern const char secret_rules_builtin[];
extern const size_t secret_rules_builtin_len;

#define BUILTIN_NAME "secret/rules.toml (built in)"
#define MAX_RULES_FILE ((size_t)16 << 20)

/* ---------------------------------------------------------------- values */

enum tv_kind { TV_STRING, TV_INT, TV_FLOAT, TV_BOOL, TV_ARRAY };

struct tval {
	enum tv_kind kind;
	long line;
	char *s;           /* TV_STRING, NUL-terminated */
	double num;        /* TV_INT, TV_FLOAT */
	int b;             /* TV_BOOL */
	struct tval *item; /* TV_ARRAY */
	size_t nitem;
};

static void
tval_release(struct tval *v)
{
	free(v->s);
	for (size_t i = 0; i < v->nitem; i++)
		tval_release(&v->item[i]);
	free(v->item);
	memset(v, 0, sizeof *v);
}

/* ---------------------------------------------------------------- reader */

enum sec {
	SEC_ROOT,
	SEC_EXTEND,
	SEC_ALLOW,      /* [allowlist] or [[allowlists]] */
	SEC_RULE,       /* [[rules]] */
	SEC_RULE_ALLOW  /* [rules.allowlist] or [[rules.allowlists]] */
};

struct target_check {
	size_t allow;   /* global allowlist index */
	long line;
};

struct rd {
	const char *name;
	const char *s, *p, *end;
	long line;
	struct err *e;
	struct secret_rules *r;
	enum sec sec;
	long sec_line;        /* line of the current table's header */
	const char *sec_name; /* its name as written in messages */
	size_t rule;          /* current rule (SEC_RULE, SEC_RULE_ALLOW) */
	size_t allow;         /* current allowlist: of the rule, or global */
	int rule_legacy_allow;/* the current rule had [rules.allowlist] */
	char seen[24][32];    /* keys given in the current table */
	int nseen;
	int saw_extend, saw_legacy_allow, saw_allowlists;
	size_t first_rule;    /* the first rule this file adds */
	struct target_check *tc;
	size_t ntc;
};

static int
rd_err(struct rd *d, long line, const char *field, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (field)
		return err_set(d->e, ERR_INPUT, "%s:%ld: \"%s\": %s", d->name, line, field, msg);
	return err_set(d->e, ERR_INPUT, "%s:%ld: %s", d->name, line, msg);
}

static int
rd_oom(struct rd *d)
{
	return err_set(d->e, ERR_NOMEM, "out of memory");
}

static void
skip_ws(struct rd *d)
{
	while (d->p < d->end && (*d->p == ' ' || *d->p == '\t'))
		d->p++;
}

static void
skip_comment(struct rd *d)
{
	if (d->p < d->end && *d->p == '#')
		while (d->p < d->end && *d->p != '\n')
			d->p++;
}

/* White space, comments and newlines (inside an array, between lines). */
static void
skip_all(struct rd *d)
{
	for (;;) {
		skip_ws(d);
		skip_comment(d);
		if (d->p < d->end && *d->p == '\n') {
			d->p++;
			d->line++;
		} else if (d->p + 1 < d->end && d->p[0] == '\r' && d->p[1] == '\n') {
			d->p += 2;
			d->line++;
		} else {
			return;
		}
	}
}

/* The rest of the line must be empty (or a comment). */
static int
end_of_line(struct rd *d, const char *field)
{
	skip_ws(d);
	skip_comment(d);
	if (d->p >= d->end)
		return 0;
	if (*d->p == '\r' && d->p + 1 < d->end && d->p[1] == '\n')
		d->p++;
	if (*d->p != '\n')
		return rd_err(d, d->line, field, "expected the end of the line, found '%c'", *d->p);
	d->p++;
	d->line++;
	return 0;
}

static int
is_bare(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c == '-';
}

static int
put_utf8(struct buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
	}
	return buf_add(b, u, n);
}

/* One escape of a basic string (after the backslash). */
static int
basic_escape(struct rd *d, struct buf *b, const char *field)
{
	char c;
	int nhex;
	unsigned long cp = 0;

	if (d->p >= d->end)
		return rd_err(d, d->line, field, "unterminated string");
	c = *d->p++;
	switch (c) {
	case 'b': return buf_addc(b, '\b');
	case 't': return buf_addc(b, '\t');
	case 'n': return buf_addc(b, '\n');
	case 'f': return buf_addc(b, '\f');
	case 'r': return buf_addc(b, '\r');
	case 'e': return buf_addc(b, 27);
	case '"': return buf_addc(b, '"');
	case '\\': return buf_addc(b, '\\');
	case 'u': nhex = 4; break;
	case 'U': nhex = 8; break;
	default:
		return rd_err(d, d->line, field,
		    "\\%c is not an escape of a basic string (write regular expressions in '''...''')",
		    c);
	}
	for (int i = 0; i < nhex; i++) {
		char h = d->p < d->end ? *d->p : 0;
		int v = (h >= '0' && h <= '9') ? h - '0' : ((h | 0x20) >= 'a' && (h | 0x20) <= 'f') ? (h | 0x20) - 'a' + 10 : -1;
		if (v < 0)
			return rd_err(d, d->line, field, "\\%c needs %d hex digits", c, nhex);
		cp = cp * 16 + (unsigned long)v;
		d->p++;
	}
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return rd_err(d, d->line, field, "\\%c%0*lX is not a character that can be used", c,
		    nhex, cp);
	return put_utf8(b, cp);
}

/* At a quote character like the one that opened a string (multi: of
 * three): 1 when it closes the string, d->p past it and up to two more
 * quotes kept in b; 0 when it is part of the string; -1 out of memory. */
static int
string_closes(struct rd *d, char q, int multi, struct buf *b)
{
	if (!multi) {
		d->p++;
		return 1;
	}
	if (d->end - d->p >= 3 && d->p[1] == q && d->p[2] == q) {
		/* up to two more quotes belong to the string */
		int extra = 0;
		while (extra < 2 && d->end - d->p >= 4 + extra && d->p[3 + extra] == q)
			extra++;
		if (extra && buf_add(b, d->p, (size_t)extra) < 0)
			return -1;
		d->p += 3 + extra;
		return 1;
	}
	return 0;
}

/* After a backslash in a basic string (d->p just past it): a
 * line-ending backslash and the white space after it dropped, or one
 * escape into b. */
static int
string_escape(struct rd *d, struct buf *b, const char *field, int multi)
{
	if (multi && d->p < d->end &&
	    (*d->p == '\n' || *d->p == ' ' || *d->p == '\t' || *d->p == '\r')) {
		/* line-ending backslash: drop the white space after it */
		const char *t = d->p;
		while (t < d->end && (*t == ' ' || *t == '\t'))
			t++;
		if (t < d->end && (*t == '\n' || *t == '\r')) {
			while (d->p < d->end && (*d->p == ' ' || *d->p == '\t' ||
			                            *d->p == '\n' || *d->p == '\r'))
				d->line += *d->p++ == '\n';
			return 0;
		}
	}
	return basic_escape(d, b, field);
}

/* A string of any of the four kinds at d->p; *out is allocated. */
static int
read_string(struct rd *d, char **out, const char *field)
{
	struct buf b = BUF_INIT;
	char q = *d->p;
	int multi = d->end - d->p >= 3 && d->p[1] == q && d->p[2] == q;
	long start_line = d->line;

	d->p += multi ? 3 : 1;
	if (multi) {
		/* a newline right after the opening quotes is not part of it */
		if (d->p < d->end && *d->p == '\n')
			d->p++, d->line++;
		else if (d->end - d->p >= 2 && d->p[0] == '\r' && d->p[1] == '\n')
			d->p += 2, d->line++;
	}
	for (;;) {
		unsigned char c;
		if (d->p >= d->end) {
			buf_release(&b);
			return rd_err(d, start_line, field, "unterminated string");
		}
		c = (unsigned char)*d->p;
		if (c == (unsigned char)q) {
			int r = string_closes(d, q, multi, &b);
			if (r < 0)
				goto oom;
			if (r)
				break;
		}
		if (c == '\n') {
			if (!multi) {
				buf_release(&b);
				return rd_err(d, start_line, field, "a newline in a one-line string");
			}
			d->line++;
		} else if ((c < 0x20 && c != '\t' && !(c == '\r' && multi)) || c == 0x7F) {
			buf_release(&b);
			return rd_err(d, d->line, field, "a control character in a string");
		}
		if (q == '"' && c == '\\') {
			d->p++;
			if (string_escape(d, &b, field, multi) < 0) {
				buf_release(&b);
				return -1;
			}
			continue;
		}
		if (buf_addc(&b, (char)c) < 0)
			goto oom;
		d->p++;
	}
	if (b.p == NULL) {
		if (buf_grow(&b, 1) < 0)
			goto oom;
		b.p[0] = '\0';
	}
	if (!utf8_valid((const unsigned char *)b.p, b.len)) {
		buf_release(&b);
		return rd_err(d, start_line, field, "not valid UTF-8");
	}
	*out = b.p;
	return 0;
oom:
	buf_release(&b);
	return rd_oom(d);
}

static int read_value(struct rd *d, struct tval *v, const char *field, int depth);

static int
read_number(struct rd *d, struct tval *v, const char *field)
{
	char num[64];
	size_t n = 0;
	const char *p = d->p;
	int isfloat = 0, digits = 0;
	char *endp;

	if (p < d->end && (*p == '+' || *p == '-'))
		num[n++] = *p++;
	if (p < d->end && *p == '0' && p + 1 < d->end && p[1] >= '0' && p[1] <= '9')
		return rd_err(d, d->line, field, "a number with a leading zero");
	while (p < d->end && n < sizeof num - 1) {
		char c = *p;
		if (c >= '0' && c <= '9') {
			digits++;
		} else if (c == '_') {
			if (!(p > d->p && p[-1] >= '0' && p[-1] <= '9' && p + 1 < d->end && p[1] >= '0' &&
			        p[1] <= '9'))
				return rd_err(d, d->line, field, "a misplaced _ in a number");
			p++;
			continue;
		} else if (c == '.' || c == 'e' || c == 'E' ||
		           ((c == '+' || c == '-') && (p[-1] == 'e' || p[-1] == 'E'))) {
			isfloat = 1;
		} else {
			break;
		}
		num[n++] = c;
		p++;
	}
	num[n] = '\0';
	if (digits == 0)
		return rd_err(d, d->line, field, "expected a value");
	errno = 0;
	v->num = strtod(num, &endp);
	if (*endp != '\0' || errno != 0 || !isfinite(v->num) || num[n - 1] == '.')
		return rd_err(d, d->line, field, "a malformed number");
	v->kind = isfloat ? TV_FLOAT : TV_INT;
	v->line = d->line;
	d->p = p;
	return 0;
}

static int
read_array(struct rd *d, struct tval *v, const char *field, int depth)
{
	size_t cap = 0;
	long start = d->line;

	d->p++; /* [ */
	v->kind = TV_ARRAY;
	v->line = start;
	for (;;) {
		skip_all(d);
		if (d->p >= d->end) {
			return rd_err(d, start, field, "missing ] of an array");
		}
		if (*d->p == ']') {
			d->p++;
			return 0;
		}
		if (v->nitem == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct tval *nv = realloc(v->item, nc * sizeof *nv);
			if (nv == NULL)
				return rd_oom(d);
			v->item = nv;
			cap = nc;
		}
		memset(&v->item[v->nitem], 0, sizeof v->item[0]);
		if (read_value(d, &v->item[v->nitem], field, depth + 1) < 0) {
			tval_release(&v->item[v->nitem]);
			return -1;
		}
		v->nitem++;
		skip_all(d);
		if (d->p >= d->end)
			return rd_err(d, start, field, "missing ] of an array");
		if (*d->p == ',') {
			d->p++;
			continue;
		}
		skip_all(d);
		if (d->p < d->end && *d->p == ']') {
			d->p++;
			return 0;
		}
		return rd_err(d, d->line, field, "expected , or ] in an array");
	}
}

static int
read_value(struct rd *d, struct tval *v, const char *field, int depth)
{
	if (d->p >= d->end || *d->p == '\n' || *d->p == '\r' || *d->p == '#')
		return rd_err(d, d->line, field, "expected a value");
	if (depth > 8)
		return rd_err(d, d->line, field, "arrays nested too deep");
	v->line = d->line;
	if (*d->p == '"' || *d->p == '\'') {
		v->kind = TV_STRING;
		return read_string(d, &v->s, field);
	}
	if (*d->p == '[')
		return read_array(d, v, field, depth);
	if (*d->p == '{')
		return rd_err(d, d->line, field, "inline tables are not supported");
	if (d->end - d->p >= 4 && memcmp(d->p, "true", 4) == 0 && !(d->end - d->p > 4 && is_bare(d->p[4]))) {
		v->kind = TV_BOOL, v->b = 1, d->p += 4;
		return 0;
	}
	if (d->end - d->p >= 5 && memcmp(d->p, "false", 5) == 0 && !(d->end - d->p > 5 && is_bare(d->p[5]))) {
		v->kind = TV_BOOL, v->b = 0, d->p += 5;
		return 0;
	}
	return read_number(d, v, field);
}

/* ---------------------------------------------------------------- rules */

static int
grow(void **arr, size_t n, size_t size)
{
	/* capacity: the next power of two, so every append may call this */
	if (n & (n - 1))
		return 0;
	void *nv = realloc(*arr, (n ? 2 * n : 1) * size);
	if (nv == NULL)
		return -1;
	*arr = nv;
	return 0;
}

static void
allowlist_release(struct allowlist *a)
{
	for (size_t i = 0; i < a->nregexes; i++)
		secret_re_free(a->regexes[i]);
	free(a->regexes);
	for (size_t i = 0; i < a->nstopwords; i++)
		free(a->stopwords[i]);
	free(a->stopwords);
	for (size_t i = 0; i < a->npaths; i++)
		secret_re_free(a->paths[i]);
	free(a->paths);
	for (size_t i = 0; i < a->ntarget_rules; i++)
		free(a->target_rules[i]);
	free(a->target_rules);
}

static void
rule_release(struct rule *r)
{
	free(r->id);
	free(r->description);
	secret_re_free(r->re);
	secret_re_free(r->path);
	for (size_t i = 0; i < r->nkeywords; i++)
		free(r->keywords[i]);
	free(r->keywords);
	for (size_t i = 0; i < r->ntags; i++)
		free(r->tags[i]);
	free(r->tags);
	for (size_t i = 0; i < r->nallow; i++)
		allowlist_release(&r->allow[i]);
	free(r->allow);
}

void
secret_rules_free(struct secret_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nrules; i++)
		rule_release(&r->rule[i]);
	free(r->rule);
	for (size_t i = 0; i < r->nallow; i++)
		allowlist_release(&r->allow[i]);
	free(r->allow);
	for (size_t i = 0; i < r->nkw; i++) {
		free(r->kw[i].word);
		free(r->kw[i].rules);
	}
	free(r->kw);
	free(r->chain);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; r->gate[k] && i < r->nrules; i++)
			if (r->gate[k][i].state == 1)
				regfree(&r->gate[k][i].re);
		for (size_t i = 0; r->agate[k] && i < r->nsre; i++)
			if (r->agate[k][i].state == 1)
				regfree(&r->agate[k][i].re);
		free(r->gate[k]);
		free(r->agate[k]);
	}
	if (r->lock) {
		pthread_mutex_destroy(r->lock);
		free(r->lock);
	}
	free(r);
}

size_t
secret_rules_count(const struct secret_rules *r)
{
	return r->nrules;
}

const char *
secret_rules_id(const struct secret_rules *r, size_t i)
{
	return i < r->nrules ? r->rule[i].id : NULL;
}

static struct allowlist *
cur_allow(struct rd *d)
{
	return d->sec == SEC_ALLOW ? &d->r->allow[d->allow] : &d->r->rule[d->rule].allow[d->allow];
}

static int
want(struct rd *d, const struct tval *v, enum tv_kind k, const char *field)
{
	static const char *names[] = { "a string", "an integer", "a number", "true or false",
		"an array" };
	if (v->kind == k || (k == TV_FLOAT && v->kind == TV_INT))
		return 0;
	return rd_err(d, v->line, field, "expected %s", names[k]);
}

static struct secret_re *
compile(struct rd *d, const char *pattern, long line, const char *field)
{
	char why[256];
	struct secret_re *re = secret_re_compile(pattern, why, sizeof why);
	regex_t rx;
	int rc;

	if (re == NULL) {
		rd_err(d, line, field, "%s", why);
		return NULL;
	}
	/* what regcomp refuses is refused here, with the line */
	if ((rc = secret_regcomp(&rx, re, re->posix, REG_EXTENDED | REG_NOSUB)) != 0) {
		if (rc == REG_ESPACE)
			err_set(d->e, ERR_NOMEM, "%s:%ld: \"%s\": out of memory compiling the expression",
			    d->name, line, field);
		else {
			regerror(rc, &rx, why, sizeof why);
			rd_err(d, line, field, "the translated expression is refused by regcomp: %s", why);
		}
		secret_re_free(re);
		return NULL;
	}
	regfree(&rx);
	re->id = d->r->nsre++;
	return re;
}

/* An array of strings, into a new vector of copies (lower-cased when lower). */
static int
take_strings(struct rd *d, struct tval *v, const char *field, int lower, char ***out, size_t *n)
{
	if (want(d, v, TV_ARRAY, field) < 0)
		return -1;
	for (size_t i = 0; i < v->nitem; i++)
		if (want(d, &v->item[i], TV_STRING, field) < 0)
			return -1;
	if (v->nitem && (*out = calloc(v->nitem, sizeof **out)) == NULL)
		return rd_oom(d);
	for (size_t i = 0; i < v->nitem; i++) {
		char *s = v->item[i].s;
		v->item[i].s = NULL;
		if (lower)
			for (char *c = s; *c; c++)
				if (*c >= 'A' && *c <= 'Z')
					*c = (char)(*c + 32);
		(*out)[(*n)++] = s;
	}
	return 0;
}

static int
take_regexes(struct rd *d, struct tval *v, const char *field, struct secret_re ***out, size_t *n)
{
	if (want(d, v, TV_ARRAY, field) < 0)
		return -1;
	if (v->nitem && (*out = calloc(v->nitem, sizeof **out)) == NULL)
		return rd_oom(d);
	for (size_t i = 0; i < v->nitem; i++) {
		if (want(d, &v->item[i], TV_STRING, field) < 0 ||
		    ((*out)[*n] = compile(d, v->item[i].s, v->item[i].line, field)) == NULL)
			return -1;
		(*n)++;
	}
	return 0;
}

static int
set_allow_field(struct rd *d, const char *key, struct tval *v)
{
	struct allowlist *a = cur_allow(d);

	if (strcmp(key, "description") == 0)
		return want(d, v, TV_STRING, key);
	if (strcmp(key, "condition") == 0) {
		if (want(d, v, TV_STRING, key) < 0)
			return -1;
		if (strcasecmp(v->s, "and") == 0)
			a->and = 1;
		else if (strcasecmp(v->s, "or") != 0)
			return rd_err(d, v->line, key, "expected OR or AND");
		return 0;
	}
	if (strcmp(key, "regexTarget") == 0) {
		if (want(d, v, TV_STRING, key) < 0)
			return -1;
		if (strcmp(v->s, "secret") == 0)
			a->target = AL_SECRET;
		else if (strcmp(v->s, "match") == 0)
			a->target = AL_MATCH;
		else if (strcmp(v->s, "line") == 0)
			a->target = AL_LINE;
		else
			return rd_err(d, v->line, key, "expected secret, match or line");
		return 0;
	}
	if (strcmp(key, "regexes") == 0)
		return take_regexes(d, v, key, &a->regexes, &a->nregexes);
	if (strcmp(key, "paths") == 0)
		return take_regexes(d, v, key, &a->paths, &a->npaths);
	if (strcmp(key, "stopwords") == 0) {
		if (take_strings(d, v, key, 1, &a->stopwords, &a->nstopwords) < 0)
			return -1;
		for (size_t i = 0; i < a->nstopwords; i++)
			if (a->stopwords[i][0] == '\0')
				return rd_err(d, v->line, key, "an empty stop word");
		return 0;
	}
	if (strcmp(key, "targetRules") == 0) {
		if (d->sec != SEC_ALLOW)
			return rd_err(d, v->line, key, "only a global allowlist names its rules");
		if (take_strings(d, v, key, 0, &a->target_rules, &a->ntarget_rules) < 0)
			return -1;
		if (grow((void **)&d->tc, d->ntc, sizeof *d->tc) < 0)
			return rd_oom(d);
		d->tc[d->ntc++] = (struct target_check){ d->allow, v->line };
		return 0;
	}
	if (strcmp(key, "commits") == 0)
		return rd_err(d, v->line, key, "cohort scans files, not commits: not supported");
	return rd_err(d, v->line, key, "unknown field of an allowlist");
}

static int
valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return 0;
	for (; *s; s++)
		if (!(is_bare(*s) || *s == '.'))
			return 0;
	return 1;
}

/* A rule's "id": valid, and not one an earlier rule has. */
static int
set_rule_id(struct rd *d, struct rule *r, const char *key, struct tval *v)
{
	if (want(d, v, TV_STRING, key) < 0)
		return -1;
	if (!valid_id(v->s))
		return rd_err(d, v->line, key,
		    "expected 1 to 64 letters, digits and . _ - (not \"%.64s\")", v->s);
	for (size_t i = 0; i < d->r->nrules; i++)
		if (i != d->rule && d->r->rule[i].id && strcmp(d->r->rule[i].id, v->s) == 0)
			return rd_err(d, v->line, key, "rule \"%s\" is already defined (%s:%ld)",
			    v->s, d->r->rule[i].origin, d->r->rule[i].line);
	r->id = v->s;
	v->s = NULL;
	return 0;
}

/* A rule's "tags": the ones that choose how a hit is reported, or that
 * skip base64 text, taken note of. */
static int
set_rule_tags(struct rd *d, struct rule *r, const char *key, struct tval *v)
{
	if (take_strings(d, v, key, 0, &r->tags, &r->ntags) < 0)
		return -1;
	for (size_t i = 0; i < r->ntags; i++) {
		const char *t = r->tags[i];
		if (strcmp(t, "private-key") == 0)
			r->action = ACTION_PRIVATE;
		else if (strcmp(t, "authorization") == 0)
			r->action = ACTION_AUTH;
		else if (strcmp(t, "url") == 0 || strcmp(t, "webhook") == 0)
			r->action = ACTION_URL;
		else if (strcmp(t, "assignment") == 0)
			r->action = ACTION_ASSIGN;
		else if (strcmp(t, "skip-base64-text") == 0)
			r->skip_base64_text = 1;
	}
	return 0;
}

static int
set_rule_field(struct rd *d, const char *key, struct tval *v)
{
	struct rule *r = &d->r->rule[d->rule];

	if (strcmp(key, "id") == 0)
		return set_rule_id(d, r, key, v);
	if (strcmp(key, "description") == 0) {
		if (want(d, v, TV_STRING, key) < 0)
			return -1;
		r->description = v->s;
		v->s = NULL;
		return 0;
	}
	if (strcmp(key, "regex") == 0) {
		if (want(d, v, TV_STRING, key) < 0)
			return -1;
		return (r->re = compile(d, v->s, v->line, key)) ? 0 : -1;
	}
	if (strcmp(key, "path") == 0) {
		if (want(d, v, TV_STRING, key) < 0)
			return -1;
		return (r->path = compile(d, v->s, v->line, key)) ? 0 : -1;
	}
	if (strcmp(key, "secretGroup") == 0) {
		if (want(d, v, TV_INT, key) < 0)
			return -1;
		if (v->num < 0 || v->num > 1000)
			return rd_err(d, v->line, key, "expected 0 to 1000");
		r->secret_group = (int)v->num;
		return 0;
	}
	if (strcmp(key, "entropy") == 0) {
		if (want(d, v, TV_FLOAT, key) < 0)
			return -1;
		if (v->num < 0 || v->num > 8)
			return rd_err(d, v->line, key, "expected a number from 0 to 8 (bits a byte)");
		r->entropy = v->num;
		return 0;
	}
	if (strcmp(key, "keywords") == 0) {
		if (take_strings(d, v, key, 1, &r->keywords, &r->nkeywords) < 0)
			return -1;
		for (size_t i = 0; i < r->nkeywords; i++)
			if (r->keywords[i][0] == '\0' || strlen(r->keywords[i]) > 64)
				return rd_err(d, v->line, key, "a keyword of 1 to 64 bytes");
		return 0;
	}
	if (strcmp(key, "tags") == 0)
		return set_rule_tags(d, r, key, v);
	if (strcmp(key, "skipReport") == 0 || strcmp(key, "required") == 0)
		return rd_err(d, v->line, key, "multi-part rules are not supported");
	if (strcmp(key, "allowlist") == 0 || strcmp(key, "allowlists") == 0)
		return rd_err(d, v->line, key, "write it as a [[rules.allowlists]] table");
	return rd_err(d, v->line, key, "unknown field of a rule");
}

static int
set_field(struct rd *d, const char *key, struct tval *v)
{
	switch (d->sec) {
	case SEC_ROOT:
		if (strcmp(key, "title") == 0)
			return want(d, v, TV_STRING, key);
		return rd_err(d, v->line, key, "unknown field (fields belong in a [[rules]] table)");
	case SEC_EXTEND:
		if (strcmp(key, "useDefault") == 0) {
			if (want(d, v, TV_BOOL, key) < 0)
				return -1;
			if (!v->b)
				return rd_err(d, v->line, key,
				    "the built-in rules always apply; the file's rules are added to them");
			return 0;
		}
		if (strcmp(key, "path") == 0 || strcmp(key, "url") == 0)
			return rd_err(d, v->line, key, "extending another file is not supported");
		if (strcmp(key, "disabledRules") == 0)
			return rd_err(d, v->line, key,
			    "built-in rules cannot be disabled (an [[allowlists]] with targetRules can "
			    "quiet one)");
		return rd_err(d, v->line, key, "unknown field of [extend]");
	case SEC_ALLOW:
	case SEC_RULE_ALLOW:
		return set_allow_field(d, key, v);
	case SEC_RULE:
		return set_rule_field(d, key, v);
	}
	return -1;
}

/* The table that just ended is complete. */
static int
close_table(struct rd *d)
{
	if (d->sec == SEC_ALLOW || d->sec == SEC_RULE_ALLOW) {
		struct allowlist *a = cur_allow(d);
		if (a->nregexes == 0 && a->nstopwords == 0 && a->npaths == 0)
			return rd_err(d, d->sec_line, NULL,
			    "%s: an allowlist needs regexes, stopwords or paths", d->sec_name);
	}
	if (d->sec == SEC_RULE) {
		struct rule *r = &d->r->rule[d->rule];
		if (r->id == NULL)
			return rd_err(d, d->sec_line, "id", "missing in this [[rules]] table");
		if (r->re == NULL)
			return rd_err(d, d->sec_line, "regex", "missing in rule \"%s\"%s", r->id,
			    r->path ? " (rules that match only paths are not supported)" : "");
		if (r->nkeywords == 0)
			return rd_err(d, d->sec_line, "keywords",
			    "missing in rule \"%s\": a rule is tried only where a keyword occurs",
			    r->id);
		if (r->secret_group > r->re->ngroups)
			return rd_err(d, d->sec_line, "secretGroup",
			    "rule \"%s\": %d, but its regex has %d group%s", r->id, r->secret_group,
			    r->re->ngroups, r->re->ngroups == 1 ? "" : "s");
	}
	return 0;
}

static int
add_allow(struct rd *d, struct allowlist **arr, size_t *n)
{
	if (grow((void **)arr, *n, sizeof **arr) < 0)
		return rd_oom(d);
	memset(&(*arr)[*n], 0, sizeof **arr);
	d->allow = (*n)++;
	return 0;
}

/* [name] or [[name]] at d->p. */
static int
read_header(struct rd *d)
{
	char name[64];
	size_t n = 0;
	int arr = d->end - d->p >= 2 && d->p[1] == '[';
	long line = d->line;

	d->p += arr ? 2 : 1;
	for (;;) {
		skip_ws(d);
		/* a name too long for name stops here, unended: malformed */
		while (d->p < d->end && is_bare(*d->p) && n < sizeof name - 1)
			name[n++] = *d->p++;
		skip_ws(d);
		if (d->p < d->end && *d->p == '.' && n < sizeof name - 1) {
			name[n++] = '.';
			d->p++;
			continue;
		}
		break;
	}
	name[n] = '\0';
	if (d->p >= d->end || *d->p != ']' || (arr && (d->end - d->p < 2 || d->p[1] != ']')) || n == 0)
		return rd_err(d, line, NULL, "a malformed table header");
	d->p += arr ? 2 : 1;
	if (close_table(d) < 0)
		return -1;
	d->nseen = 0;
	d->sec_line = line;
	if (!arr && strcmp(name, "extend") == 0) {
		if (d->saw_extend++)
			return rd_err(d, line, NULL, "[extend] given twice");
		d->sec = SEC_EXTEND;
		d->sec_name = "[extend]";
	} else if ((!arr && strcmp(name, "allowlist") == 0) || (arr && strcmp(name, "allowlists") == 0)) {
		if (!arr && d->saw_legacy_allow++)
			return rd_err(d, line, NULL, "[allowlist] given twice (use [[allowlists]])");
		d->sec = SEC_ALLOW;
		d->sec_name = arr ? "[[allowlists]]" : "[allowlist]";
		if (add_allow(d, &d->r->allow, &d->r->nallow) < 0)
			return -1;
	} else if (arr && strcmp(name, "rules") == 0) {
		struct rule *r;
		if (grow((void **)&d->r->rule, d->r->nrules, sizeof *d->r->rule) < 0)
			return rd_oom(d);
		r = &d->r->rule[d->r->nrules];
		memset(r, 0, sizeof *r);
		r->origin = d->name;
		r->line = line;
		d->rule = d->r->nrules++;
		d->rule_legacy_allow = 0;
		d->sec = SEC_RULE;
		d->sec_name = "[[rules]]";
	} else if ((!arr && strcmp(name, "rules.allowlist") == 0) ||
	           (arr && strcmp(name, "rules.allowlists") == 0)) {
		struct rule *r;
		if (d->r->nrules == d->first_rule)
			return rd_err(d, line, NULL, "%s before any [[rules]]", arr ? "[[rules.allowlists]]" : "[rules.allowlist]");
		if (!arr && d->rule_legacy_allow++)
			return rd_err(d, line, NULL, "[rules.allowlist] given twice for one rule");
		r = &d->r->rule[d->rule];
		d->sec = SEC_RULE_ALLOW;
		d->sec_name = arr ? "[[rules.allowlists]]" : "[rules.allowlist]";
		if (add_allow(d, &r->allow, &r->nallow) < 0)
			return -1;
	} else if (strcmp(name, "rules.required") == 0) {
		return rd_err(d, line, NULL, "[[rules.required]]: multi-part rules are not supported");
	} else {
		return rd_err(d, line, NULL, "%s%s%s: unknown table", arr ? "[[" : "[", name, arr ? "]]" : "]");
	}
	return end_of_line(d, NULL);
}

/* key = value at d->p. */
static int
read_pair(struct rd *d)
{
	char key[32];
	size_t n = 0;
	long line = d->line;
	struct tval v = { 0 };
	int r;

	if (*d->p == '"' || *d->p == '\'') {
		char *k;
		if (read_string(d, &k, "key") < 0)
			return -1;
		n = strlen(k);
		if (n >= sizeof key) {
			free(k);
			return rd_err(d, line, NULL, "unknown field");
		}
		memcpy(key, k, n + 1);
		free(k);
	} else {
		while (d->p < d->end && is_bare(*d->p)) {
			if (n == sizeof key - 1)
				return rd_err(d, line, NULL, "unknown field %.20s...", d->p - n);
			key[n++] = *d->p++;
		}
		key[n] = '\0';
		if (n == 0)
			return rd_err(d, line, NULL, "expected a field name, found '%c'", *d->p);
	}
	skip_ws(d);
	if (d->p < d->end && *d->p == '.')
		return rd_err(d, line, key, "dotted keys are not supported");
	if (d->p >= d->end || *d->p != '=')
		return rd_err(d, line, key, "expected =");
	d->p++;
	skip_ws(d);
	for (int i = 0; i < d->nseen; i++)
		if (strcmp(d->seen[i], key) == 0)
			return rd_err(d, line, key, "given twice in %s", d->sec == SEC_ROOT ? "the file" : d->sec_name);
	if (d->nseen < (int)(sizeof d->seen / sizeof d->seen[0]))
		memcpy(d->seen[d->nseen++], key, n + 1);
	if (read_value(d, &v, key, 0) < 0) {
		tval_release(&v);
		return -1;
	}
	r = set_field(d, key, &v);
	tval_release(&v);
	return r < 0 ? -1 : end_of_line(d, key);
}

static int
check_targets(struct rd *d)
{
	for (size_t k = 0; k < d->ntc; k++) {
		const struct allowlist *a = &d->r->allow[d->tc[k].allow];
		for (size_t i = 0; i < a->ntarget_rules; i++) {
			size_t j;
			for (j = 0; j < d->r->nrules; j++)
				if (strcmp(d->r->rule[j].id, a->target_rules[i]) == 0)
					break;
			if (j == d->r->nrules)
				return rd_err(d, d->tc[k].line, "targetRules", "no rule \"%s\"",
				    a->target_rules[i]);
		}
	}
	return 0;
}

static int
read_into(struct secret_rules *r, const char *name, const char *text, size_t n, struct err *e)
{
	struct rd d = { 0 };
	int rc = -1;

	d.name = name;
	d.s = d.p = text;
	d.end = text + n;
	d.line = 1;
	d.e = e;
	d.r = r;
	d.sec = SEC_ROOT;
	d.sec_name = "the file";
	d.first_rule = r->nrules;
	if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		d.p += 3;
	if (memchr(text, '\0', n) != NULL) {
		rd_err(&d, 1, NULL, "a NUL byte: not a text file");
		goto out;
	}
	for (;;) {
		skip_all(&d);
		if (d.p >= d.end)
			break;
		if (*d.p == '[') {
			if (read_header(&d) < 0)
				goto out;
		} else if (read_pair(&d) < 0) {
			goto out;
		}
	}
	if (close_table(&d) < 0 || check_targets(&d) < 0)
		goto out;
	if (r->nrules == d.first_rule && d.first_rule > 0) {
		/* a file of allowlists only is fine; say nothing */
	}
	rc = 0;
out:
	free(d.tc);
	return rc;
}

struct secret_rules *
secret_rules_read(const char *name, const char *text, size_t n, struct err *e)
{
	struct secret_rules *r = calloc(1, sizeof *r);

	if (r == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (read_into(r, name, text, n, e) < 0 || secret_rules_index(r) < 0) {
		if (e && e->code == ERR_OK)
			err_set(e, ERR_NOMEM, "out of memory");
		secret_rules_free(r);
		return NULL;
	}
	return r;
}

struct secret_rules *
secret_rules_new(const char *path, struct err *e)
{
	struct secret_rules *r = calloc(1, sizeof *r);
	struct buf b = BUF_INIT;

	if (r == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (read_into(r, BUILTIN_NAME, secret_rules_builtin, secret_rules_builtin_len, e) < 0)
		goto fail;
	if (path) {
		if (io_read_all(path, &b, MAX_RULES_FILE, e) < 0) {
			err_prefix(e, "--rules");
			goto fail;
		}
		if (read_into(r, path, b.p ? b.p : "", b.len, e) < 0)
			goto fail;
	}
	if (secret_rules_index(r) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	buf_release(&b);
	return r;
fail:
	buf_release(&b);
	secret_rules_free(r);
	return NULL;
}

/* ---------------------------------------------------------------- index */

/* One entry per distinct keyword, naming its rules in order. */
static int
keywords_index(struct secret_rules *r)
{
	for (size_t i = 0; i < r->nrules; i++) {
		for (size_t k = 0; k < r->rule[i].nkeywords; k++) {
			const char *w = r->rule[i].keywords[k];
			size_t j;
			for (j = 0; j < r->nkw; j++)
				if (strcmp(r->kw[j].word, w) == 0)
					break;
			if (j == r->nkw) {
				if (grow((void **)&r->kw, r->nkw, sizeof *r->kw) < 0)
					return -1;
				memset(&r->kw[j], 0, sizeof r->kw[j]);
				if ((r->kw[j].word = strdup(w)) == NULL)
					return -1;
				r->kw[j].len = strlen(w);
				r->nkw++;
			}
			struct keyword *kw = &r->kw[j];
			if (kw->nrules && kw->rules[kw->nrules - 1] == i)
				continue;
			if (grow((void **)&kw->rules, kw->nrules, sizeof *kw->rules) < 0)
				return -1;
			kw->rules[kw->nrules++] = i;
		}
	}
	return 0;
}

/* Keyword j into the prefilters: its first two bytes' pairs, its short or
 * three-byte hash, and its chain by first byte or pair. */
static void
keyword_filters(struct secret_rules *r, size_t j)
{
	const unsigned char *lc = secret_lower;
	const unsigned char *w = (const unsigned char *)r->kw[j].word;
	unsigned a = lc[w[0]], b = r->kw[j].len > 1 ? lc[w[1]] : 0;

	/* every byte pair that lower-cases to the keyword's first two */
	for (unsigned x = 0; x < 256; x++) {
		if (lc[x] != a)
			continue;
		for (unsigned y = 0; y < 256; y++) {
			if (r->kw[j].len > 1 && lc[y] != b)
				continue;
			unsigned v = x | y << 8;
			r->raw2[v >> 6] |= (uint64_t)1 << (v & 63);
		}
	}
	if (r->kw[j].len <= 2) {
		for (unsigned y = 0; y < 256; y++) {
			unsigned k = a << 8 | y;
			if (r->kw[j].len == 1 || lc[y] == b)
				r->short2[k >> 6] |= (uint64_t)1 << (k & 63);
		}
	} else {
		unsigned h = SECRET_THREE_HASH(a, b, lc[w[2]]) & 65535u;
		r->three[h >> 6] |= (uint64_t)1 << (h & 63);
	}
	if (r->kw[j].len == 1) {
		r->chain[j] = r->single[a];
		r->single[a] = (uint32_t)j + 1;
	} else {
		unsigned k = a << 8 | b, h = SECRET_PAIR_HASH(k);
		r->chain[j] = r->bucket[h];
		r->bucket[h] = (uint32_t)j + 1;
	}
}

/* How often byte x comes in JSON evidence, roughly (English letters in
 * their usual shares, digits, quotes and punctuation), out of 1000: only
 * to choose the nibble masks' buckets, never to decide a finding. */
static unsigned
byte_weight(unsigned x)
{
	static const unsigned char letter[26] = { 82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40,
		24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1 };

	if (x >= 'a' && x <= 'z')
		return letter[x - 'a'] * 6u / 10u;
	if (x >= 'A' && x <= 'Z')
		return letter[x - 'A'] / 10u + 1u;
	if (x >= '0' && x <= '9')
		return 15;
	return x == '"' ? 60 : x == ':' || x == ',' || x == ' ' ? 30 : x < 128 ? 2 : 1;
}

/* The bytes keyword j may have at byte k (every byte past its end), as
 * low and high nibble sets. */
static void
keyword_nibbles(const struct secret_rules *r, size_t j, size_t k, unsigned *lo, unsigned *hi)
{
	const unsigned char *lc = secret_lower, *w = (const unsigned char *)r->kw[j].word;

	*lo = *hi = 0;
	for (unsigned x = 0; x < 256; x++)
		if (k >= r->kw[j].len || lc[x] == lc[w[k]]) {
			*lo |= 1u << (x & 15);
			*hi |= 1u << (x >> 4);
		}
}

/* How often a bucket of these nibble sets lets a position through, by
 * byte_weight: the product over its three bytes. */
static double
bucket_cost(const unsigned lo[3], const unsigned hi[3])
{
	double c = 1;

	for (int k = 0; k < 3; k++) {
		unsigned s = 0;
		for (unsigned x = 0; x < 256; x++)
			if (lo[k] >> (x & 15) & 1 && hi[k] >> (x >> 4) & 1)
				s += byte_weight(x);
		c *= s / 1000.0;
	}
	return c;
}

/* The keywords into the nibble masks' eight buckets: each, in order, to
 * the bucket it makes least often passed (so keywords of like bytes share
 * one, and a short keyword, which lets any byte through past its end,
 * keeps to itself).  Greedy, and a function of the rules alone. */
static void
nibble_buckets(struct secret_rules *r)
{
	unsigned lo[8][3] = { { 0 } }, hi[8][3] = { { 0 } };

	memset(r->nib, 0, sizeof r->nib);
	for (size_t j = 0; j < r->nkw; j++) {
		unsigned kl[3], kh[3], tl[3], th[3];
		double best = 0;
		int b = 0;
		for (int k = 0; k < 3; k++)
			keyword_nibbles(r, j, (size_t)k, &kl[k], &kh[k]);
		/* a short keyword lets any byte through past its end: buckets
		 * 0 and 1 hold those of one and two bytes, and nothing else */
		if (r->kw[j].len < 3)
			b = (int)r->kw[j].len - 1;
		for (int c = 2; r->kw[j].len >= 3 && c < 8; c++) {
			double was = lo[c][0] ? bucket_cost(lo[c], hi[c]) : 0, d;
			for (int k = 0; k < 3; k++)
				tl[k] = lo[c][k] | kl[k], th[k] = hi[c][k] | kh[k];
			d = bucket_cost(tl, th) - was;
			if (c == 2 || d < best)
				best = d, b = c;
		}
		for (int k = 0; k < 3; k++)
			lo[b][k] |= kl[k], hi[b][k] |= kh[k];
	}
	for (int b = 0; b < 8; b++)
		for (int k = 0; k < 3; k++)
			for (unsigned x = 0; x < 16; x++) {
				if (lo[b][k] >> x & 1)
					r->nib[k][0][x] |= (uint8_t)(1u << b);
				if (hi[b][k] >> x & 1)
					r->nib[k][1][x] |= (uint8_t)(1u << b);
			}
}

int
secret_rules_index(struct secret_rules *r)
{
	if (keywords_index(r) < 0)
		return -1;
	for (int k = 0; k < 2; k++) {
		if ((r->gate[k] = calloc(r->nrules ? r->nrules : 1, sizeof *r->gate[k])) == NULL ||
		    (r->agate[k] = calloc(r->nsre ? r->nsre : 1, sizeof *r->agate[k])) == NULL)
			return -1;
	}
	if ((r->lock = malloc(sizeof *r->lock)) == NULL)
		return -1;
	if (pthread_mutex_init(r->lock, NULL) != 0) {
		free(r->lock);
		r->lock = NULL;
		return -1;
	}
	memset(r->raw2, 0, sizeof r->raw2);
	memset(r->short2, 0, sizeof r->short2);
	memset(r->three, 0, sizeof r->three);
	memset(r->bucket, 0, sizeof r->bucket);
	memset(r->single, 0, sizeof r->single);
	free(r->chain);
	if ((r->chain = calloc(r->nkw ? r->nkw : 1, sizeof *r->chain)) == NULL)
		return -1;
	for (size_t j = r->nkw; j-- > 0;)
		keyword_filters(r, j);
	nibble_buckets(r);
	return 0;
}
