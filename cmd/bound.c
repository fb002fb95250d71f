/* bound.c: `cohort bound`: exact score and rating bounds per block and per
 * condition of a freeze or a blocks document. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../fit/bound.h"
#include "cmd.h"

static const char usage[] =
    "usage: cohort bound [--level P] [--one-sided] [--format json|table] [-o FILE] FILE\n";

int
cmd_bound(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"level", required_argument, NULL, 'l'},  {"one-sided", no_argument, NULL, '1'},
	    {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct bound_options o = {0.95, 0};
	struct err e = ERR_INIT;
	const char *out = NULL, *level = NULL, *format = NULL;
	int c, table = 0;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (level)
				return cmd_usage_error("bound", usage, "--level given twice");
			level = optarg;
			break;
		case '1':
			if (o.one_sided++)
				return cmd_usage_error("bound", usage, "--one-sided given twice");
			break;
		case 'f':
			if (format)
				return cmd_usage_error("bound", usage, "--format given twice");
			format = optarg;
			break;
		case 'o':
			if (out)
				return cmd_usage_error("bound", usage, "-o given twice");
			out = optarg;
			break;
		case 'h': return cmd_help(usage);
		default:
			return cmd_usage_error("bound", usage,
			                       "unknown option or missing value '%s'",
			                       argv[optind - 1]);
		}
	}
	if (level) {
		o.level = strtod(level, &end);
		if (end == level || *end || !(o.level > 0 && o.level < 1))
			return cmd_usage_error(
			    "bound", usage, "--level: expected a number between 0 and 1, not '%s'",
			    level);
	}
	if (format) {
		if (strcmp(format, "table") == 0)
			table = 1;
		else if (strcmp(format, "json") != 0)
			return cmd_usage_error("bound", usage, "--format: expected json or table");
	}
	if (argc - optind != 1)
		return cmd_usage_error("bound", usage, "expected one FILE");
	if (bound_run(argv[optind], &o, table, out, &e) < 0)
		return cmd_fail("bound", &e);
	return EXIT_HOLDS;
}
