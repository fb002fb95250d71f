/* simulate.c: `cohort simulate paired`: paired-position data (positions,
 * candidates, decisions, games) drawn from a design, with the truth. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../simulate/paired.h"
#include "cmd.h"
#include "opt.h"

#define PAIRED_SYNOPSIS "cohort simulate paired --seed S --emit DIR [-o FILE] DESIGN\n"
static const char usage[] = "usage: " PAIRED_SYNOPSIS;

static int
paired(const struct opt_cmd *c, const char *seed, const char *dir, const char *out,
    const char *design)
{
	struct simulate_paired_opts o = { design, dir, 0 };
	struct err e = ERR_INIT;
	cJSON *truth = NULL;
	char *end;
	int rc;

	errno = 0;
	o.seed = strtoull(seed, &end, 10);
	if (!isdigit((unsigned char)seed[0]) || *end || errno)
		return opt_usage_error(c, "--seed: expected a whole number from 0 to 2^64-1, got '%s'",
		    seed);
	if (strcmp(dir, "-") == 0)
		return opt_usage_error(c, "--emit: expected a folder");
	rc = simulate_paired_run(&o, &truth, &e) < 0 || opt_emit(truth, 0, NULL, out, &e) < 0;
	cJSON_Delete(truth);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

int
cmd_simulate(int argc, char **argv)
{
	const char *seed = NULL, *dir = NULL, *out = NULL;
	const struct opt table[] = {
		{ .name = "seed", .arg = "S", .value = &seed, .required = 1,
		    .help = "the seed, 0 to 2^64-1" },
		{ .name = "emit", .out = 1, .arg = "DIR", .value = &dir, .required = 1,
		    .help = "the folder for the candidates, spec, decisions and ledgers" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the truth to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt none[] = { { .name = NULL } };
	struct opt_cmd top;
	const struct opt_cmd paired_cmd = { .name = "simulate paired", .usage = usage,
		.table = table, .operand = "DESIGN", .min = 1, .max = 1, .parent = &top };
	const struct opt_cmd *const subs[] = { &paired_cmd, NULL };
	char **ops;
	int nops, rc;

	top = (struct opt_cmd){ .name = "simulate", .usage = usage, .table = none, .dispatch = 1,
		.subs = subs };
	if ((rc = opt_parse(&top, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0 || strcmp(ops[0], "paired") != 0)
		return opt_usage_error(&top, "expected paired");
	if ((rc = opt_parse(&paired_cmd, nops, ops, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	return paired(&paired_cmd, seed, dir, out, ops[0]);
}
