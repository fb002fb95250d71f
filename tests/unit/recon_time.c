/* recon_time.c: print how reconcile reads each argument: an RFC 3339 time
 * ("T SECONDS.NANOSECONDS NORMALIZED" or "T bad") or, after "--count", a token count
 * ("C VALUE" or "C bad").  tests/reconcile.test.sh checks the times against
 * date(1). */
#include <stdio.h>
#include <string.h>

#include "../../reconcile/reconcile.h"

int
main(int argc, char **argv)
{
	int count = 0;

	for (int i = 1; i < argc; i++) {
		char norm[RECON_TIME_MAX];
		long long t;
		long long v;

		if (strcmp(argv[i], "--count") == 0) {
			count = 1;
			continue;
		}
		if (count) {
			if (recon_count_parse(argv[i], strlen(argv[i]), &v) == 0)
				printf("C %lld\n", v);
			else
				printf("C bad\n");
		} else if (recon_time_parse(argv[i], &t, norm) == 0) {
			printf("T %lld.%09lld %s\n", t / 1000000000 - (t % 1000000000 < 0),
			    (t % 1000000000 + 1000000000) % 1000000000, norm);
		} else {
			printf("T bad\n");
		}
	}
	return 0;
}
