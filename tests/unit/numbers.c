/* numbers.c: the ECMAScript number text of canon_number, against a file of
 * "hex-ieee,expected" lines (RFC 8785's published test sequence); then the
 * reader's numbers: texts of every form read as strtod reads them, and
 * called canonical exactly when canon_number writes that text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json/json.h"

static uint64_t
next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random number text: a sign, "0" or up to 20 digits, often a fraction
 * of up to 25 digits (zeros likely, at either end), now and then an
 * exponent. */
static void
number_text(uint64_t *st, char *t)
{
	size_t k = 0, ni = next(st) % 4 == 0 ? 0 : 1 + next(st) % 20, nf;

	if (next(st) % 3 == 0)
		t[k++] = '-';
	if (ni == 0)
		t[k++] = '0';
	for (size_t i = 0; i < ni; i++)
		t[k++] = (char)(i == 0 ? '1' + next(st) % 9 : next(st) % 3 == 0 ? '0' : '0' + next(st) % 10);
	if (next(st) % 4 != 0) {
		nf = 1 + next(st) % 25;
		t[k++] = '.';
		for (size_t i = 0; i < nf; i++)
			t[k++] = (char)(next(st) % 3 == 0 ? '0' : '0' + next(st) % 10);
	}
	if (next(st) % 10 == 0)
		k += (size_t)sprintf(t + k, "e%s%d", next(st) % 2 ? "-" : "", (int)(next(st) % 30));
	t[k] = '\0';
}

/* Digits from the first nonzero to the last nonzero. */
static int
significant(const char *t)
{
	const char *first = NULL, *last = NULL;
	int n = 0;

	for (const char *c = t; *c && *c != 'e'; c++)
		if (*c >= '1' && *c <= '9') {
			first = first ? first : c;
			last = c;
		}
	for (const char *c = first; c && c <= last; c++)
		n += *c >= '0' && *c <= '9';
	return n;
}

/* The text read by the reader, inside an array, after a comma (the fast
 * paths' ways) and alone (the full path's), against strtod and
 * canon_number: the number that differ. */
static long
read_texts(long *n)
{
	uint64_t st = 0x2545f4914f6cdd1dULL;
	long bad = 0;

	for (long i = 0; i < 400000; i++) {
		char t[96], doc[100], canon[32];
		number_text(&st, t);
		double want = strtod(t, NULL);
		canon_number(want, canon);
		/* plain may be said only of canonical text, and must be of
		 * canonical text of up to 15 significant digits, no exponent */
		int plain = strcmp(canon, t) == 0, must = plain && strchr(t, 'e') == NULL &&
		    significant(t) <= 15;
		/* first in an array, alone, after a comma */
		for (int alone = 0; alone < 3; alone++) {
			static const char *const form[] = { "[%s]", "%s", "[0,%s]" };
			struct json_tok tok;
			struct err e = ERR_INIT;
			snprintf(doc, sizeof doc, form[alone], t);
			struct json_rd *r = json_rd_mem(doc, strlen(doc), "n", 1);
			int rc = r == NULL ? -1 : json_rd_next(r, &tok, &e);
			for (int k = alone == 1 ? 0 : alone == 0 ? 1 : 2; rc == 0 && k > 0; k--)
				rc = json_rd_next(r, &tok, &e);
			(*n)++;
			if (rc < 0 || tok.type != JSON_NUMBER || memcmp(&tok.x, &want, sizeof want) != 0 ||
			    (tok.plain && !plain) || (must && !tok.plain) || tok.len != strlen(t)) {
				if (bad++ < 10)
					fprintf(stderr, "numbers: %s (%s): read %.17g plain %d, want %.17g plain "
					    "%d\n", t, form[alone], rc < 0 ? 0 : tok.x,
					    rc < 0 ? -1 : tok.plain, want, plain);
			}
			json_rd_free(r);
		}
	}
	return bad;
}

int
main(int argc, char **argv)
{
	char line[256], got[32];
	long n = 0, bad = 0;
	FILE *fp;

	if (argc != 2 || (fp = fopen(argv[1], "r")) == NULL) {
		fprintf(stderr, "usage: numbers FILE\n");
		return 2;
	}
	while (fgets(line, sizeof line, fp)) {
		char *comma = strchr(line, ','), *nl;
		uint64_t bits;
		double x;

		if (comma == NULL)
			continue;
		*comma = '\0';
		if ((nl = strchr(comma + 1, '\n')) != NULL)
			*nl = '\0';
		bits = strtoull(line, NULL, 16);
		memcpy(&x, &bits, sizeof x);
		canon_number(x, got);
		n++;
		if (strcmp(got, comma + 1) != 0 && bad++ < 10)
			fprintf(stderr, "numbers: %s: got %s, want %s\n", line, got, comma + 1);
	}
	fclose(fp);
	/* A second, independent check on random bit patterns: the text reads
	 * back as the same double, and no text with one digit fewer does. */
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	for (long i = 0; i < 300000; i++) {
		uint64_t bits;
		double x, y;
		char t[40], digits[40];
		int k = 0;
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		bits = state;
		memcpy(&x, &bits, sizeof x);
		if (x != x || x - x != 0)
			continue;
		canon_number(x, got);
		y = strtod(got, NULL);
		for (const char *c = got; *c && *c != 'e'; c++)
			if (*c >= '0' && *c <= '9' && (k > 0 || *c != '0'))
				digits[k++] = *c;
		while (k > 1 && digits[k - 1] == '0')
			k--;
		n++;
		if (y != x) {
			if (bad++ < 10)
				fprintf(stderr, "numbers: %016llx: %s does not read back\n",
				    (unsigned long long)bits, got);
			continue;
		}
		if (k > 1) {
			snprintf(t, sizeof t, "%.*e", k - 2, x);
			if (strtod(t, NULL) == x && bad++ < 10)
				fprintf(stderr, "numbers: %016llx: %s is not the shortest (%s)\n",
				    (unsigned long long)bits, got, t);
		}
	}
	bad += read_texts(&n);
	printf("numbers: %ld lines, %ld wrong\n", n, bad);
	return bad ? 1 : 0;
}
