/* candidates.c: `cohort candidates build` (a UCI engine's candidates for
 * paired positions, as a cohort.candidates/1 manifest) and `cohort
 * candidates verify` (a manifest checked, and analysed again). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../paired/candbuild.h"
#include "../paired/candcheck.h"
#include "cmd.h"
#include "opt.h"

/* clang-format off */
#define BUILD_SYNOPSIS \
"cohort candidates build --engine PATH --nodes N [--multipv K] [--evals]\n" \
"           [--option NAME=VALUE]... [--timeout S] [--name NAME] [-o FILE] POSITIONS\n"
#define VERIFY_SYNOPSIS \
"cohort candidates verify [--engine PATH] [--sample N] [--seed S] [--timeout S]\n" \
"           [--format json|table] [-o FILE] MANIFEST\n"
static const char usage[] = "usage: " BUILD_SYNOPSIS "       " VERIFY_SYNOPSIS;
static const char build_usage[] = "usage: " BUILD_SYNOPSIS;
static const char verify_usage[] = "usage: " VERIFY_SYNOPSIS;
/* clang-format on */

/* The whole text a whole number within lo..hi. */
static int
whole(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	*out = strtoull(s, &end, 10);
	return *end == '\0' && errno == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

static int
seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0 && isfinite(*out) && *out > 0 && *out <= 1e6
	    ? 0 : -1;
}

static void
progress(void *ctx, size_t done, size_t total)
{
	fprintf(stderr, "\rcohort candidates: %s %zu/%zu positions", (const char *)ctx, done, total);
}

/* What the command line gave, as text; the shells below read it. */
struct args {
	const char *engine, *nodes, *multipv, *timeout, *name, *out, *sample, *seed, *format;
	int evals;
	struct opt_list options;
};

static int
build(const struct opt_cmd *c, struct args *a, const char *positions)
{
	const char *engine = a->engine, *nodes = a->nodes, *multipv = a->multipv,
	           *timeout = a->timeout, *name = a->name, *out = a->out;
	struct opt_list options = a->options;
	struct candbuild_option opts[OPT_MAX_LIST];
	struct candbuild_opts o = { 0 };
	struct err e = ERR_INIT;
	unsigned long long v;
	int rc;

	o.evals = a->evals;
	o.setup.engine = engine;
	if (whole(nodes, 1, CANDBUILD_NODES_MAX, &v) < 0)
		return opt_usage_error(c, "--nodes: expected a whole number from 1 "
		    "to %llu", (unsigned long long)CANDBUILD_NODES_MAX);
	o.setup.nodes = v;
	o.setup.multipv = CANDBUILD_MULTIPV;
	if (multipv != NULL && whole(multipv, 1, CANDBUILD_MULTIPV_MAX, &v) < 0)
		return opt_usage_error(c, "--multipv: expected a whole number from 1 "
		    "to %d", CANDBUILD_MULTIPV_MAX);
	if (multipv != NULL)
		o.setup.multipv = (int)v;
	if (timeout != NULL && seconds(timeout, &o.setup.timeout_s) < 0)
		return opt_usage_error(c, "--timeout: expected seconds above 0");
	for (size_t i = 0; i < options.n; i++) {
		const char *eq = strchr(options.v[i], '=');
		if (eq == NULL || eq == options.v[i])
			return opt_usage_error(c, "--option: expected NAME=VALUE, got "
			    "'%s'", options.v[i]);
		/* the value is after the first '=': a name with '=' cannot be set */
		opts[i].value = eq + 1;
		if ((opts[i].name = strndup(options.v[i], (size_t)(eq - options.v[i]))) == NULL) {
			options.n = i;
			err_set(&e, ERR_NOMEM, "out of memory");
			break;
		}
	}
	if (e.code != ERR_OK) {
		for (size_t i = 0; i < options.n; i++)
			free((char *)opts[i].name);
		return cmd_fail("candidates", &e);
	}
	o.setup.opts = opts;
	o.setup.nopts = options.n;
	o.setup.defaults = 1;
	o.positions = positions;
	o.name = name;
	o.out = out;
	if (isatty(STDERR_FILENO)) {
		o.progress = progress;
		o.progress_ctx = "build";
	}
	rc = candbuild_run(&o, &e);
	if (o.progress)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < options.n; i++)
		free((char *)opts[i].name);
	return rc < 0 ? cmd_fail("candidates", &e) : EXIT_HOLDS;
}

