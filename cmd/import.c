/* import.c: `cohort import pgn`: PGN games into ledger records. */
#include <stdio.h>
#include <string.h>

#include "../common/io.h"
#include "../pgnio/pgnio.h"
#include "cmd.h"
#include "opt.h"

#define PGN_SYNOPSIS "cohort import pgn [--map MAP] [-o FILE] FILE...\n"
static const char usage[] = "usage: " PGN_SYNOPSIS;

/* Each refused game on its own line, as it is found. */
static void
refused(void *ctx, const char *msg)
{
	fprintf(stderr, "cohort %s: %s\n", (const char *)ctx, msg);
}

static int
import_pgn(const struct opt_cmd *c, const char *map_path, const char *out, char **files, int n)
{
	struct pgnio_map *map = NULL;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	struct pgnio_import_opts o = { (const char *const *)files, (size_t)n, NULL, refused,
		(void *)c->name };
	int nstdin = 0, rc;

	for (int i = 0; i < n; i++)
		nstdin += strcmp(files[i], "-") == 0;
	if (nstdin > 1)
		return opt_usage_error(c, "only one input can be standard input");
	rc = pgnio_map_open(map_path, &map, &e) < 0;
	o.map = map;
	rc = rc || pgnio_import(&o, &b, &e) < 0 || io_write_all(out, b.p ? b.p : "", b.len, &e) < 0;
	buf_release(&b);
	pgnio_map_free(map);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

int
cmd_import(int argc, char **argv)
{
	const char *map = NULL, *out = NULL;
	/* clang-format off */
	const struct opt pgn_table[] = {
		{ .name = "map", .arg = "MAP", .value = &map,
		    .help = "the tag map (cohort.pgn-map/1) over the built-in one" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the records to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt none[] = { { .name = NULL } };
	struct opt_cmd import;
	const struct opt_cmd pgn_cmd = { .name = "import pgn", .usage = usage, .table = pgn_table,
		.operand = "FILE", .min = 1, .max = -1, .parent = &import };
	const struct opt_cmd *const subs[] = { &pgn_cmd, NULL };
	char **ops;
	int nops, rc;

	import = (struct opt_cmd){ .name = "import", .usage = usage, .table = none, .dispatch = 1,
		.subs = subs };
	/* clang-format on */
	if ((rc = opt_parse(&import, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0 || strcmp(ops[0], "pgn") != 0)
		return opt_usage_error(&import, "expected pgn");
	if ((rc = opt_parse(&pgn_cmd, nops, ops, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	return import_pgn(&pgn_cmd, map, out, ops, nops);
}
