/* report.c: `cohort report`: a bundle archive (or the gate's refusal of a
 * bundle spec) as one self-contained HTML page for a reviewer. */
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../review/review.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort report [-o FILE] BUNDLE\n"
    "       cohort report --spec BUNDLE_SPEC [--rules FILE] [-o FILE]\n";

int
cmd_report(int argc, char **argv)
{
	const char *out = NULL, *spec = NULL, *rules = NULL;
	const struct opt table[] = {
		{ .name = "spec", .arg = "BUNDLE_SPEC", .value = &spec,
		    .help = "the gate's answer for a bundle spec: its refusal, or what it would bundle" },
		{ .name = "rules", .arg = "FILE", .value = &rules,
		    .help = "with --spec: more credential rules, as bundle --rules reads them" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the page to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "report", .usage = usage, .table = table,
		.operand = "BUNDLE", .min = 0, .max = 1 };
	struct buf html = BUF_INIT;
	struct err e = ERR_INIT;
	char **ops;
	int nops, rc;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (spec != NULL && nops == 1)
		return opt_usage_error(&c, "--spec and BUNDLE cannot go together");
	if (spec == NULL && nops == 0)
		return opt_usage_error(&c, "expected one BUNDLE, or --spec BUNDLE_SPEC");
	rc = spec ? review_page_spec(spec, rules, out, &html, &e) : review_page_archive(ops[0], &html, &e);
	if (rc >= 0 && io_write_all(out, html.p, html.len, &e) < 0)
		rc = -1;
	buf_release(&html);
	if (rc < 0)
		return cmd_fail("report", &e);
	return rc ? EXIT_FINDINGS : EXIT_HOLDS;
}
