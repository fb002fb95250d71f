/* reconcile.c: `cohort reconcile`: a freeze against game ledgers, request
 * logs and billing exports (cohort.reconcile/1, or a table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../reconcile/reconcile.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort reconcile --freeze FILE --ledger FILE... --requests FILE...\n"
"         --billing FILE... [--billing-map FILE] [--tolerance T] [--db FILE]\n"
"         [--format json|table] [-o FILE]\n";

static void
progress(void *ctx, const char *stage)
{
	(void)ctx;
	fprintf(stderr, "cohort reconcile: %s\n", stage);
}

static size_t
nstdin(const struct opt_list *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += strcmp(l->v[i], "-") == 0;
	return n;
}

int
cmd_reconcile(int argc, char **argv)
{
	struct opt_list ledgers = { 0 }, requests = { 0 }, billing = { 0 };
	struct recon_opts o = RECON_INIT;
	const char *out = NULL, *format = NULL, *tol = NULL;
	const struct opt table[] = {
		{ .name = "freeze", .arg = "FILE", .value = &o.freeze, .required = 1,
		    .help = "the cohort.freeze/1 manifest" },
		{ .name = "ledger", .arg = "FILE", .list = &ledgers, .required = 1,
		    .help = "a game ledger (once per ledger)" },
		{ .name = "requests", .arg = "FILE", .list = &requests, .required = 1,
		    .help = "a request log (once per log)" },
		{ .name = "billing", .arg = "FILE", .list = &billing, .required = 1,
		    .help = "a billing export, CSV or JSON Lines (once per export)" },
		{ .name = "billing-map", .arg = "FILE", .value = &o.billing_map,
		    .help = "billing column names mapped to the provider's (JSON)" },
		{ .name = "tolerance", .arg = "T", .value = &tol,
		    .help = "relative tolerance of billed tokens, below 1 (default 0)" },
		{ .name = "db", .out = 1, .arg = "FILE", .value = &o.db,
		    .help = "keep the SQLite database in FILE" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.reconcile/1 (default) or the efficiency table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the report (or table) to FILE atomically" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "reconcile", .usage = usage, .table = table };
	struct err e = ERR_INIT;
	cJSON *report = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	if (tol != NULL) {
		char *end;
		o.tolerance = strtod(tol, &end);
		if (*tol == '\0' || *end != '\0' || !isfinite(o.tolerance) || o.tolerance < 0 ||
		    o.tolerance >= 1)
			return opt_usage_error(&c,
			    "--tolerance: expected a fraction from 0 to below 1, like 0.01, got '%s'",
			    tol);
	}
	if ((strcmp(o.freeze, "-") == 0) + (o.billing_map && strcmp(o.billing_map, "-") == 0) +
	    nstdin(&ledgers) + nstdin(&requests) + nstdin(&billing) > 1)
		return opt_usage_error(&c, "only one input can be standard input");
	if (o.db != NULL && strcmp(o.db, "-") == 0)
		return opt_usage_error(&c, "--db: expected a file name");
	o.ledgers = ledgers.v;
	o.nledgers = ledgers.n;
	o.requests = requests.v;
	o.nrequests = requests.n;
	o.billing = billing.v;
	o.nbilling = billing.n;
	if (isatty(STDERR_FILENO))
		o.progress = progress;

	rc = recon_run(&o, &report, &e);
	if (rc >= 0 && opt_emit(report, tab, recon_table, out, &e) < 0)
		rc = -1;
	cJSON_Delete(report);
	if (rc < 0)
		return cmd_fail("reconcile", &e);
	return rc == 0 ? EXIT_HOLDS : EXIT_FINDINGS;
}
