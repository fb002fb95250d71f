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
		{ "level", 0, &level, NULL, NULL, 0 },
		{ "one-sided", 0, NULL, &o.one_sided, NULL, 0 },
		{ "format", 0, &format, NULL, NULL, 0 },
		{ "output", 'o', &out, NULL, NULL, 0 },
		{ NULL, 0, NULL, NULL, NULL, 0 },
	};
	struct blocks c = BLOCKS_INIT;
	struct err e = ERR_INIT;
	cJSON *in = NULL, *doc = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse("bound", usage, table, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format("bound", usage, format)) < 0)
		return EXIT_ERROR;
	if (level != NULL && rules_level_parse(level, "--level", &o.level, &e) < 0)
		return opt_usage_error("bound", usage, "%s", e.msg);
	if (nops != 1)
		return opt_usage_error("bound", usage, "expected one FILE");
	rc = (in = json_parse_file(ops[0], &e)) == NULL ||
	    bound_blocks_read(in, io_name(ops[0]), &c, &e) < 0 || bound_document(&c, &o, &doc, &e) < 0 ||
	    opt_emit(doc, tab, bound_table, out, &e) < 0;
	cJSON_Delete(doc);
	blocks_release(&c);
	cJSON_Delete(in);
	return rc ? cmd_fail("bound", &e) : EXIT_HOLDS;
}
