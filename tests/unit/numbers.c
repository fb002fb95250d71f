/* numbers.c: the ECMAScript number text of canon_number, against a file of
 * "hex-ieee,expected" lines (RFC 8785's published test sequence). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json/json.h"

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
	printf("numbers: %ld lines, %ld wrong\n", n, bad);
	return bad ? 1 : 0;
}
