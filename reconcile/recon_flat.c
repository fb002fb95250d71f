/* recon_flat.c: the fast path for flat JSON Lines records (recon_flat.h). */
#include "recon_flat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/utf8.h"

struct scan {
	const unsigned char *p, *end;
};

static void
ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n'))
		s->p++;
}

/* A string without escapes or control characters, valid UTF-8. */
static int
string(struct scan *s, const char **out, size_t *n)
{
	const unsigned char *start;

	if (s->p >= s->end || *s->p != '"')
		return -1;
	start = ++s->p;
	while (s->p < s->end && *s->p != '"') {
		unsigned char b = *s->p;
		if (b < 0x20 || b == '\\')
			return -1;
		if (b < 0x80) {
			s->p++;
			continue;
		}
		size_t k = utf8_seq_len(s->p, s->end);
		if (k == 0)
			return -1;
		s->p += k;
	}
	if (s->p >= s->end)
		return -1;
	*out = (const char *)start;
	*n = (size_t)(s->p - start);
	s->p++;
	return 0;
}

static int
digit(const struct scan *s)
{
	return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

/* RFC 8259 number grammar; a finite double. */
static int
number(struct scan *s, double *out)
{
	const unsigned char *start = s->p;
	int plain = 1;
	char tmp[64];

	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (!digit(s))
		return -1;
	if (*s->p == '0')
		s->p++;
	else
		while (digit(s))
			s->p++;
	if (s->p < s->end && *s->p == '.') {
		plain = 0;
		s->p++;
		if (!digit(s))
			return -1;
		while (digit(s))
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		plain = 0;
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digit(s))
			return -1;
		while (digit(s))
			s->p++;
	}
	size_t n = (size_t)(s->p - start);
	if (plain && n <= 15 && *start != '-') {
		long long v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (start[i] - '0');
		*out = (double)v;
		return 0;
	}
	if (n >= sizeof tmp)
		return -1;
	memcpy(tmp, start, n);
	tmp[n] = '\0';
	*out = strtod(tmp, NULL);
	return isfinite(*out) ? 0 : -1;
}

static int
literal(struct scan *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return -1;
	s->p += n;
	return 0;
}

static struct recon_flat_field *
add(struct recon_flat *fl, const char *parent, const char *key, size_t klen)
{
	size_t plen = parent ? strlen(parent) + 1 : 0;
	struct recon_flat_field *f;

	if (fl->n == RECON_FLAT_FIELDS || fl->used + plen + klen + 1 > sizeof fl->keys ||
	    memchr(key, '.', klen) != NULL)
		return NULL;
	f = &fl->f[fl->n];
	f->key = fl->keys + fl->used;
	if (parent) {
		memcpy(fl->keys + fl->used, parent, plen - 1);
		fl->keys[fl->used + plen - 1] = '.';
	}
	memcpy(fl->keys + fl->used + plen, key, klen);
	fl->keys[fl->used + plen + klen] = '\0';
	/* A key given twice: the strict reader reports it. */
	for (int i = 0; i < fl->n; i++)
		if (strcmp(fl->f[i].key, f->key) == 0)
			return NULL;
	fl->used += plen + klen + 1;
	fl->n++;
	return f;
}

static int
object(struct recon_flat *fl, struct scan *s, const char *parent)
{
	if (s->p >= s->end || *s->p != '{')
		return -1;
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		const char *k;
		size_t kn;
		struct recon_flat_field *f;

		ws(s);
		if (string(s, &k, &kn) < 0)
			return -1;
		ws(s);
		if (s->p >= s->end || *s->p != ':')
			return -1;
		s->p++;
		ws(s);
		if ((f = add(fl, parent, k, kn)) == NULL || s->p >= s->end)
			return -1;
		switch (*s->p) {
		case '"':
			f->type = RF_STR;
			if (string(s, &f->s, &f->n) < 0)
				return -1;
			break;
		case '{':
			if (parent != NULL)
				return -1;
			f->type = RF_OBJ;
			if (object(fl, s, f->key) < 0)
				return -1;
			break;
		case 't':
			f->type = RF_TRUE;
			if (literal(s, "true") < 0)
				return -1;
			break;
		case 'f':
			f->type = RF_FALSE;
			if (literal(s, "false") < 0)
				return -1;
			break;
		case 'n':
			f->type = RF_NULL;
			if (literal(s, "null") < 0)
				return -1;
			break;
		default:
			f->type = RF_NUM;
			if (number(s, &f->num) < 0)
				return -1;
		}
		ws(s);
		if (s->p >= s->end)
			return -1;
		if (*s->p == '}') {
			s->p++;
			return 0;
		}
		if (*s->p != ',')
			return -1;
		s->p++;
	}
}

int
recon_flat_parse(struct recon_flat *fl, const char *p, size_t n)
{
	struct scan s = { (const unsigned char *)p, (const unsigned char *)p + n };

	fl->n = 0;
	fl->used = 0;
	ws(&s);
	if (object(fl, &s, NULL) < 0)
		return -1;
	ws(&s);
	return s.p == s.end ? 0 : -1;
}

const struct recon_flat_field *
recon_flat_get(const struct recon_flat *fl, const char *path)
{
	for (int i = 0; i < fl->n; i++)
		if (strcmp(fl->f[i].key, path) == 0)
			return &fl->f[i];
	return NULL;
}
