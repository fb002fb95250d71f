/* canon.c: the one canonical JSON writer (RFC 8785).  Keys sorted by UTF-16
 * code units, ECMAScript number text, minimal string escaping. */
#include "../common/utf8.h"
#include "json.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void
canon_number(double x, char out[32])
{
	char t[40], digits[20];
	int k = 0, exp10, n, i;
	char *o = out;

	if (x == 0) {
		strcpy(out, "0");
		return;
	}
	if (x < 0) {
		*o++ = '-';
		x = -x;
	}
	if (x < 9007199254740992.0 && x == floor(x)) {
		/* An integer below 2^53 is exact in a uint64_t: its digits, without
		 * printf (most numbers in a ledger are counts). */
		uint64_t u = (uint64_t)x;
		char rev[20];
		int m = 0;
		do {
			rev[m++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		while (m)
			*o++ = rev[--m];
		*o = '\0';
		return;
	}
	/* Shortest digits that read back as x.  %.*e rounds correctly, so when
	 * the shortest form has at most 15 digits, the 15-digit rounding is it
	 * padded with zeros (x lies within half an ulp of it, far inside half
	 * a 15-digit step); else 16 or 17 digits, the closest of which is the
	 * one ECMAScript wants. */
	if (x < DBL_MIN) {
		/* Subnormals carry fewer digits: search from one digit up. */
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(t, sizeof t, "%.*e", prec - 1, x);
			if (strtod(t, NULL) == x)
				break;
		}
	} else if (snprintf(t, sizeof t, "%.14e", x), strtod(t, NULL) != x) {
		snprintf(t, sizeof t, "%.15e", x);
		if (strtod(t, NULL) != x)
			snprintf(t, sizeof t, "%.16e", x);
	}
	/* t is d[.ddd]e[+-]XX */
	for (i = 0; t[i] != 'e'; i++)
		if (t[i] != '.')
			digits[k++] = t[i];
	exp10 = atoi(t + i + 1);
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	n = exp10 + 1;
	if (k <= n && n <= 21) {
		memcpy(o, digits, k);
		o += k;
		for (i = 0; i < n - k; i++)
			*o++ = '0';
		*o = '\0';
	} else if (0 < n && n <= 21) {
		memcpy(o, digits, n);
		o += n;
		*o++ = '.';
		memcpy(o, digits + n, k - n);
		o += k - n;
		*o = '\0';
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		for (i = 0; i < -n; i++)
			*o++ = '0';
		memcpy(o, digits, k);
		o += k;
		*o = '\0';
	} else {
		*o++ = digits[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, k - 1);
			o += k - 1;
		}
		sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
	}
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
