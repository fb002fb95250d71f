/* fit.c: `cohort fit`: joint Davidson ratings with profile-likelihood
 * intervals from a freeze or a blocks document. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../common/io.h"
#include "../fit/fit.h"
#include "../json/json.h"
#include "cmd.h"

static const char usage[] =
    "usage: cohort fit [--level P] [--black-penalty N|estimate] [--sensitivity N,N,...]\n"
    "                  [--format json|table] [-o FILE] FILE\n";

int
cmd_fit(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"level", required_argument, NULL, 'L'},
	    {"black-penalty", required_argument, NULL, 'p'},
	    {"sensitivity", required_argument, NULL, 's'},
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct err e = ERR_INIT;
	struct fit_options fo;
	const char *level = NULL, *pen = NULL, *sens = NULL, *format = NULL, *out = NULL, *in;
	int c, table = 0, rc = EXIT_HOLDS;
	cJSON *doc, *fit = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		const char **slot = NULL;
		const char *name = NULL;
		switch (c) {
		case 'L':
			slot = &level;
			name = "--level";
			break;
		case 'p':
			slot = &pen;
			name = "--black-penalty";
			break;
		case 's':
			slot = &sens;
			name = "--sensitivity";
			break;
		case 'f':
			slot = &format;
			name = "--format";
			break;
		case 'o':
			slot = &out;
			name = "-o";
			break;
		case 'h': return cmd_help(usage);
		case ':':
			return cmd_usage_error("fit", usage, "option '%s' needs a value",
			                       argv[optind - 1]);
		default:
			return cmd_usage_error("fit", usage, "unknown option '%s'",
			                       argv[optind - 1]);
		}
		if (*slot != NULL)
			return cmd_usage_error("fit", usage, "%s given twice", name);
		*slot = optarg;
	}
	if (format != NULL && strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
		return cmd_usage_error("fit", usage, "--format: expected json or table, got '%s'",
		                       format);
	table = format != NULL && strcmp(format, "table") == 0;
	if (argc - optind != 1)
		return cmd_usage_error("fit", usage, "expected one FILE");
	in = argv[optind];
	fit_options_init(&fo);
	if (fit_options_parse(&fo, level, pen, sens, &e) < 0)
		return cmd_usage_error("fit", usage, "%s", e.msg);

	doc = json_parse_file(in, &e);
	if (doc == NULL)
		return cmd_fail("fit", &e);
	if (fit_run(doc, &fo, &fit, &e) < 0) {
		if (e.code == ERR_INPUT || e.code == ERR_NUMERIC)
			err_prefix(&e, "%s", io_name(in));
		rc = cmd_fail("fit", &e);
	} else if (table) {
		struct buf b = BUF_INIT;
		if (fit_table(fit, &b, &e) < 0 || io_write_all(out, b.p ? b.p : "", b.len, &e) < 0)
			rc = cmd_fail("fit", &e);
		buf_release(&b);
	} else if (json_emit(fit, out, &e) < 0) {
		rc = cmd_fail("fit", &e);
	}
	cJSON_Delete(fit);
	cJSON_Delete(doc);
	return rc;
}
