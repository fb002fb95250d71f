/* main.c: the cohort program: dispatches to one command shell. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cmd.h"

static const char usage[] =
"usage: cohort COMMAND [OPTIONS] [ARGS]\n"
"       cohort --help | --version\n"
"\n"
"commands:\n"
"  canon      print the canonical form (or identity) of a JSON document\n"
"  freeze     freeze game ledgers into a content-addressed cohort manifest\n"
"  verify     re-check every hash and derivation of a freeze, document or bundle\n"
"  reconcile  reconcile a freeze against ledgers, request logs and billing\n"
"  fit        fit joint Davidson ratings with profile-likelihood intervals\n"
"  bound      exact score and rating bounds per block and condition\n"
"  bundle     assemble or check a publication bundle\n"
"  ladder     the adaptive ladder: next anchor, or a simulation audit\n"
"\n"
"exit status: 0 holds, 1 findings, 2 usage or input error\n"
"see cohort-COMMAND(1) for each command\n";

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
};

int
cmd_fail(const char *name, const struct err *e)
{
	fprintf(stderr, "cohort %s: %s\n", name, e->msg[0] ? e->msg : "failed");
	return err_exit_status(e) == EXIT_HOLDS ? EXIT_ERROR : err_exit_status(e);
}

int
cmd_usage_error(const char *name, const char *use, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cohort %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", use);
	return EXIT_ERROR;
}

int
cmd_help(const char *use)
{
	fputs(use, stdout);
	return EXIT_HOLDS;
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
	/* GSL's default handler aborts the process; we check every status. */
	gsl_set_error_handler_off();
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(usage);
	if (strcmp(argv[1], "--version") == 0) {
		puts("cohort " COHORT_VERSION);
		return EXIT_HOLDS;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "cohort: unknown command '%s'\n%s", argv[1], usage);
	return EXIT_ERROR;
}