static int
verify(const struct opt_cmd *c, struct args *a, const char *manifest)
{
	const char *engine = a->engine, *sample = a->sample, *seed = a->seed, *timeout = a->timeout,
	           *format = a->format, *out = a->out;
	struct candcheck_opts o = { 0 };
	struct err e = ERR_INIT;
	unsigned long long v;
	cJSON *report = NULL;
	int rc, tab;

	if ((tab = opt_format(c, format)) < 0)
		return EXIT_ERROR;
	if ((sample != NULL || seed != NULL || timeout != NULL) && engine == NULL)
		return opt_usage_error(c, "--sample, --seed and --timeout need "
		    "--engine");
	if (seed != NULL && sample == NULL)
		return opt_usage_error(c, "--seed needs --sample");
	if (sample != NULL && whole(sample, 1, (unsigned long long)CANDBUILD_MAX_POSITIONS, &v) < 0)
		return opt_usage_error(c, "--sample: expected a whole number from 1 "
		    "to %d", CANDBUILD_MAX_POSITIONS);
	o.sample = sample ? (size_t)v : 0;
	if (seed != NULL && whole(seed, 0, UINT64_MAX, &v) < 0)
		return opt_usage_error(c, "--seed: expected a whole number from 0 "
		    "to 2^64-1");
	o.seed = seed ? v : 0;
	if (timeout != NULL && seconds(timeout, &o.timeout_s) < 0)
		return opt_usage_error(c, "--timeout: expected seconds above 0");
	o.manifest = manifest;
	o.engine = engine;
	if (engine != NULL && isatty(STDERR_FILENO)) {
		o.progress = progress;
		o.progress_ctx = "verify";
	}
	rc = candcheck_run(&o, &report, &e);
	if (o.progress)
		fputs("\r\033[K", stderr);
	if (rc >= 0 && opt_emit(report, tab, candcheck_table, out, &e) < 0)
		rc = -1;
	cJSON_Delete(report);
	return rc < 0 ? cmd_fail("candidates", &e) : rc;
}

int
cmd_candidates(int argc, char **argv)
{
	struct args a = { 0 };
	const struct opt build_table[] = {
		{ .name = "engine", .arg = "PATH", .value = &a.engine, .required = 1,
		    .help = "the UCI engine to run" },
		{ .name = "nodes", .arg = "N", .value = &a.nodes, .required = 1,
		    .help = "nodes per search (go nodes N)" },
		{ .name = "multipv", .arg = "K", .value = &a.multipv,
		    .help = "candidates per position, 1 to 256 (default 10)" },
		{ .name = "evals", .flag = &a.evals, .help = "also search every other legal move alone" },
		{ .name = "option", .arg = "NAME=VALUE", .list = &a.options,
		    .help = "an engine option (Threads 1, Hash 16 unless given)" },
		{ .name = "timeout", .arg = "S", .value = &a.timeout,
		    .help = "seconds a search may take (default 60)" },
		{ .name = "name", .arg = "NAME", .value = &a.name,
		    .help = "the manifest's name (default: from POSITIONS)" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt verify_table[] = {
		{ .name = "engine", .arg = "PATH", .value = &a.engine,
		    .help = "analyse the positions again and compare" },
		{ .name = "sample", .arg = "N", .value = &a.sample,
		    .help = "only a seeded sample of N positions" },
		{ .name = "seed", .arg = "S", .value = &a.seed, .help = "the sample's seed (default 0)" },
		{ .name = "timeout", .arg = "S", .value = &a.timeout,
		    .help = "seconds a search may take (default 60)" },
		{ .name = "format", .arg = "json|table", .value = &a.format,
		    .help = "cohort.verify/1 (default) or a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt none[] = { { .name = NULL } };
	struct opt_cmd top;
	const struct opt_cmd build_cmd = { .name = "candidates build", .usage = build_usage,
		.table = build_table, .operand = "POSITIONS", .min = 1, .max = 1, .parent = &top };
	const struct opt_cmd verify_cmd = { .name = "candidates verify", .usage = verify_usage,
		.table = verify_table, .operand = "MANIFEST", .min = 1, .max = 1, .parent = &top };
	const struct opt_cmd *const subs[] = { &build_cmd, &verify_cmd, NULL };
	char **ops;
	int nops, rc;

	top = (struct opt_cmd){ .name = "candidates", .usage = usage, .table = none, .dispatch = 1,
		.subs = subs };
	if ((rc = opt_parse(&top, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0 || (strcmp(ops[0], "build") != 0 && strcmp(ops[0], "verify") != 0))
		return opt_usage_error(&top, "expected build or verify");
	if (strcmp(ops[0], "build") == 0) {
		if ((rc = opt_parse(&build_cmd, nops, ops, &ops, &nops)) != OPT_OK)
			return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
		return build(&build_cmd, &a, ops[0]);
	}
	if ((rc = opt_parse(&verify_cmd, nops, ops, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	return verify(&verify_cmd, &a, ops[0]);
}
