/* plot.c: `cohort plot KIND`: a deterministic SVG figure of fit, freeze,
 * paired or distance documents. */
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../plot/plot.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort plot curve [-o FILE] FIT...\n"
    "       cohort plot ladder|sensitivity|paired|distance [-o FILE] DOCUMENT\n";

#define PLOT_MAX_DOCS 32

/* A document's label: its file name without the folder or ".json". */
static void
label_of(const char *path, char *out, size_t n)
{
	const char *b = strrchr(path, '/');
	size_t len;

	b = b ? b + 1 : path;
	if (strcmp(path, "-") == 0)
		b = "stdin";
	len = strlen(b);
	if (len > 5 && strcmp(b + len - 5, ".json") == 0)
		len -= 5;
	if (len >= n)
		len = n - 1;
	memcpy(out, b, len);
	out[len] = '\0';
}

int
cmd_plot(int argc, char **argv)
{
	const char *out = NULL;
	const struct opt table[] = {
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the SVG to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "plot", .usage = usage, .table = table,
		.operand = "KIND", .min = 0, .max = -1,
		.epilogue = "kinds: curve (fits), ladder (a freeze), sensitivity (a fit), paired\n"
		            "(a cohort.paired/1), distance (a cohort.distance/1)\n" };
	struct plot_doc docs[PLOT_MAX_DOCS];
	char labels[PLOT_MAX_DOCS][128];
	cJSON *trees[PLOT_MAX_DOCS] = { 0 };
	struct plot_opts po = { 0 };
	struct buf svg = BUF_INIT;
	struct err e = ERR_INIT;
	enum plot_kind k;
	char **ops;
	int nops, rc, nd, failed = 0;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0)
		return opt_usage_error(&c, "expected a KIND: curve, ladder, sensitivity, paired or "
		                           "distance");
	if (plot_kind_parse(ops[0], &k) < 0)
		return opt_usage_error(&c, "unknown KIND '%s': expected curve, ladder, sensitivity, "
		                           "paired or distance", ops[0]);
	nd = nops - 1;
	if (nd == 0)
		return opt_usage_error(&c, "plot %s: expected a DOCUMENT", ops[0]);
	if (nd > 1 && !plot_kind_many(k))
		return opt_usage_error(&c, "plot %s: expected one DOCUMENT", ops[0]);
	if (nd > PLOT_MAX_DOCS)
		return opt_usage_error(&c, "plot %s: expected at most %d DOCUMENTs", ops[0],
		    PLOT_MAX_DOCS);
	for (int i = 0; i < nd && !failed; i++) {
		label_of(ops[i + 1], labels[i], sizeof labels[i]);
		docs[i] = (struct plot_doc){ NULL, io_name(ops[i + 1]), labels[i] };
		failed = (trees[i] = json_parse_file(ops[i + 1], &e)) == NULL;
		docs[i].doc = trees[i];
	}
	rc = failed || plot_svg(k, docs, (size_t)nd, &po, &svg, &e) < 0 ||
	    io_write_all(out, svg.p, svg.len, &e) < 0;
	for (int i = 0; i < nd; i++)
		cJSON_Delete(trees[i]);
	buf_release(&svg);
	return rc ? cmd_fail("plot", &e) : EXIT_HOLDS;
}
