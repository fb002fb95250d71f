/* reconcile.c: `cohort reconcile`: a freeze against game ledgers, request
 * logs and billing exports (cohort.reconcile/1, or a table). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../reconcile/reconcile.h"
#include "cmd.h"

static const char usage[] =
"usage: cohort reconcile --freeze FILE --ledger FILE... --requests FILE...\n"
"         --billing FILE... [--billing-map FILE] [--tolerance T] [--db FILE]\n"
"         [--format json|table] [-o FILE]\n";

#define MAX_INPUTS 256

static int
once(const char **slot, const char *opt)
{
	if (*slot != NULL)
		return cmd_usage_error("reconcile", usage, "%s given twice", opt);
	*slot = optarg;
	return 0;
}

static int
more(const char **list, size_t *n, const char *opt)
{
	if (*n == MAX_INPUTS)
		return cmd_usage_error("reconcile", usage, "more than %d %s files", MAX_INPUTS, opt);
	list[(*n)++] = optarg;
	return 0;
}

int
cmd_reconcile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "freeze", required_argument, NULL, 'f' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "requests", required_argument, NULL, 'r' },
		{ "billing", required_argument, NULL, 'b' },
		{ "billing-map", required_argument, NULL, 'm' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ledgers[MAX_INPUTS], *requests[MAX_INPUTS], *billing[MAX_INPUTS];
	struct recon_opts o = RECON_INIT;
	struct err e = ERR_INIT;
	const char *out = NULL, *format = NULL, *tol = NULL;
	cJSON *report = NULL;
	int c, rc;

	o.ledgers = ledgers;
	o.requests = requests;
	o.billing = billing;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': rc = once(&o.freeze, "--freeze"); break;
		case 'l': rc = more(ledgers, &o.nledgers, "--ledger"); break;
		case 'r': rc = more(requests, &o.nrequests, "--requests"); break;
		case 'b': rc = more(billing, &o.nbilling, "--billing"); break;
		case 'm': rc = once(&o.billing_map, "--billing-map"); break;
		case 't': rc = once(&tol, "--tolerance"); break;
		case 'd': rc = once(&o.db, "--db"); break;
		case 'F': rc = once(&format, "--format"); break;
		case 'o': rc = once(&out, "-o"); break;
		case 'h':
			return cmd_help(usage);
		default:
			return cmd_usage_error("reconcile", usage, "unknown option '%s'",
			    argv[optind - 1]);
		}
		if (rc != 0)
			return rc;
	}
	if (optind < argc)
		return cmd_usage_error("reconcile", usage, "unexpected argument '%s'", argv[optind]);
	if (o.freeze == NULL)
		return cmd_usage_error("reconcile", usage, "--freeze is required");
	if (o.nledgers == 0 || o.nrequests == 0 || o.nbilling == 0)
		return cmd_usage_error("reconcile", usage, "--%s is required",
		    o.nledgers == 0 ? "ledger" : o.nrequests == 0 ? "requests" : "billing");
	if (format != NULL && strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
		return cmd_usage_error("reconcile", usage, "--format: expected json or table");
	if (tol != NULL) {
		char *end;
		o.tolerance = strtod(tol, &end);
		if (*tol == '\0' || *end != '\0' || !isfinite(o.tolerance) || o.tolerance < 0 ||
		    o.tolerance >= 1)
			return cmd_usage_error("reconcile", usage,
			    "--tolerance: expected a fraction from 0 to below 1, like 0.01");
	}
	{
		size_t std = (strcmp(o.freeze, "-") == 0) +
		    (o.billing_map != NULL && strcmp(o.billing_map, "-") == 0);
		for (size_t i = 0; i < o.nledgers; i++)
			std += strcmp(ledgers[i], "-") == 0;
		for (size_t i = 0; i < o.nrequests; i++)
			std += strcmp(requests[i], "-") == 0;
		for (size_t i = 0; i < o.nbilling; i++)
			std += strcmp(billing[i], "-") == 0;
		if (std > 1)
			return cmd_usage_error("reconcile", usage, "only one input can be standard input");
	}
	if (o.db != NULL && strcmp(o.db, "-") == 0)
		return cmd_usage_error("reconcile", usage, "--db: expected a file name");
	o.progress = isatty(2);

	rc = recon_run(&o, &report, &e);
	if (rc < 0)
		return cmd_fail("reconcile", &e);
	if (format != NULL && strcmp(format, "table") == 0) {
		struct buf b = BUF_INIT;
		if (recon_table(report, &b, &e) < 0 || io_write_all(out, b.p, b.len, &e) < 0)
			rc = -1;
		buf_release(&b);
	} else if (json_emit(report, out, &e) < 0) {
		rc = -1;
	}
	cJSON_Delete(report);
	if (rc < 0)
		return cmd_fail("reconcile", &e);
	return rc == 0 ? EXIT_HOLDS : EXIT_FINDINGS;
}
