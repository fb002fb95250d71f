/* json.c: a strict RFC 8259 reader that builds cJSON trees, and typed
 * accessors.  cJSON's own parser is too lenient for content addressing
 * (duplicate keys, unchecked UTF-8, leading zeros), so we parse ourselves
 * and use cJSON only to hold the tree. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/utf8.h"

struct parser {
	const unsigned char *start, *p, *end;
	const char *name;
	long first_line;
	int depth;
	struct err *e;
	struct buf scratch; /* string being decoded */
	struct json_lines *lines;      /* where each value begins, or NULL */
	const unsigned char *line_at;  /* the lines are counted up to here */
	long line;                     /* the line of line_at */
};

static int
fail(struct parser *ps, const unsigned char *at, const char *what)
{
	long line = ps->first_line;
	const unsigned char *q, *bol = ps->start;

	if (at > ps->end)
		at = ps->end;
	for (q = ps->start; q < at; q++)
		if (*q == '\n') {
			line++;
			bol = q + 1;
		}
	return err_set(ps->e, ERR_INPUT, "%s:%ld:%ld: %s", ps->name, line,
	    (long)(at - bol) + 1, what);
}

static void
skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int
hex4(const unsigned char *p, const unsigned char *end, unsigned *out)
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
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

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

/* Decode the string at ps->p (which is at the opening quote) into a fresh
 * malloc'd C string. */
static char *
parse_string(struct parser *ps)
{
	const unsigned char *p = ps->p + 1, *run;
	struct buf *b = &ps->scratch;
	char *s;

	buf_reset(b);
	for (;;) {
		run = p;
		while (p < ps->end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
			p++;
		if (p > run && buf_add(b, run, p - run) < 0)
			goto nomem;
		if (p >= ps->end) {
			fail(ps, p, "unterminated string");
			return NULL;
		}
		if (*p == '"')
			break;
		if (*p < 0x20) {
			fail(ps, p, "control character in string");
			return NULL;
		}
		if (*p >= 0x80) {
			size_t n = utf8_seq_len(p, ps->end);
			if (n == 0) {
				fail(ps, p, "invalid UTF-8");
				return NULL;
			}
			if (buf_add(b, p, n) < 0)
				goto nomem;
			p += n;
			continue;
		}
		/* backslash */
		p++;
		if (p >= ps->end) {
			fail(ps, p, "unterminated string");
			return NULL;
		}
		unsigned cp, lo;
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
			if (hex4(p + 1, ps->end, &cp) < 0) {
				fail(ps, p - 1, "bad \\u escape");
				return NULL;
			}
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				fail(ps, p - 1, "lone surrogate escape");
				return NULL;
			}
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (ps->end - p < 11 || p[5] != '\\' || p[6] != 'u' ||
				    hex4(p + 7, ps->end, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF) {
					fail(ps, p - 1, "lone surrogate escape");
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				p += 6;
			}
			p += 4;
			break;
		default:
			fail(ps, p - 1, "bad escape in string");
			return NULL;
		}
		if (put_utf8(b, cp) < 0)
			goto nomem;
		p++;
	}
	ps->p = p + 1;
	s = malloc(b->len + 1);
	if (s == NULL)
		goto nomem;
	memcpy(s, b->p ? b->p : "", b->len + 1);
	return s;
nomem:
	err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
	return NULL;
}

