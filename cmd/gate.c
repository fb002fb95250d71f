/* gate.c: `cohort gate`: judge one of the first seed's analysis gates on
 * the documents it rests on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../gate/gate.h"
#include "../json/json.h"
#include "../protocol/prereg.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort gate A|B|C|D [--prereg PREREG] [--format json|table] [-o FILE]\n"
"                  DOCUMENT...\n";

/* Read every document, judge, write; the exit status. */
static int
run(char g, const char *prereg_path, char **files, int n, int tab, const char *out,
    struct err *e)
{
	cJSON **docs = calloc((size_t)n + 1, sizeof *docs), *doc = NULL;
	const char **names = calloc((size_t)n + 1, sizeof *names);
	struct prereg p = PREREG_INIT;
	char sum[512];
	int rc = -1, pass = 0;

	if (docs == NULL || names == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (prereg_path != NULL && prereg_read(prereg_path, &p, e) < 0)
		goto done;
	for (int i = 0; i < n; i++) {
		names[i] = io_name(files[i]);
		if ((docs[i] = json_parse_file(files[i], e)) == NULL)
			goto done;
	}
	if (gate_document(g, prereg_path ? &p : NULL, (const cJSON *const *)docs, names, (size_t)n,
	    &doc, e) < 0 || opt_emit(doc, tab, gate_table, out, e) < 0)
		goto done;
	pass = gate_passes(doc, &g, e) == 1;
	if (!pass) {
		gate_summary(doc, sum, sizeof sum);
		fprintf(stderr, "cohort gate: %s\n", sum);
	}
	rc = 0;
done:
	for (int i = 0; docs != NULL && i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	free(names);
	cJSON_Delete(doc);
	prereg_release(&p);
	return rc < 0 ? -1 : pass ? EXIT_HOLDS : EXIT_FINDINGS;
}

int
cmd_gate(int argc, char **argv)
{
	const char *out = NULL, *prereg = NULL, *format = NULL;
	const struct opt table[] = {
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.gate/1 (default) or a table of the criteria" },
		{ .name = "prereg", .arg = "PREREG", .value = &prereg,
		    .help = "the preregistration the evidence follows (cohort.prereg/1)" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "gate", .usage = usage, .table = table,
		.operand = "A|B|C|D DOCUMENT", .min = 1, .max = -1 };
	struct err e = ERR_INIT;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	if (strlen(ops[0]) != 1 || !gate_known(ops[0][0]))
		return opt_usage_error(&c, "expected the gate A, B, C or D, got '%s'", ops[0]);
	if (nops < 2)
		return opt_usage_error(&c, "expected at least one DOCUMENT");
	rc = run(ops[0][0], prereg, ops + 1, nops - 1, tab, out, &e);
	return rc < 0 ? cmd_fail("gate", &e) : rc;
}
