/* fit.c: `cohort fit`: joint Davidson ratings with profile-likelihood
 * intervals from a freeze or a blocks document. */
#include "../common/io.h"
#include "../fit/fit.h"
#include "../json/json.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort fit [--level P] [--black-penalty N|estimate] [--sensitivity N,N,...]\n"
    "                  [--pairs] [--format json|table] [-o FILE] FILE\n";

int
cmd_fit(int argc, char **argv)
{
	const char *level = NULL, *pen = NULL, *sens = NULL, *format = NULL, *out = NULL;
	int pairs = 0;
	const struct opt table[] = {
		{ .name = "level", .arg = "P", .value = &level,
		    .help = "interval level, 0.001 to 0.999999 (default 0.95)" },
		{ .name = "black-penalty", .arg = "N|estimate", .value = &pen,
		    .help = "the Elo handicap of a Black game, or estimate it" },
		{ .name = "sensitivity", .arg = "N,N,...", .value = &sens,
		    .help = "penalties for sensitivity rows (default 0,35,70)" },
		{ .name = "pairs", .flag = &pairs,
		    .help = "pair-aware intervals and pentanomial counts" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.fit/1 (default) or the rating table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "fit", .usage = usage, .table = table,
		.operand = "FILE", .min = 1, .max = 1 };
	struct err e = ERR_INIT;
	struct fit_options fo;
	cJSON *doc = NULL, *fit = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	fit_options_init(&fo);
	if (fit_options_parse(&fo, level, pen, sens, &e) < 0)
		return opt_usage_error(&c, "%s", e.msg);
	fo.pairs = pairs;
	fo.name = io_name(ops[0]);
	rc = (doc = json_parse_file(ops[0], &e)) == NULL || fit_run(doc, &fo, &fit, &e) < 0 ||
	    opt_emit(fit, tab, fit_table, out, &e) < 0;
	cJSON_Delete(fit);
	cJSON_Delete(doc);
	return rc ? cmd_fail("fit", &e) : EXIT_HOLDS;
}
