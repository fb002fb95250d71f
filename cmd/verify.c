/* verify.c: `cohort verify`: every hash and every derivation re-checked. */
#include <string.h>

#include "../common/cleanup.h"
#include "../json/json.h"
#include "../review/review.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort verify [--store DIR] [--format json|table] [-o FILE] FILE...\n";

static int
table(const cJSON *report, struct buf *b, struct err *e)
{
	return review_table(report, b) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
cmd_verify(int argc, char **argv)
{
	struct review_opts vo = { 0 };
	const char *out = NULL, *format = NULL;
	const struct opt opts[] = {
		{ .name = "store", .arg = "DIR", .value = &vo.store_dir,
		    .help = "the freezes' object store (default: store beside each)" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "the cohort.verify/1 report (default) or one line a check" },
		{ .name = "output", .letter = 'o', .arg = "FILE", .value = &out,
		    .help = "write the report to FILE atomically" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "verify", .usage = usage, .table = opts,
		.operand = "FILE", .min = 1, .max = -1 };
	struct err e = ERR_INIT;
	cJSON *report = NULL;
	char **ops;
	int nops, rc, tab, nstdin = 0;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	for (int i = 0; i < nops; i++)
		nstdin += strcmp(ops[i], "-") == 0;
	if (nstdin > 1)
		return opt_usage_error(&c, "only one input can be standard input");
	vo.files = (const char **)ops;
	vo.nfiles = (size_t)nops;
	vo.jobs = cmd_jobs();
	/* an archive is extracted into a temporary folder: removed on SIGINT,
	 * SIGTERM and SIGHUP too */
	if (cleanup_start(&e) < 0)
		return cmd_fail("verify", &e);
	if ((rc = review_files(&vo, &report, &e)) >= 0 && opt_emit(report, tab, table, out, &e) < 0)
		rc = -1;
	cJSON_Delete(report);
	return rc < 0 ? cmd_fail("verify", &e) : rc;
}
