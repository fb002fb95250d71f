/* decision_flat: every line of the JSON Lines files named is read by the
 * flat decision reader and by the tree reader (decision_agree.h); and its
 * canonical bytes once more, one after another, by a reader that keeps
 * where the fields of each shape are (so that records of one shape and
 * then of another follow each other); prints "N records, F read flat" and
 * exits 1 at the first disagreement. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>

#include "decision_agree.h"

int
main(int argc, char **argv)
{
	struct decision_flat fl, warm;
	struct rec_scan *tmp = rec_scan_new();
	struct buf c[2] = { BUF_INIT, BUF_INIT };
	long records = 0, flat = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ok = decision_flat_init(&fl) == 0 && decision_flat_init(&warm) == 0 && tmp != NULL;

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
			/* this record's and the last one's canonical bytes, in turn,
			 * a few times: shapes read by rec_check one after another */
			size_t len = (size_t)(line[n - 1] == '\n' ? n - 1 : n);
			buf_reset(&c[ln % 2]);
			if (rec_scan(tmp, line, len, &c[ln % 2]) != REC_OK)
				buf_reset(&c[ln % 2]);
			for (int k = 0; k < 6; k++) {
				const struct buf *b = &c[(ln + k) % 2];
				if (b->len > 0 && rec_check(warm.rs, b->p, b->len) == REC_OK &&
				    agree_scanned(&warm, warm.rs, b->p, b->len) < 0) {
					fprintf(stderr, "%s:%ld: read warm, the flat and tree readers "
					    "disagree\n", argv[i], ln);
					return 1;
				}
			}
			records++;
			flat += rc > 0;
		}
		fclose(f);
	}
	printf("%ld records, %ld read flat\n", records, flat);
	free(line);
	buf_release(&c[0]);
	buf_release(&c[1]);
	rec_scan_free(tmp);
	decision_flat_release(&fl);
	decision_flat_release(&warm);
	return ok ? 0 : 2;
}
