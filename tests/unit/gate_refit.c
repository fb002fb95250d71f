/* gate_refit.c GATE-DOC INPUT...: the gate document computed again from
 * its inputs through the derive table (as verify does): exit 0 when the
 * bytes are the same, 1 when they differ, 2 on an error. */
#include <stdio.h>

#include "../../derive/derive.h"
#include "../../json/json.h"

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	const cJSON *in[64];
	cJSON *doc, *checks = cJSON_CreateArray();
	int n = 0, rc;

	if (argc < 2 || argc > 65 || (doc = json_parse_file(argv[1], &e)) == NULL) {
		fprintf(stderr, "gate_refit: %s\n", e.msg[0] ? e.msg : "usage: gate_refit GATE INPUT...");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if ((in[n++] = json_parse_file(argv[i], &e)) == NULL) {
			fprintf(stderr, "gate_refit: %s\n", e.msg);
			return 2;
		}
	rc = derive_check_set("cohort.gate/1", doc, in, (size_t)n, argv[1], NULL, checks, &e);
	if (rc < 0)
		fprintf(stderr, "gate_refit: %s\n", e.msg);
	for (int i = 0; i < n; i++)
		cJSON_Delete((cJSON *)in[i]);
	cJSON_Delete(doc);
	cJSON_Delete(checks);
	return rc < 0 ? 2 : rc;
}
