/* bundle_verify.c: bundle_verify_path on one archive or bag folder; prints
 * the checks as JSON on stdout (and each failing one on stderr) and exits
 * with its status, as `cohort verify` does. */
#include <stdio.h>

#include "../../bundle/bundle.h"
#include "../../json/json.h"

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	cJSON *checks, *c;
	int r;

	if (argc != 2) {
		fputs("usage: bundle_verify PATH\n", stderr);
		return 2;
	}
	checks = cJSON_CreateArray();
	r = bundle_verify_path(argv[1], checks, &e);
	if (r < 0) {
		fprintf(stderr, "bundle_verify: %s\n", e.msg);
		cJSON_Delete(checks);
		return 2;
	}
	cJSON_ArrayForEach(c, checks)
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "ok")))
			fprintf(stderr, "%s %s: %s\n", cJSON_GetObjectItemCaseSensitive(c, "check")->valuestring,
			    cJSON_GetObjectItemCaseSensitive(c, "subject")->valuestring,
			    cJSON_GetObjectItemCaseSensitive(c, "detail")->valuestring);
	if (json_emit(checks, NULL, &e) < 0)
		r = 2;
	cJSON_Delete(checks);
	return r;
}