static int
is_digit(const unsigned char *p, const unsigned char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

static cJSON *
parse_number(struct parser *ps)
{
	const unsigned char *p = ps->p, *s = ps->p;
	char tmp[64], *heap = NULL, *num, *endp;
	double x;
	size_t n;
	cJSON *v;

	if (p < ps->end && *p == '-')
		p++;
	if (!is_digit(p, ps->end)) {
		fail(ps, s, "bad number");
		return NULL;
	}
	if (*p == '0') {
		p++;
		if (is_digit(p, ps->end)) {
			fail(ps, s, "bad number: leading zero");
			return NULL;
		}
	} else {
		while (is_digit(p, ps->end))
			p++;
	}
	if (p < ps->end && *p == '.') {
		p++;
		if (!is_digit(p, ps->end)) {
			fail(ps, s, "bad number: no digit after the point");
			return NULL;
		}
		while (is_digit(p, ps->end))
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(p, ps->end)) {
			fail(ps, s, "bad number: no digit in the exponent");
			return NULL;
		}
		while (is_digit(p, ps->end))
			p++;
	}
	n = p - s;
	num = tmp;
	if (n >= sizeof tmp) {
		heap = malloc(n + 1);
		if (heap == NULL) {
			err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
			return NULL;
		}
		num = heap;
	}
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	/* The process never calls setlocale, so strtod reads '.' as the point. */
	x = strtod(num, &endp);
	free(heap);
	if (!isfinite(x)) {
		fail(ps, s, "number out of double range");
		return NULL;
	}
	v = cJSON_CreateNumber(x);
	if (v == NULL) {
		err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
		return NULL;
	}
	ps->p = p;
	return v;
}

static int
literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return 0;
	ps->p += n;
	return 1;
}

static cJSON *parse_value(struct parser *ps);

static void
link_child(cJSON *parent, cJSON **tail, cJSON *item)
{
	if (*tail == NULL) {
		parent->child = item;
	} else {
		(*tail)->next = item;
		item->prev = *tail;
	}
	*tail = item;
	parent->child->prev = item;
}

/* Duplicate keys: producers almost always write keys in one order, so while
 * each key sorts after the one before it, one comparison a key proves there
 * is no duplicate.  Only an object whose keys come out of order is sorted
 * and checked at its end; key offsets are kept to name the duplicate. */
struct keyat {
	const char *key;
	size_t off; /* offset of the key in the input */
};

static int
keyat_cmp(const void *a, const void *b)
{
	const struct keyat *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int
dup_check_sorted(struct parser *ps, cJSON *obj, struct keyat *keys, size_t n)
{
	size_t i = 0;

	for (cJSON *c = obj->child; c; c = c->next)
		keys[i++].key = c->string;
	qsort(keys, n, sizeof *keys, keyat_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(keys[i - 1].key, keys[i].key) == 0) {
			char what[200];
			snprintf(what, sizeof what, "duplicate key \"%.120s\"", keys[i].key);
			return fail(ps, ps->start + keys[i].off, what);
		}
	return 0;
}

static cJSON *
parse_object(struct parser *ps)
{
	cJSON *obj = cJSON_CreateObject(), *tail = NULL, *v;
	struct keyat stack[32], *keys = stack, *grown;
	size_t count = 0, cap = 32;
	int ordered = 1;

	if (obj == NULL) {
		err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
		return NULL;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return obj;
	}
	for (;;) {
		const unsigned char *kat;
		char *key;

		skip_ws(ps);
		kat = ps->p;
		if (ps->p >= ps->end || *ps->p != '"') {
			fail(ps, ps->p, "expected a string key");
			goto bad;
		}
		key = parse_string(ps);
		if (key == NULL)
			goto bad;
		if (count == cap) {
			cap *= 2;
			grown = keys == stack ? malloc(cap * sizeof *keys) : realloc(keys, cap * sizeof *keys);
			if (grown == NULL) {
				free(key);
				err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
				goto bad;
			}
			if (keys == stack)
				memcpy(grown, stack, sizeof stack);
			keys = grown;
		}
		keys[count].off = (size_t)(kat - ps->start);
		if (ordered && tail != NULL && strcmp(tail->string, key) >= 0)
			ordered = 0;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			free(key);
			fail(ps, ps->p, "expected ':'");
			goto bad;
		}
		ps->p++;
		skip_ws(ps);
		v = parse_value(ps);
		if (v == NULL) {
			free(key);
			goto bad;
		}
		v->string = key;
		link_child(obj, &tail, v);
		count++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			break;
		}
		fail(ps, ps->p, "expected ',' or '}'");
		goto bad;
	}
	if (!ordered && dup_check_sorted(ps, obj, keys, count) < 0)
		goto bad;
	if (keys != stack)
		free(keys);
	return obj;
bad:
	if (keys != stack)
		free(keys);
	cJSON_Delete(obj);
	return NULL;
}

