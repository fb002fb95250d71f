/* prereg.c: `cohort prereg`: check a preregistration and print its
 * identity. */
#include "../json/json.h"
#include "../protocol/prereg.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort prereg [--format json|table] [-o FILE] FILE\n";

int
cmd_prereg(int argc, char **argv)
{
	const char *out = NULL, *format = NULL;
	const struct opt table[] = {
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.prereg.check/1 (default) or a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "prereg", .usage = usage, .table = table,
		.operand = "FILE", .min = 1, .max = 1 };
	struct prereg p = PREREG_INIT;
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	rc = prereg_read(ops[0], &p, &e) < 0 || (doc = prereg_check_doc(&p, &e)) == NULL ||
	    opt_emit(doc, tab, prereg_check_table, out, &e) < 0;
	cJSON_Delete(doc);
	prereg_release(&p);
	return rc ? cmd_fail("prereg", &e) : EXIT_HOLDS;
}
