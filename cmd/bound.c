/* bound.c: `cohort bound`: exact score and rating bounds per block and per
 * condition of a freeze or a blocks document. */
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../fit/bound.h"
#include "../protocol/rules.h"
#include "../json/json.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort bound [--level P] [--one-sided] [--format json|table] [-o FILE] FILE\n";

int
cmd_bound(int argc, char **argv)
{
	const char *out = NULL, *level = NULL, *format = NULL;
	struct bound_options o = { 0.95, 0 };
	const struct opt table[] = {
		{ .name = "level", .arg = "P", .value = &level,
		    .help = "confidence level, 0.001 to 0.999999 (default 0.95)" },
		{ .name = "one-sided", .flag = &o.one_sided,
		    .help = "one-sided bounds at level P, not two-sided intervals" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "the cohort.bound/1 document (default) or a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "bound", .usage = usage, .table = table,
		.operand = "FILE", .min = 1, .max = 1 };
	struct blocks b = BLOCKS_INIT;
	struct err e = ERR_INIT;
	cJSON *in = NULL, *doc = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	if (level != NULL && rules_level_parse(level, "--level", &o.level, &e) < 0)
		return opt_usage_error(&c, "%s", e.msg);
	rc = (in = json_parse_file(ops[0], &e)) == NULL ||
	    bound_blocks_read(in, io_name(ops[0]), NULL, &b, &e) < 0 || bound_document(&b, &o, &doc, &e) < 0 ||
	    opt_emit(doc, tab, bound_table, out, &e) < 0;
	cJSON_Delete(doc);
	blocks_release(&b);
	cJSON_Delete(in);
	return rc ? cmd_fail("bound", &e) : EXIT_HOLDS;
}
