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

static int
build(int argc, char **argv)
{
	const char *engine = NULL, *nodes = NULL, *multipv = NULL, *timeout = NULL, *name = NULL,
	           *out = NULL;
	struct opt_list options = { 0 };
	struct candbuild_option opts[OPT_MAX_LIST];
	struct candbuild_opts o = { 0 };
	const struct opt table[] = {
		{ .name = "engine", .value = &engine },
		{ .name = "nodes", .value = &nodes },
		{ .name = "multipv", .value = &multipv },
		{ .name = "evals", .flag = &o.evals },
		{ .name = "option", .list = &options },
		{ .name = "timeout", .value = &timeout },
		{ .name = "name", .value = &name },
		{ .name = "output", .letter = 'o', .value = &out },
		{ .name = NULL },
	};
	struct err e = ERR_INIT;
	unsigned long long v;
	char **ops;
	int nops, rc;

	if ((rc = opt_parse("candidates", usage, table, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (engine == NULL || nodes == NULL)
		return opt_usage_error("candidates", usage, "build needs --engine and --nodes");
	o.setup.engine = engine;
	if (whole(nodes, 1, CANDBUILD_NODES_MAX, &v) < 0)
		return opt_usage_error("candidates", usage, "--nodes: expected a whole number from 1 "
		    "to %llu", (unsigned long long)CANDBUILD_NODES_MAX);
	o.setup.nodes = v;
	o.setup.multipv = CANDBUILD_MULTIPV;
	if (multipv != NULL && whole(multipv, 1, CANDBUILD_MULTIPV_MAX, &v) < 0)
		return opt_usage_error("candidates", usage, "--multipv: expected a whole number from 1 "
		    "to %d", CANDBUILD_MULTIPV_MAX);
	if (multipv != NULL)
		o.setup.multipv = (int)v;
	if (timeout != NULL && seconds(timeout, &o.setup.timeout_s) < 0)
		return opt_usage_error("candidates", usage, "--timeout: expected seconds above 0");
	for (size_t i = 0; i < options.n; i++) {
		const char *eq = strchr(options.v[i], '=');
		if (eq == NULL || eq == options.v[i])
			return opt_usage_error("candidates", usage, "--option: expected NAME=VALUE, got "
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
	if (nops != 1)
		return opt_usage_error("candidates", usage, "build needs one POSITIONS file");
	o.positions = ops[0];
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
verify(int argc, char **argv)
{
	const char *engine = NULL, *sample = NULL, *seed = NULL, *timeout = NULL, *format = NULL,
	           *out = NULL;
	const struct opt table[] = {
		{ .name = "engine", .value = &engine },
		{ .name = "sample", .value = &sample },
		{ .name = "seed", .value = &seed },
		{ .name = "timeout", .value = &timeout },
		{ .name = "format", .value = &format },
		{ .name = "output", .letter = 'o', .value = &out },
		{ .name = NULL },
	};
	struct candcheck_opts o = { 0 };
	struct err e = ERR_INIT;
	unsigned long long v;
	cJSON *report = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse("candidates", usage, table, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format("candidates", usage, format)) < 0)
		return EXIT_ERROR;
	if ((sample != NULL || seed != NULL || timeout != NULL) && engine == NULL)
		return opt_usage_error("candidates", usage, "--sample, --seed and --timeout need "
		    "--engine");
	if (seed != NULL && sample == NULL)
		return opt_usage_error("candidates", usage, "--seed needs --sample");
	if (sample != NULL && whole(sample, 1, (unsigned long long)CANDBUILD_MAX_POSITIONS, &v) < 0)
		return opt_usage_error("candidates", usage, "--sample: expected a whole number from 1 "
		    "to %d", CANDBUILD_MAX_POSITIONS);
	o.sample = sample ? (size_t)v : 0;
	if (seed != NULL && whole(seed, 0, UINT64_MAX, &v) < 0)
		return opt_usage_error("candidates", usage, "--seed: expected a whole number from 0 "
		    "to 2^64-1");
	o.seed = seed ? v : 0;
	if (timeout != NULL && seconds(timeout, &o.timeout_s) < 0)
		return opt_usage_error("candidates", usage, "--timeout: expected seconds above 0");
	if (nops != 1)
		return opt_usage_error("candidates", usage, "verify needs one MANIFEST");
	o.manifest = ops[0];
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
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cmd_help(usage);
	if (argc >= 2 && strcmp(argv[1], "build") == 0)
		return build(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "verify") == 0)
		return verify(argc - 1, argv + 1);
	return opt_usage_error("candidates", usage, "expected build or verify");
}
