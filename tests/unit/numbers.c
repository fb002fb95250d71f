/* numbers.c: the ECMAScript number text of canon_number, against a file of
 * "hex-ieee,expected" lines (RFC 8785's published test sequence); then the
 * reader's numbers: texts of every form read as strtod reads them, and
 * called canonical exactly when canon_number writes that text; then texts
 * of 16 to 19 digits with exponents across the whole range (random
 * doubles printed, random significands with any exponent, exact halfway
 * points between doubles, and known hard cases), read as strtod reads
 * them. */
#include <math.h>
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

/* The reader's value of text t against strtod's: 1 when they differ (or
 * the reader refused a text strtod reads as finite). */
static int
value_differs(const char *t)
{
	double want = strtod(t, NULL), got = 0;
	char doc[128];
	struct json_tok tok;
	struct err e = ERR_INIT;
	struct json_rd *r;
	int rc;

	snprintf(doc, sizeof doc, "[0,%s]", t);
	if ((r = json_rd_mem(doc, strlen(doc), "n", 1)) == NULL)
		return 1;
	rc = json_rd_next(r, &tok, &e) == 0 && json_rd_next(r, &tok, &e) == 0 &&
	    json_rd_next(r, &tok, &e) == 0 ? 0 : -1;
	if (rc == 0)
		got = tok.x;
	json_rd_free(r);
	if (!isfinite(want))
		return rc == 0; /* out of range: the reader must refuse it */
	if (rc < 0 || memcmp(&got, &want, sizeof want) != 0) {
		fprintf(stderr, "numbers: %s: read %.17g, strtod %.17g\n", t, got, want);
		return 1;
	}
	return 0;
}

/* Documents that end inside an array just after a comma or a sign,
 * each in a buffer of exactly its size (so that a read past its end is
 * the sanitizers' finding): refused, never read past. */
static long
cut_short(long *n)
{
	static const char *const docs[] = { "[1,", "[1,-", "[1,1", "[1,-1", "[1,0.", "[0,1e" };
	long bad = 0;

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++, (*n)++) {
		size_t len = strlen(docs[i]);
		char *b = malloc(len);
		struct json_tok tok;
		struct err e = ERR_INIT;
		struct json_rd *r;
		int rc = 0;

		if (b == NULL)
			return bad + 1;
		memcpy(b, docs[i], len);
		if ((r = json_rd_mem(b, len, "cut", 1)) == NULL) {
			free(b);
			return bad + 1;
		}
		for (int k = 0; k < 6 && rc == 0 && (k == 0 || tok.type != JSON_EOF); k++)
			rc = json_rd_next(r, &tok, &e);
		if (rc == 0) {
			fprintf(stderr, "numbers: %s: not refused\n", docs[i]);
			bad++;
		}
		json_rd_free(r);
		free(b);
	}
	return bad;
}

static long
read_hard(long *n)
{
	static const char *const known[] = { "9007199254740993", "9007199254740995",
		"9007199254740993e0", "2.2250738585072011e-308", "2.2250738585072012e-308",
		"2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
		"2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308",
		"1.7976931348623159e308", "7.2057594037927933e16", "1e23", "8.988465674311579e307",
		"123456789012345678e-10", "9999999999999999999e-342", "1e-342", "1e-343",
		"9999999999999999999e308", "1e308", "1e309", "5e-324", "3e-324", "1.5e-323",
		"1234567890123456789", "18446744073709551615", "0.1e-341", "100000000000000000000e-20",
		"4503599627370497.5", "4503599627370496.5", "2.0000000000000004", "2.0000000000000003",
		"1.0000000000000002", "1.00000000000000011", "1.00000000000000012" };
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	long bad = 0;
	char t[64];

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++, (*n)++)
		bad += value_differs(known[i]);
	bad += cut_short(n);
	for (long i = 0; i < 300000; i++) {
		uint64_t bits = next(&st);
		double x;
		memcpy(&x, &bits, sizeof x);
		if (!isfinite(x))
			continue;
		/* a random double at 16 to 19 significant digits */
		snprintf(t, sizeof t, "%.*e", 15 + (int)(i % 4), x);
		bad += value_differs(t), (*n)++;
		/* a random significand of up to 19 digits, any exponent */
		snprintf(t, sizeof t, "%llue%d", (unsigned long long)(next(&st) % 10000000000000000000ULL),
		    (int)(next(&st) % 700) - 360);
		bad += value_differs(t), (*n)++;
		/* the exact halfway point above a double k 2^e: (2k + 1) 2^(e-1),
		 * as an integer (e 1..11) or with j digits after the point
		 * ((2k + 1) 5^j / 10^j, e - 1 = -j, j 1..3) */
		uint64_t k = ((uint64_t)1 << 52) | (next(&st) & (((uint64_t)1 << 52) - 1));
		int e = (int)(next(&st) % 14) - 2;
		unsigned __int128 h = (unsigned __int128)(2 * k + 1);
		if (e >= 1) {
			h <<= e - 1;
			snprintf(t, sizeof t, "%llu", (unsigned long long)h);
		} else {
			int j = 1 - e;
			for (int a = 0; a < j; a++)
				h *= 5;
			unsigned long long p10 = 1;
			for (int a = 0; a < j; a++)
				p10 *= 10;
			snprintf(t, sizeof t, "%llu.%0*llu", (unsigned long long)(h / p10), j,
			    (unsigned long long)(h % p10));
		}
		bad += value_differs(t), (*n)++;
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
	bad += read_hard(&n);
	printf("numbers: %ld lines, %ld wrong\n", n, bad);
	return bad ? 1 : 0;
}
