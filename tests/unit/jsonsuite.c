/* jsonsuite.c: parse each file named on the command line with the strict
 * reader and print "accept NAME" or "reject NAME: message"; then, for an
 * accepted one, check that its canonical bytes parse again to the same
 * canonical bytes (the writer's output is always readable and stable). */
#include <stdio.h>
#include <string.h>

#include "../../common/io.h"
#include "../../json/json.h"

int
main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct err e = ERR_INIT;
		struct buf in = BUF_INIT, c1 = BUF_INIT, c2 = BUF_INIT;
		cJSON *v, *w;

		if (io_read_all(argv[i], &in, IO_MAX_DOCUMENT, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			return 2;
		}
		v = json_parse(in.p ? in.p : "", in.len, argv[i], 1, &e);
		if (v == NULL) {
			printf("reject %s: %s\n", argv[i], e.msg);
		} else {
			printf("accept %s\n", argv[i]);
			if (canon_write(v, &c1, &e) < 0) {
				printf("unwritable %s: %s\n", argv[i], e.msg);
				rc = 1;
			} else if ((w = json_parse(c1.p, c1.len, "canonical", 1, &e)) == NULL ||
			    canon_write(w, &c2, &e) < 0 || c1.len != c2.len ||
			    memcmp(c1.p, c2.p, c1.len) != 0) {
				printf("unstable %s\n", argv[i]);
				rc = 1;
				cJSON_Delete(w);
			} else {
				cJSON_Delete(w);
			}
			cJSON_Delete(v);
		}
		buf_release(&in);
		buf_release(&c1);
		buf_release(&c2);
	}
	return rc;
}
