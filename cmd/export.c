/* export.c: `cohort export pgn` (a freeze's games as PGN) and `cohort
 * export blocks --format ordo` (W-D-L blocks as a PGN of results that
 * Ordo reads). */
#include <string.h>

#include "../common/io.h"
#include "../pgnio/pgnio.h"
#include "cmd.h"
#include "opt.h"

/* clang-format off */
#define PGN_SYNOPSIS "cohort export pgn [--store DIR] [--players model|condition] [--anchors FILE] [-o FILE] FREEZE\n"
#define BLOCKS_SYNOPSIS "cohort export blocks --format ordo [--anchors FILE] [-o FILE] FILE\n"
static const char usage[] = "usage: " PGN_SYNOPSIS "       " BLOCKS_SYNOPSIS;
static const char pgn_usage[] = "usage: " PGN_SYNOPSIS;
static const char blocks_usage[] = "usage: " BLOCKS_SYNOPSIS;
/* clang-format on */

struct args {
	const char *store, *players, *format, *anchors, *out;
};

/* The PGN, and the anchors' file when asked for, each written atomically
 * (the PGN last). */
static int
write_both(const struct args *a, const struct buf *pgn, const struct buf *anchors, struct err *e)
{
	struct outfile of = OUTFILE_INIT, af = OUTFILE_INIT;
	int rc;

	rc = outfile_open(&of, a->out, e) < 0 ||
	    (a->anchors && outfile_open(&af, a->anchors, e) < 0) ||
	    outfile_write(&of, pgn->p ? pgn->p : "", pgn->len, e) < 0 ||
	    (a->anchors && outfile_write(&af, anchors->p ? anchors->p : "", anchors->len, e) < 0) ||
	    (a->anchors && outfile_commit(&af, e) < 0) || outfile_commit(&of, e) < 0;
	outfile_abort(&af);
	outfile_abort(&of);
	return rc ? -1 : 0;
}

static int
export_pgn(const struct opt_cmd *c, const struct args *a, const char *freeze)
{
	struct pgnio_export_opts o = { freeze, a->store, 0 };
	struct buf pgn = BUF_INIT, anchors = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (a->players != NULL && strcmp(a->players, "model") != 0 &&
	    strcmp(a->players, "condition") != 0)
		return opt_usage_error(c, "--players: expected model or condition, got '%s'",
		    a->players);
	o.by_condition = a->players != NULL && strcmp(a->players, "condition") == 0;
	if (a->anchors != NULL && !o.by_condition)
		return opt_usage_error(c, "--anchors goes with --players condition");
	if (a->anchors != NULL && strcmp(a->anchors, "-") == 0)
		return opt_usage_error(c, "--anchors: expected a file name");
	rc = pgnio_export_pgn(&o, &pgn, a->anchors ? &anchors : NULL, &e) < 0 ||
	    write_both(a, &pgn, &anchors, &e) < 0;
	buf_release(&pgn);
	buf_release(&anchors);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

static int
export_blocks(const struct opt_cmd *c, const struct args *a, const char *path)
{
	struct buf pgn = BUF_INIT, anchors = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (strcmp(a->format, "ordo") != 0)
		return opt_usage_error(c, "--format: expected ordo, got '%s'", a->format);
	if (a->anchors != NULL && strcmp(a->anchors, "-") == 0)
		return opt_usage_error(c, "--anchors: expected a file name");
	rc = pgnio_export_ordo(path, &pgn, a->anchors ? &anchors : NULL, &e) < 0 ||
	    write_both(a, &pgn, &anchors, &e) < 0;
	buf_release(&pgn);
	buf_release(&anchors);
	return rc ? cmd_fail(c->name, &e) : EXIT_HOLDS;
}

int
cmd_export(int argc, char **argv)
{
	struct args a = { 0 };
	/* clang-format off */
	const struct opt pgn_table[] = {
		{ .name = "store", .arg = "DIR", .value = &a.store,
		    .help = "the freeze's object store (default: store beside it)" },
		{ .name = "players", .arg = "model|condition", .value = &a.players,
		    .help = "White and Black: the model and engine (default), or the condition and anchor" },
		{ .name = "anchors", .arg = "FILE", .out = 1, .value = &a.anchors,
		    .help = "with --players condition: also write Ordo's file of fixed anchors" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt blocks_table[] = {
		{ .name = "format", .arg = "ordo", .value = &a.format, .required = 1,
		    .help = "the PGN of results that Ordo reads" },
		{ .name = "anchors", .arg = "FILE", .value = &a.anchors,
		    .help = "also write Ordo's file of fixed anchors (its -m)" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &a.out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt none[] = { { .name = NULL } };
	struct opt_cmd export;
	const struct opt_cmd pgn_cmd = { .name = "export pgn", .usage = pgn_usage,
		.table = pgn_table, .operand = "FREEZE", .min = 1, .max = 1, .parent = &export };
	const struct opt_cmd blocks_cmd = { .name = "export blocks", .usage = blocks_usage,
		.table = blocks_table, .operand = "FILE", .min = 1, .max = 1, .parent = &export };
	const struct opt_cmd *const subs[] = { &pgn_cmd, &blocks_cmd, NULL };
	char **ops;
	int nops, rc;

	export = (struct opt_cmd){ .name = "export", .usage = usage, .table = none, .dispatch = 1,
		.subs = subs };
	/* clang-format on */
	if ((rc = opt_parse(&export, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (nops == 0 || (strcmp(ops[0], "pgn") != 0 && strcmp(ops[0], "blocks") != 0))
		return opt_usage_error(&export, "expected pgn or blocks");
	if (strcmp(ops[0], "pgn") == 0) {
		if ((rc = opt_parse(&pgn_cmd, nops, ops, &ops, &nops)) != OPT_OK)
			return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
		return export_pgn(&pgn_cmd, &a, ops[0]);
	}
	if ((rc = opt_parse(&blocks_cmd, nops, ops, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	return export_blocks(&blocks_cmd, &a, ops[0]);
}
