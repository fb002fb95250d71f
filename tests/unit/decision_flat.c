/* decision_flat: every line of the JSON Lines files named is read by the
 * flat decision reader and by the tree reader (decision_agree.h); prints
 * "N records, F read flat" and exits 1 at the first disagreement. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>

#include "decision_agree.h"

int
main(int argc, char **argv)
{
	struct decision_flat fl;
	long records = 0, flat = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ok = decision_flat_init(&fl) == 0;

	for (int i = 1; ok && i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		if (f == NULL) {
			perror(argv[i]);
			return 2;
		}
		for (long ln = 1; (n = getline(&line, &cap, f)) > 0; ln++) {
			int rc = agree_record(fl.rs, &fl, line, (size_t)(line[n - 1] == '\n' ? n - 1 : n));
			if (rc < 0) {
				fprintf(stderr, "%s:%ld: the flat and tree readers disagree\n", argv[i], ln);
				return 1;
			}
			records++;
			flat += rc > 0;
		}
		fclose(f);
	}
	printf("%ld records, %ld read flat\n", records, flat);
	free(line);
	decision_flat_release(&fl);
	return ok ? 0 : 2;
}