static cJSON *
parse_array(struct parser *ps)
{
	cJSON *arr = cJSON_CreateArray(), *tail = NULL, *v;

	if (arr == NULL) {
		err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
		return NULL;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return arr;
	}
	for (;;) {
		skip_ws(ps);
		v = parse_value(ps);
		if (v == NULL)
			goto bad;
		link_child(arr, &tail, v);
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			break;
		}
		fail(ps, ps->p, "expected ',' or ']'");
		goto bad;
	}
	return arr;
bad:
	cJSON_Delete(arr);
	return NULL;
}

/* The line ps->p is on: value starts only move forward, so the count
 * goes on from the last one. */
static long
line_here(struct parser *ps)
{
	for (; ps->line_at < ps->p; ps->line_at++)
		if (*ps->line_at == '\n')
			ps->line++;
	return ps->line;
}

static int
lines_add(struct parser *ps, const cJSON *v, long line)
{
	struct json_lines *l = ps->lines;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct json_line *g = realloc(l->at, cap * sizeof *g);
		if (g == NULL)
			return err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
		l->at = g;
		l->cap = cap;
	}
	l->at[l->n].node = v;
	l->at[l->n++].line = line;
	return 0;
}

static cJSON *parse_value_at(struct parser *ps);

static cJSON *
parse_value(struct parser *ps)
{
	long line;
	cJSON *v;

	if (ps->lines == NULL)
		return parse_value_at(ps);
	line = line_here(ps);
	v = parse_value_at(ps);
	if (v != NULL && lines_add(ps, v, line) < 0) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

static cJSON *
parse_value_at(struct parser *ps)
{
	cJSON *v = NULL;

	if (ps->p >= ps->end) {
		fail(ps, ps->p, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > JSON_MAX_DEPTH) {
			fail(ps, ps->p, "nesting deeper than 256");
			return NULL;
		}
		v = *ps->p == '{' ? parse_object(ps) : parse_array(ps);
		ps->depth--;
		return v;
	case '"': {
		char *s = parse_string(ps);
		if (s == NULL)
			return NULL;
		v = cJSON_CreateNull();
		if (v == NULL) {
			free(s);
			err_set(ps->e, ERR_NOMEM, "%s: out of memory", ps->name);
			return NULL;
		}
		v->type = cJSON_String;
		v->valuestring = s;
		return v;
	}
	case 't':
		if (literal(ps, "true"))
			v = cJSON_CreateTrue();
		break;
	case 'f':
		if (literal(ps, "false"))
			v = cJSON_CreateFalse();
		break;
	case 'n':
		if (literal(ps, "null"))
			v = cJSON_CreateNull();
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps);
		if (*ps->p >= 0x80 && utf8_seq_len(ps->p, ps->end) == 0)
			fail(ps, ps->p, "invalid UTF-8");
		else
			fail(ps, ps->p, "unexpected character");
		return NULL;
	}
	if (v == NULL)
		fail(ps, ps->p, "unexpected word");
	return v;
}

cJSON *
json_parse(const char *p, size_t len, const char *name, long first_line, struct err *e)
{
	return json_parse_lines(p, len, name, first_line, NULL, e);
}

cJSON *
json_parse_lines(const char *p, size_t len, const char *name, long first_line,
    struct json_lines *lines, struct err *e)
{
	struct parser ps = { 0 };
	cJSON *v;

	ps.lines = lines;
	ps.line_at = (const unsigned char *)p;
	ps.line = first_line;
	if (lines != NULL)
		lines->n = 0;
	ps.start = ps.p = (const unsigned char *)p;
	ps.end = ps.start + len;
	ps.name = name ? name : "<input>";
	ps.first_line = first_line;
	ps.e = e;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
		fail(&ps, ps.p, "byte-order mark not allowed");
		return NULL;
	}
	skip_ws(&ps);
	v = parse_value(&ps);
	if (v != NULL) {
		skip_ws(&ps);
		if (ps.p < ps.end) {
			fail(&ps, ps.p, "trailing data after the value");
			cJSON_Delete(v);
			v = NULL;
		}
	}
	buf_release(&ps.scratch);
	return v;
}

