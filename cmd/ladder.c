/* ladder.c: `cohort ladder next` (the policy's next anchor for one
 * condition) and `cohort ladder simulate` (the provider-free audit). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fit/ladderdoc.h"
#include "../fit/sim.h"
#include "../protocol/rules.h"
#include "cmd.h"
#include "opt.h"

/* clang-format off */
#define NEXT_SYNOPSIS \
"cohort ladder next --condition NAME [--family NAME] [--spec SPEC] [--format json|table]\n" \
"           [-o FILE] FILE\n"
#define SIMULATE_SYNOPSIS \
"cohort ladder simulate --spec SPEC --truth LO:HI:STEP --starts LIST --reps N --seed S\n" \
"           [--nu V] [--level P] [--jobs J] [--emit-ledger FILE] [--emit-spec FILE]\n" \
"           [--emit-requests FILE] [--emit-billing FILE] [--shard I/N]\n" \
"           [--format json|table] [-o FILE]\n"
static const char usage[] = "usage: " NEXT_SYNOPSIS "       " SIMULATE_SYNOPSIS;
static const char next_usage[] = "usage: " NEXT_SYNOPSIS;
static const char simulate_usage[] = "usage: " SIMULATE_SYNOPSIS;
/* clang-format on */

#define MAX_STARTS 64

/* What the command line gave, as text; the shells below read it. */
struct args {
	const char *condition, *family, *spec, *format, *out;
	const char *truth, *starts, *reps, *seed, *nu, *level, *jobs, *shard;
	const char *emit[4]; /* ledger, spec, requests, billing */
};

static const char *const emit_names[4] = { "--emit-ledger", "--emit-spec", "--emit-requests",
	"--emit-billing" };

static int
parse_num(const char *s, double *x)
{
	char *end;

	errno = 0;
	*x = strtod(s, &end);
	return end != s && *end == 0 && errno == 0 && isfinite(*x) ? 0 : -1;
}

static int
parse_truth(const char *s, double *lo, double *hi, double *step)
{
	char b[3][64];
	const char *p = s;

	for (int i = 0; i < 3; i++) {
		size_t n = strcspn(p, ":");
		if (n == 0 || n >= sizeof b[i] || (i < 2 && p[n] != ':') || (i == 2 && p[n]))
			return -1;
		memcpy(b[i], p, n);
		b[i][n] = 0;
		p += n + (i < 2);
	}
	return parse_num(b[0], lo) < 0 || parse_num(b[1], hi) < 0 || parse_num(b[2], step) < 0 ? -1
	                                                                                       : 0;
}

static int
parse_starts(const char *s, double *v, size_t *n)
{
	*n = 0;
	for (;;) {
		char b[64];
		size_t k = strcspn(s, ",");
		if (k == 0 || k >= sizeof b || *n == MAX_STARTS)
			return -1;
		memcpy(b, s, k);
		b[k] = 0;
		if (parse_num(b, &v[(*n)++]) < 0)
			return -1;
		if (s[k] == 0)
			return 0;
		s += k + 1;
	}
}

