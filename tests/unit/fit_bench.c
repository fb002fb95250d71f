/* fit_bench.c: time the fit in process (no parse, no write).
 * usage: fit_bench FILE RUNS: prints milliseconds per fit_run, wall clock
 * and processor time (the machine may be shared). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../fit/fit.h"
#include "../../json/json.h"

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct fit_options o;
	struct timespec a, b, ca, cb;
	cJSON *in, *out = NULL;
	int runs = argc > 2 ? atoi(argv[2]) : 10;

	if (argc < 2 || runs < 1 || (in = json_parse_file(argv[1], &e)) == NULL) {
		fprintf(stderr, "fit_bench: %s\n", e.msg);
		return 2;
	}
	fit_options_init(&o);
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	for (int i = 0; i < runs; i++) {
		if (fit_run(in, &o, &out, &e) < 0) {
			fprintf(stderr, "fit_bench: %s\n", e.msg);
			return 2;
		}
		cJSON_Delete(out);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	printf("%.3f %.3f\n", ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6) / runs,
	       ((cb.tv_sec - ca.tv_sec) * 1e3 + (cb.tv_nsec - ca.tv_nsec) / 1e6) / runs);
	cJSON_Delete(in);
	return 0;
}