cJSON *
json_parse_file(const char *path, struct err *e)
{
	return json_parse_file_lines(path, NULL, e);
}

cJSON *
json_parse_file_lines(const char *path, struct json_lines *lines, struct err *e)
{
	struct buf b = BUF_INIT;
	cJSON *v = NULL;

	if (io_read_all(path, &b, IO_MAX_DOCUMENT, e) == 0)
		v = json_parse_lines(b.p ? b.p : "", b.len, io_name(path), 1, lines, e);
	buf_release(&b);
	return v;
}

const cJSON *
json_get(const cJSON *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	/* cJSON_GetObjectItemCaseSensitive, with the first byte compared
	 * before strcmp: records are looked up field by field. */
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string != NULL && c->string[0] == key[0] && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}

static int
want(const cJSON *obj, const char *key, int required, const cJSON **v, struct err *e)
{
	*v = json_get(obj, key);
	if (*v == NULL) {
		if (!required)
			return 1;
		return err_set(e, ERR_INPUT, "\"%s\": missing", key);
	}
	return 0;
}

int
json_get_string(const cJSON *obj, const char *key, int required, const char **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected a string", key);
	*out = v->valuestring;
	return 0;
}

int
json_get_number(const cJSON *obj, const char *key, int required, double *out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsNumber(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected a number", key);
	*out = v->valuedouble;
	return 0;
}

int
json_get_int(const cJSON *obj, const char *key, int required, long long lo, long long hi,
    long long *out, struct err *e)
{
	double x;
	int rc = json_get_number(obj, key, required, &x, e);

	if (rc != 0)
		return rc;
	if (x != floor(x) || x < (double)lo || x > (double)hi)
		return err_set(e, ERR_INPUT, "\"%s\": expected a whole number from %lld to %lld",
		    key, lo, hi);
	*out = (long long)x;
	return 0;
}

int
json_get_object(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsObject(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected an object", key);
	*out = v;
	return 0;
}

int
json_get_array(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsArray(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected an array", key);
	*out = v;
	return 0;
}

static cJSON *
add(cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL)
		return NULL;
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

cJSON *
json_add_string(cJSON *obj, const char *key, const char *s)
{
	return add(obj, key, cJSON_CreateString(s));
}

cJSON *
json_add_number(cJSON *obj, const char *key, double x)
{
	return add(obj, key, cJSON_CreateNumber(x));
}

cJSON *
json_add_null(cJSON *obj, const char *key)
{
	return add(obj, key, cJSON_CreateNull());
}

cJSON *
json_add_bool(cJSON *obj, const char *key, int b)
{
	return add(obj, key, cJSON_CreateBool(b));
}

double
json_round(double x, double step)
{
	double r = round(x / step) * step;

	/* Snap to the shortest decimal: 1067.2300000000002 prints as 1067.23. */
	if (step >= 1e-9) {
		char t[64];
		int places = 0;
		for (double s = step; s < 1 - 1e-12 && places < 12; s *= 10)
			places++;
		snprintf(t, sizeof t, "%.*f", places, r);
		r = strtod(t, NULL);
	}
	return r == 0 ? 0 : r;
}

int
json_emit(const cJSON *doc, const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	rc = canon_write(doc, &b, e);
	if (rc == 0)
		rc = io_write_all(path, b.p ? b.p : "", b.len, e);
	buf_release(&b);
	return rc;
}

long
json_line(const struct json_lines *l, const cJSON *v)
{
	for (size_t i = 0; l != NULL && i < l->n; i++)
		if (l->at[i].node == v)
			return l->at[i].line;
	return 0;
}

void
json_lines_release(struct json_lines *l)
{
	if (l == NULL)
		return;
	free(l->at);
	l->at = NULL;
	l->n = l->cap = 0;
}

void
json_bld_put(struct json_bld *k, cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL || !cJSON_AddItemToObjectCS(o, key, v)) {
		cJSON_Delete(v);
		k->oom = 1;
	}
}

void
json_bld_push(struct json_bld *k, cJSON *a, cJSON *v)
{
	if (v == NULL || !cJSON_AddItemToArray(a, v)) {
		cJSON_Delete(v);
		k->oom = 1;
	}
}
