/* main.c: the cohort program: dispatches to one command shell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "../common/hash.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort COMMAND [OPTIONS] [ARGS]\n"
"       cohort help [COMMAND [SUBCOMMAND]]\n"
"       cohort --help | --version\n";

static const char commands_text[] =
"commands:\n"
"  canon      print the canonical form (or identity) of a JSON document\n"
"  freeze     freeze game ledgers into a content-addressed cohort manifest\n"
"  verify     re-check every hash and derivation of a freeze, document or bundle\n"
"  reconcile  reconcile a freeze against ledgers, request logs and billing\n"
"  fit        fit joint Davidson ratings with profile-likelihood intervals\n"
"  bound      exact score and rating bounds per block and condition\n"
"  bundle     assemble or check a publication bundle\n"
"  ladder     the adaptive ladder: next anchor, or a simulation audit\n"
"  candidates build or verify a paired positions' engine candidate manifest\n"
"  paired     the paired endpoints of a freeze's decisions\n"
"  prereg     check a preregistration and print its identity\n"
"  fingerprint the registered features of each family, with bootstrap covariance\n"
"  distance   uncertainty-aware distances between fingerprints\n"
"  gate       judge an analysis gate (A to D) on the documents it rests on\n"
"  simulate   paired-position data with known truth, to check the tools against\n"
"  merge      combine the partial documents of a sharded run into the whole\n"
"  import     PGN games into ledger records\n"
"  export     a freeze's games as PGN, or its blocks as a PGN for Ordo\n"
"  sign       a minisign signature of a file, or a new key pair\n"
"  plot       draw a fit, freeze, paired or distance document as deterministic SVG\n"
"  report     a bundle (or a refused bundle spec) as one HTML page for a reviewer\n"
"  help       print a command's help, as COMMAND --help does\n"
"\n"
"exit status: 0 holds, 1 findings, 2 usage or input error\n"
"see cohort(1), and cohort-COMMAND(1) for each command\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{ "canon", cmd_canon },
	{ "freeze", cmd_freeze },
	{ "verify", cmd_verify },
	{ "reconcile", cmd_reconcile },
	{ "fit", cmd_fit },
	{ "bound", cmd_bound },
	{ "bundle", cmd_bundle },
	{ "ladder", cmd_ladder },
	{ "candidates", cmd_candidates },
	{ "paired", cmd_paired },
	{ "prereg", cmd_prereg },
	{ "fingerprint", cmd_fingerprint },
	{ "distance", cmd_distance },
	{ "gate", cmd_gate },
	{ "merge", cmd_merge },
	{ "simulate", cmd_simulate },
	{ "import", cmd_import },
	{ "export", cmd_export },
	{ "sign", cmd_sign },
	{ "plot", cmd_plot },
	{ "report", cmd_report },
};

int
cmd_fail(const char *name, const struct err *e)
{
	opt_say(name, e->msg[0] ? e->msg : "failed");
	return err_exit_status(e) == EXIT_HOLDS ? EXIT_ERROR : err_exit_status(e);
}

static int (*command(const char *name))(int, char **)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].fn;
	return NULL;
}

/* `cohort help [COMMAND [SUBCOMMAND]]`: the program's help, or exactly what
 * `cohort COMMAND [SUBCOMMAND] --help` prints. */
static int
help(const struct opt_cmd *top, int argc, char **argv)
{
	const struct opt none[] = { { .name = NULL } };
	const struct opt_cmd c = { .name = "help",
		.usage = "usage: cohort help [COMMAND [SUBCOMMAND]]\n", .table = none,
		.operand = "COMMAND", .min = 0, .max = -1 };
	char *args[4], **ops;
	int nops, rc;
	int (*fn)(int, char **);

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops > 2)
		return opt_usage_error(&c, "unexpected argument '%s'", ops[2]);
	if (nops == 0 || strcmp(ops[0], "help") == 0) {
		opt_help(nops == 0 ? top : &c);
		return EXIT_HOLDS;
	}
	if ((fn = command(ops[0])) == NULL)
		return opt_usage_error(&c, "unknown command '%s'", ops[0]);
	args[0] = ops[0];
	args[1] = nops == 2 ? ops[1] : "--help";
	args[2] = nops == 2 ? "--help" : NULL;
	args[3] = NULL;
	return fn(nops + 1, args);
}

int
cmd_jobs(void)
{
	const char *s = getenv("COHORT_JOBS");
	char *end;
	long n;

	if (s == NULL || *s == '\0')
		return 0;
	n = strtol(s, &end, 10);
	return *end == '\0' && n >= 1 && n <= 256 ? (int)n : 0;
}

int
main(int argc, char **argv)
{
	int version = 0, nops, rc;
	const struct opt table[] = {
		{ .name = "version", .flag = &version, .help = "print the version and exit" },
		{ .name = NULL },
	};
	const struct opt_cmd top = { .name = NULL, .usage = usage, .table = table,
		.dispatch = 1, .epilogue = commands_text };
	int (*fn)(int, char **);
	struct err e = ERR_INIT;
	char **ops;

	/* GSL's default handler aborts the process; we check every status. */
	gsl_set_error_handler_off();
	if (hash_ready(&e) < 0)
		return cmd_fail("cohort", &e);
	if ((rc = opt_parse(&top, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (version) {
		puts("cohort " COHORT_VERSION);
		return EXIT_HOLDS;
	}
	if (nops == 0)
		return opt_usage_error(&top, "expected a command");
	if (strcmp(ops[0], "help") == 0)
		return help(&top, nops, ops);
	if ((fn = command(ops[0])) == NULL)
		return opt_usage_error(&top, "unknown command '%s'", ops[0]);
	return fn(nops, ops);
}
