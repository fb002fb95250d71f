/* fuzz_secret_scan.c: the credential scan over arbitrary bytes with the
 * built-in rules, as one file and in two halves at once (as cohort bundle
 * scans large files), capped and not: no crash, no read outside the
 * buffer, every hit's line within the input (a decoded stream or database
 * may have more lines: then only >= 1), the same count both ways; and
 * the same hits, line by line, with the keyword prefilter's AVX2 step and
 * without it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../secret/secret.h"

struct lines {
	long max;
	long seen;
	unsigned long sum; /* of the hits' rules, lines and masked values */
};

static int
hit(void *ctx, const struct secret_hit *h)
{
	struct lines *l = ctx;

	if (h->rule == NULL || h->action == NULL || memchr(h->masked, '\0', sizeof h->masked) == NULL ||
	    memchr(h->where, '\0', sizeof h->where) == NULL)
		abort();
	if (h->more > 0)
		return 0;
	if (h->line < 1 || (h->where[0] == '\0' && h->line > l->max))
		abort();
	l->seen++;
	l->sum = l->sum * 1000003u + h->rule_index * 131u + (unsigned long)h->line;
	for (const char *c = h->masked; *c; c++)
		l->sum = l->sum * 31u + (unsigned char)*c;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct secret_rules *rules;
	struct err e = ERR_INIT;
	struct secret_opts all = { 0, 1, 0 }, capped = { 2, 2, 0 }, plain = { 0, 1, 1 };
	/* an exact-size copy, so reading past the end is caught */
	char *p = malloc(size ? size : 1);
	struct lines l = { 1, 0, 0 }, m = { 1, 0, 0 }, q = { 1, 0, 0 };
	long a, b, c;

	if (rules == NULL && (rules = secret_rules_new(NULL, &e)) == NULL)
		abort();
	if (p == NULL)
		return 0;
	memcpy(p, data, size);
	for (size_t i = 0; i < size; i++)
		l.max += p[i] == '\n';
	m.max = q.max = l.max;
	a = secret_scan(rules, &all, "fuzz.txt", p, size, hit, &l, &e);
	e = (struct err)ERR_INIT;
	b = secret_scan(rules, &capped, "fuzz.txt", p, size, hit, &m, &e);
	if ((a < 0) != (b < 0) || (a >= 0 && (a != b || l.seen != a)))
		abort();
	e = (struct err)ERR_INIT;
	c = secret_scan(rules, &plain, "fuzz.txt", p, size, hit, &q, &e);
	if (c != a || q.seen != l.seen || q.sum != l.sum)
		abort();
	free(p);
	return 0;
}
