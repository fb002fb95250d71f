/* merge.c: `cohort merge`: the partial documents of a sharded run, combined
 * into the bytes one machine would have written. */
#include <stdlib.h>

#include "../fingerprint/fppart.h"
#include "../fit/sim.h"
#include "../json/json.h"
#include "../protocol/part.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] = "usage: cohort merge [-o FILE] PART...\n";

/* The kinds a run can be sharded into: a new kind is one line here. */
static const struct part_kind kinds[] = {
	{ "cohort.ladder-audit/1", sim_part_total, sim_part_merge },
	{ "cohort.fingerprint/1", fp_part_total, fp_part_merge },
	{ "cohort.distance/1", fp_distance_part_total, fp_distance_part_merge },
};

int
cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	const struct opt table[] = {
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "merge", .usage = usage, .table = table,
		.operand = "PART", .min = 1, .max = -1 };
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	char **ops;
	int nops, rc;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	rc = part_merge((const char *const *)ops, (size_t)nops, kinds,
	         sizeof kinds / sizeof kinds[0], &doc, &e) < 0 ||
	    opt_emit(doc, 0, NULL, out, &e) < 0;
	cJSON_Delete(doc);
	return rc ? cmd_fail(c.name, &e) : EXIT_HOLDS;
}
