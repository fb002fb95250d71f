/* numbers.c: the ECMAScript number text of canon_number, against a file of
 * "hex-ieee,expected" lines (RFC 8785's published test sequence). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../freeze/json.h"

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
	printf("numbers: %ld lines, %ld wrong\n", n, bad);
	return bad ? 1 : 0;
}
