/* ladder.c: `cohort ladder next` (the policy's next anchor for one
 * condition) and `cohort ladder simulate` (the provider-free audit). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../fit/ladderdoc.h"
#include "../fit/sim.h"
#include "../protocol/rules.h"
#include "cmd.h"

/* clang-format off */
static const char usage[] =
"usage: cohort ladder next --condition NAME [--family NAME] [--spec SPEC] [--format json|table]\n"
"           [-o FILE] FILE\n"
"       cohort ladder simulate --spec SPEC --truth LO:HI:STEP --starts LIST --reps N --seed S\n"
"           [--nu V] [--level P] [--jobs J] [--emit-ledger FILE] [--emit-spec FILE]\n"
"           [--emit-requests FILE] [--emit-billing FILE] [--format json|table] [-o FILE]\n";
/* clang-format on */

#define MAX_STARTS 64

enum {
	O_COND = 256,
	O_SPEC,
	O_FORMAT,
	O_TRUTH,
	O_STARTS,
	O_REPS,
	O_SEED,
	O_NU,
	O_LEVEL,
	O_JOBS,
	O_LEDGER,
	O_ESPEC,
	O_EREQ,
	O_EBILL,
	O_OUT,
	O_FAMILY,
	O_N
};

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

int
cmd_ladder(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"condition", required_argument, NULL, O_COND},
	    {"spec", required_argument, NULL, O_SPEC},
	    {"format", required_argument, NULL, O_FORMAT},
	    {"truth", required_argument, NULL, O_TRUTH},
	    {"starts", required_argument, NULL, O_STARTS},
	    {"reps", required_argument, NULL, O_REPS},
	    {"seed", required_argument, NULL, O_SEED},
	    {"nu", required_argument, NULL, O_NU},
	    {"level", required_argument, NULL, O_LEVEL},
	    {"jobs", required_argument, NULL, O_JOBS},
	    {"emit-ledger", required_argument, NULL, O_LEDGER},
	    {"emit-spec", required_argument, NULL, O_ESPEC},
	    {"emit-requests", required_argument, NULL, O_EREQ},
	    {"emit-billing", required_argument, NULL, O_EBILL},
	    {"output", required_argument, NULL, O_OUT},
	    {"family", required_argument, NULL, O_FAMILY},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const char *const names[O_N - O_COND] = {
	    "--condition",     "--spec",         "--format",
	    "--truth",         "--starts",       "--reps",
	    "--seed",          "--nu",           "--level",
	    "--jobs",          "--emit-ledger",  "--emit-spec",
	    "--emit-requests", "--emit-billing", "-o", "--family"};
	const char *val[O_N - O_COND] = {0};
	static const int sim_only[] = {O_TRUTH, O_STARTS, O_REPS,  O_SEED, O_NU,   O_LEVEL,
	                               O_JOBS,  O_LEDGER, O_ESPEC, O_EREQ, O_EBILL};
	double starts[MAX_STARTS], x;
	struct err e = ERR_INIT;
	int c, simulate, table = 0;
	char *end;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cmd_help(usage);
	if (argc < 2 || (strcmp(argv[1], "next") != 0 && strcmp(argv[1], "simulate") != 0))
		return cmd_usage_error("ladder", usage, "expected next or simulate");
	simulate = strcmp(argv[1], "simulate") == 0;
	argc--, argv++;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		if (c == 'o')
			c = O_OUT;
		if (c == 'h')
			return cmd_help(usage);
		if (c < O_COND || c >= O_N)
			return cmd_usage_error("ladder", usage,
			                       "unknown option or missing value '%s'",
			                       argv[optind - 1]);
		if (val[c - O_COND])
			return cmd_usage_error("ladder", usage, "%s given twice",
			                       names[c - O_COND]);
		val[c - O_COND] = optarg;
	}
	if (val[O_FORMAT - O_COND]) {
		if (strcmp(val[O_FORMAT - O_COND], "table") == 0)
			table = 1;
		else if (strcmp(val[O_FORMAT - O_COND], "json") != 0)
			return cmd_usage_error("ladder", usage, "--format: expected json or table");
	}
	if (!simulate) {
		struct ladder_next_options o = {NULL, val[O_SPEC - O_COND], val[O_COND - O_COND],
		                                val[O_FAMILY - O_COND], table, val[O_OUT - O_COND]};
		for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++)
			if (val[sim_only[i] - O_COND])
				return cmd_usage_error("ladder", usage,
				                       "%s belongs to ladder simulate",
				                       names[sim_only[i] - O_COND]);
		if (o.condition == NULL)
			return cmd_usage_error("ladder", usage, "ladder next needs --condition");
		if (argc - optind != 1)
			return cmd_usage_error("ladder", usage, "ladder next: expected one FILE");
		o.path = argv[optind];
		if (ladder_next_run(&o, &e) < 0)
			return cmd_fail("ladder", &e);
		return EXIT_HOLDS;
	}
	{
		struct sim_options o;
		memset(&o, 0, sizeof o);
		if (val[O_COND - O_COND] || val[O_FAMILY - O_COND])
			return cmd_usage_error("ladder", usage, "%s belongs to ladder next",
			                       val[O_COND - O_COND] ? "--condition" : "--family");
		if (argc - optind != 0)
			return cmd_usage_error("ladder", usage, "ladder simulate takes no FILE");
		for (int k = O_SPEC; k <= O_SEED; k++)
			if (k != O_FORMAT && !val[k - O_COND])
				return cmd_usage_error("ladder", usage, "ladder simulate needs %s",
				                       names[k - O_COND]);
		o.spec_path = val[O_SPEC - O_COND];
		if (parse_truth(val[O_TRUTH - O_COND], &o.lo, &o.hi, &o.step) < 0)
			return cmd_usage_error("ladder", usage,
			                       "--truth: expected LO:HI:STEP, not '%s'",
			                       val[O_TRUTH - O_COND]);
		if (parse_starts(val[O_STARTS - O_COND], starts, &o.nstarts) < 0)
			return cmd_usage_error("ladder", usage,
			                       "--starts: expected up to %d numbers "
			                       "separated by commas, not '%s'",
			                       MAX_STARTS, val[O_STARTS - O_COND]);
		o.starts = starts;
		errno = 0;
		o.reps = strtol(val[O_REPS - O_COND], &end, 10);
		if (end == val[O_REPS - O_COND] || *end || errno || o.reps < 1 ||
		    o.reps > 100000000)
			return cmd_usage_error("ladder", usage,
			                       "--reps: expected a whole number from 1 "
			                       "to 100000000, not '%s'",
			                       val[O_REPS - O_COND]);
		errno = 0;
		o.seed = strtoull(val[O_SEED - O_COND], &end, 10);
		if (!isdigit((unsigned char)val[O_SEED - O_COND][0]) || *end || errno)
			return cmd_usage_error("ladder", usage,
			                       "--seed: expected a whole number from 0 "
			                       "to 2^64-1, not '%s'",
			                       val[O_SEED - O_COND]);
		o.nu = 1.02;
		if (val[O_NU - O_COND] && (parse_num(val[O_NU - O_COND], &o.nu) < 0 || !(o.nu > 0)))
			return cmd_usage_error("ladder", usage,
			                       "--nu: expected a positive number, not "
			                       "'%s'",
			                       val[O_NU - O_COND]);
		o.level = 0.95;
		if (val[O_LEVEL - O_COND] &&
		    rules_level_parse(val[O_LEVEL - O_COND], "--level", &o.level, &e) < 0)
			return cmd_usage_error("ladder", usage, "%s", e.msg);
		if (val[O_JOBS - O_COND]) {
			if (parse_num(val[O_JOBS - O_COND], &x) < 0 || x != (int)x || x < 1 ||
			    x > 256)
				return cmd_usage_error("ladder", usage,
				                       "--jobs: expected 1 to 256, not "
				                       "'%s'",
				                       val[O_JOBS - O_COND]);
			o.jobs = (int)x;
		}
		o.ledger = val[O_LEDGER - O_COND];
		o.emit_spec = val[O_ESPEC - O_COND];
		o.requests = val[O_EREQ - O_COND];
		o.billing = val[O_EBILL - O_COND];
		o.table = table;
		o.out = val[O_OUT - O_COND];
		if (sim_run(&o, &e) < 0)
			return cmd_fail("ladder", &e);
		return EXIT_HOLDS;
	}
}