static int
next(const struct opt_cmd *c, const struct args *a, const char *path)
{
	struct ladder_next_options o = { path, a->spec, a->condition, a->family };
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	int tab, rc;

	if ((tab = opt_format(c, a->format)) < 0)
		return EXIT_ERROR;
	rc = ladder_next_run(&o, &doc, &e) < 0 || opt_emit(doc, tab, ladder_next_table, a->out, &e) < 0;
	cJSON_Delete(doc);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

/* The simulation's options from their text; a usage error names the first
 * that is wrong. */
static int
simulate_options(const struct opt_cmd *c, const struct args *a, struct sim_options *o,
    double *starts, struct err *e)
{
	char *end;
	double x;

	memset(o, 0, sizeof *o);
	o->spec_path = a->spec;
	if (parse_truth(a->truth, &o->lo, &o->hi, &o->step) < 0)
		return opt_usage_error(c, "--truth: expected LO:HI:STEP, got '%s'", a->truth);
	if (parse_starts(a->starts, starts, &o->nstarts) < 0)
		return opt_usage_error(c,
		    "--starts: expected up to %d numbers separated by commas, got '%s'", MAX_STARTS,
		    a->starts);
	o->starts = starts;
	errno = 0;
	o->reps = strtol(a->reps, &end, 10);
	if (end == a->reps || *end || errno || o->reps < 1 || o->reps > 100000000)
		return opt_usage_error(c,
		    "--reps: expected a whole number from 1 to 100000000, got '%s'", a->reps);
	errno = 0;
	o->seed = strtoull(a->seed, &end, 10);
	if (!isdigit((unsigned char)a->seed[0]) || *end || errno)
		return opt_usage_error(c, "--seed: expected a whole number from 0 to 2^64-1, got '%s'",
		    a->seed);
	o->nu = 1.02;
	if (a->nu && (parse_num(a->nu, &o->nu) < 0 || !(o->nu > 0)))
		return opt_usage_error(c, "--nu: expected a positive number, got '%s'", a->nu);
	o->level = 0.95;
	if (a->level && rules_level_parse(a->level, "--level", &o->level, e) < 0)
		return opt_usage_error(c, "%s", e->msg);
	if (a->jobs) {
		if (parse_num(a->jobs, &x) < 0 || x != (int)x || x < 1 || x > 256)
			return opt_usage_error(c, "--jobs: expected 1 to 256, got '%s'", a->jobs);
		o->jobs = (int)x;
	}
	/* The audit document alone goes to standard output. */
	for (int i = 0; i < 4; i++)
		if (a->emit[i] && strcmp(a->emit[i], "-") == 0)
			return opt_usage_error(c, "%s: expected a file name", emit_names[i]);
	o->ledger = a->emit[0];
	o->emit_spec = a->emit[1];
	o->requests = a->emit[2];
	o->billing = a->emit[3];
	if (a->shard && part_shard_parse(a->shard, "--shard", &o->shard, e) < 0)
		return opt_usage_error(c, "%s", e->msg);
	return 0;
}

static int
simulate(const struct opt_cmd *c, const struct args *a)
{
	double starts[MAX_STARTS];
	struct sim_options o;
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	int tab, rc;

	if ((tab = opt_format(c, a->format)) < 0 || simulate_options(c, a, &o, starts, &e) != 0)
		return EXIT_ERROR;
	rc = sim_run(&o, &doc, &e) < 0 || opt_emit(doc, tab, sim_table, a->out, &e) < 0;
	cJSON_Delete(doc);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

int
cmd_ladder(int argc, char **argv)
{
	struct args a = { 0 };
	const struct opt next_table[] = {
		{ .name = "condition", .arg = "NAME", .value = &a.condition, .required = 1,
		    .help = "the condition to replay" },
		{ .name = "family", .arg = "NAME", .value = &a.family,
		    .help = "its family, when several families have the condition" },
		{ .name = "spec", .arg = "SPEC", .value = &a.spec,
		    .help = "the spec a blocks document needs (a freeze has its own)" },
		{ .name = "format", .arg = "json|table", .value = &a.format,
		    .help = "cohort.ladder-next/1 (default) or a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt simulate_table[] = {
		{ .name = "spec", .arg = "SPEC", .value = &a.spec, .required = 1,
		    .help = "the cohort spec: its ladder, color and black penalty" },
		{ .name = "truth", .arg = "LO:HI:STEP", .value = &a.truth, .required = 1,
		    .help = "the true ratings, LO to HI by STEP" },
		{ .name = "starts", .arg = "LIST", .value = &a.starts, .required = 1,
		    .help = "starting anchors, separated by commas" },
		{ .name = "reps", .arg = "N", .value = &a.reps, .required = 1,
		    .help = "ladders per start and truth" },
		{ .name = "seed", .arg = "S", .value = &a.seed, .required = 1,
		    .help = "the seed, 0 to 2^64-1" },
		{ .name = "nu", .arg = "V", .value = &a.nu,
		    .help = "the true draw parameter (default 1.02)" },
		{ .name = "level", .arg = "P", .value = &a.level,
		    .help = "interval level, 0.001 to 0.999999 (default 0.95)" },
		{ .name = "jobs", .arg = "J", .value = &a.jobs,
		    .help = "threads, 1 to 256 (default: the online cores)" },
		{ .name = "emit-ledger", .out = 1, .arg = "FILE", .value = &a.emit[0],
		    .help = "also write the simulated games as a ledger" },
		{ .name = "emit-spec", .out = 1, .arg = "FILE", .value = &a.emit[1],
		    .help = "also write the spec of that ledger" },
		{ .name = "emit-requests", .out = 1, .arg = "FILE", .value = &a.emit[2],
		    .help = "also write its request log" },
		{ .name = "emit-billing", .out = 1, .arg = "FILE", .value = &a.emit[3],
		    .help = "also write its billing export (CSV)" },
		{ .name = "shard", .arg = "I/N", .value = &a.shard,
		    .excludes = "emit-ledger emit-spec emit-requests emit-billing format",
		    .help = "compute shard I of N: a cohort.part/1 for cohort merge" },
		{ .name = "format", .arg = "json|table", .value = &a.format,
		    .help = "cohort.ladder-audit/1 (default) or a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt none[] = { { .name = NULL } };
	struct opt_cmd ladder;
	const struct opt_cmd next_cmd = { .name = "ladder next", .usage = next_usage,
		.table = next_table, .operand = "FILE", .min = 1, .max = 1, .parent = &ladder };
	const struct opt_cmd simulate_cmd = { .name = "ladder simulate", .usage = simulate_usage,
		.table = simulate_table, .parent = &ladder };
	const struct opt_cmd *const subs[] = { &next_cmd, &simulate_cmd, NULL };
	char **ops;
	int nops, rc;

	ladder = (struct opt_cmd){ .name = "ladder", .usage = usage, .table = none,
		.dispatch = 1, .subs = subs };
	if ((rc = opt_parse(&ladder, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0 || (strcmp(ops[0], "next") != 0 && strcmp(ops[0], "simulate") != 0))
		return opt_usage_error(&ladder, "expected next or simulate");
	if (strcmp(ops[0], "next") == 0) {
		if ((rc = opt_parse(&next_cmd, nops, ops, &ops, &nops)) != OPT_OK)
			return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
		return next(&next_cmd, &a, ops[0]);
	}
	if ((rc = opt_parse(&simulate_cmd, nops, ops, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	return simulate(&simulate_cmd, &a);
}
