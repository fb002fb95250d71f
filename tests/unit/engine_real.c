/* engine_real.c: the UCI driver against a real engine.
 *
 *   engine_real check PATH [ARG...]   the test suite's checks (stockfish):
 *                                     "ok ..." / "not ok ..." lines
 *   engine_real survey [-d DEPTH | -n NODES] PATH [ARG...]
 *                                     what an engine honours, for
 *                                     docs/engines.md: one "key: value" a
 *                                     line; searches use nodes 20000, or
 *                                     the depth or nodes given
 *
 * Every run is a fresh process with Threads 1 (or "Number of Threads"),
 * Hash 16 and no book where the engine has those options, then ucinewgame.
 * Results are compared without time and nps, which vary.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/buf.h"
#include "../../engine/engine.h"
#include "../../common/hash.h"

/* Legal middle games and an endgame (the perft suite's positions). */
static const char *const fens[] = {
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
};
#define NFENS (sizeof fens / sizeof fens[0])

static const char *path;
static const char *const *extra;
static int failed;
/* The limit of the suite's and the survey's searches (the survey's -d
 * gives a depth instead, for engines that do not count nodes). */
static struct engine_limit limit = { 20000, 0, 0 };

static void
report(int good, const char *name, const char *why)
{
	if (good)
		printf("ok %s\n", name);
	else
		printf("not ok %s: %s\n", name, why);
	failed += !good;
	fflush(stdout);
}

static void
set_if(struct engine *g, const char *name, const char *value)
{
	struct err e = ERR_INIT;

	if (engine_option_find(g, name) != NULL)
		engine_setoption(g, name, value, &e);
}

/* A fresh engine, set up for repeatable searches; multipv 0 leaves it. */
static struct engine *
fresh(int multipv, struct err *e)
{
	/* deadlines that only catch a hang, on a machine however busy */
	struct engine_opts o = { extra, 300, 120 };
	struct engine *g = engine_new(path, &o, e);
	char mpv[16];

	if (g == NULL)
		return NULL;
	set_if(g, "Threads", "1");
	set_if(g, "Number of Threads", "1");
	set_if(g, "Hash", "16");
	set_if(g, "OwnBook", "false");
	set_if(g, "Ponder", "false");
	snprintf(mpv, sizeof mpv, "%d", multipv);
	if (multipv > 0 && engine_setoption(g, "MultiPV", mpv, e) < 0) {
		engine_free(g);
		return NULL;
	}
	if (engine_newgame(g, e) < 0) {
		engine_free(g);
		return NULL;
	}
	return g;
}

/* The result as text, without time and nps. */
static void
describe(const struct engine_result *r, struct buf *b)
{
	buf_printf(b, "bestmove %s ponder %s nodes %llu\n", r->bestmove, r->ponder,
	    (unsigned long long)r->nodes);
	for (size_t i = 0; i < r->nlines; i++) {
		const struct engine_info *l = &r->lines[i];
		buf_printf(b, "  %d: depth %d seldepth %d %s %d bound %d nodes %llu pv", l->multipv,
		    l->depth, l->seldepth, l->has_mate ? "mate" : "cp",
		    l->has_mate ? l->mate : l->cp, l->bound, (unsigned long long)l->nodes);
		for (size_t k = 0; k < l->npv; k++)
			buf_printf(b, " %s", l->pv[k]);
		buf_addc(b, '\n');
	}
}

static int
search(struct engine *g, const char *fen, const char *const *sm, size_t n, struct buf *b,
    struct engine_result *r, struct err *e)
{
	if (engine_search(g, fen, &limit, sm, n, r, e) < 0)
		return -1;
	if (b != NULL)
		describe(r, b);
	return 0;
}

/* Every position in one fresh process, described into b. */
static int
run_all(int multipv, struct buf *b, struct err *e)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct engine *g = fresh(multipv, e);
	int rc = 0;

	if (g == NULL)
		return -1;
	for (size_t i = 0; rc == 0 && i < NFENS; i++)
		rc = search(g, fens[i], NULL, 0, b, &r, e);
	engine_result_release(&r);
	engine_free(g);
	return rc;
}

/* MultiPV k: k lines, each with a pv, first moves all different. */
static int
lines_ok(const struct engine_result *r, size_t k)
{
	if (r->nlines != k)
		return 0;
	for (size_t i = 0; i < k; i++) {
		if (r->lines[i].npv == 0 || r->lines[i].multipv != (int)i + 1)
			return 0;
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->lines[i].pv[0], r->lines[j].pv[0]) == 0)
				return 0;
	}
	return strcmp(r->bestmove, r->lines[0].pv[0]) == 0;
}

/* Two moves other than the unrestricted best, from a MultiPV 3 search. */
static int
other_moves(const char *fen, char moves[2][8], char best[8], struct err *e)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct engine *g = fresh(3, e);
	int rc = -1;

	if (g != NULL && search(g, fen, NULL, 0, NULL, &r, e) == 0 && r.nlines == 3 &&
	    r.lines[1].npv > 0 && r.lines[2].npv > 0) {
		snprintf(moves[0], 8, "%s", r.lines[1].pv[0]);
		snprintf(moves[1], 8, "%s", r.lines[2].pv[0]);
		snprintf(best, 8, "%s", r.bestmove);
		rc = 0;
	} else if (g != NULL && e->code == ERR_OK) {
		err_set(e, ERR_FINDING, "MultiPV 3 did not give three lines");
	}
	engine_result_release(&r);
	engine_free(g);
	return rc;
}

/* ---- the suite's checks ---- */

static void
check_determinism(void)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;

	if (run_all(5, &a, &e) < 0 || run_all(5, &b, &e) < 0)
		report(0, "stockfish: nodes 20000, MultiPV 5, two fresh processes", e.msg);
	else
		report(a.len > 0 && a.len == b.len && memcmp(a.p, b.p, a.len) == 0,
		    "stockfish: nodes 20000, MultiPV 5: the same results in two fresh processes",
		    "results differ");
	buf_release(&a);
	buf_release(&b);
}

static void
check_lines(void)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = fresh(5, &e);
	int good = g != NULL, nodes_ok = good;
	char why[512] = "";

	if (g != NULL && strncmp(engine_name(g), "Stockfish", 9) != 0)
		snprintf(why, sizeof why, "name \"%s\"", engine_name(g)), good = 0;
	for (size_t i = 0; good && i < NFENS; i++) {
		if (search(g, fens[i], NULL, 0, NULL, &r, &e) < 0)
			good = 0;
		else if (!lines_ok(&r, 5))
			snprintf(why, sizeof why, "position %zu: %zu lines", i, r.nlines), good = 0;
		/* stockfish stops within a few hundred nodes of the limit */
		if (good && (r.nodes < 20000 || r.nodes > 21000))
			nodes_ok = 0, snprintf(why, sizeof why, "%llu nodes",
			                  (unsigned long long)r.nodes);
	}
	engine_result_release(&r);
	engine_free(g);
	report(good, "stockfish: MultiPV 5 gives five lines, distinct first moves, bestmove first",
	    why[0] ? why : e.msg);
	report(good && nodes_ok, "stockfish: go nodes 20000 reports 20000 to 21000 nodes",
	    why[0] ? why : e.msg);
}

static void
check_searchmoves(void)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	char moves[2][8], best[8];
	const char *sm[2] = { moves[0], moves[1] };
	int good = 1;

	for (size_t i = 0; good && i < NFENS; i++) {
		struct engine *g = NULL;
		good = other_moves(fens[i], moves, best, &e) == 0 && (g = fresh(1, &e)) != NULL &&
		    search(g, fens[i], sm, 2, NULL, &r, &e) == 0 &&
		    strcmp(r.bestmove, best) != 0;
		engine_free(g);
	}
	engine_result_release(&r);
	report(good, "stockfish: searchmoves keeps bestmove to the moves given", e.msg);
}

static void
check_digest(void)
{
	struct err e = ERR_INIT;
	struct engine *g = fresh(0, &e);
	uint8_t d[HASH_LEN];
	uint64_t size = 0;
	int good = g != NULL && engine_binary_path(g)[0] == '/' &&
	    hash_file(engine_binary_path(g), d, &size, &e) == 0 && size > 0;

	engine_free(g);
	report(good, "stockfish: its binary resolved and hashed", e.msg);
}

/* ---- the survey ---- */

static void __attribute__((format(printf, 2, 3)))
say(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void
survey_id(void)
{
	struct err e = ERR_INIT;
	struct engine *g = fresh(0, &e);
	uint8_t d[HASH_LEN];
	char id[HASH_ID_LEN + 1] = "?";

	if (g == NULL) {
		say("uci", "no: %s", e.msg);
		exit(1);
	}
	if (hash_file(engine_binary_path(g), d, NULL, &e) == 0)
		hash_id_format(d, id);
	say("uci", "yes");
	say("name", "%s", engine_name(g));
	say("binary", "%s %s", engine_binary_path(g), id);
	say("multipv option", "%s", engine_option_find(g, "MultiPV") ? "yes" : "no");
	say("threads option", "%s",
	    engine_option_find(g, "Threads")             ? "Threads"
	    : engine_option_find(g, "Number of Threads") ? "Number of Threads"
	                                                 : "none");
	engine_free(g);
}

/* Does go nodes N stop near N?  Asked in a process of its own, with a
 * short timeout: some engines never stop. */
static void
survey_nodes(void)
{
	static const uint64_t asked[] = { 1000, 20000, 100000 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = fresh(0, &e);

	if (g != NULL)
		engine_set_timeout(g, 5);
	for (size_t i = 0; g != NULL && i < 3; i++) {
		struct engine_limit lim = { asked[i], 0, 0 };
		double t0 = seconds();
		if (engine_search(g, fens[0], &lim, NULL, 0, &r, &e) < 0)
			break;
		say("nodes", "asked %llu, reported %llu, depth %d, %.3f s",
		    (unsigned long long)asked[i], (unsigned long long)r.nodes,
		    r.nlines ? r.lines[0].depth : 0, seconds() - t0);
	}
	if (e.code != ERR_OK)
		say("nodes", "error: %s", e.msg);
	engine_result_release(&r);
	engine_free(g);
}

#define REPEATS 5

/* The text without its " nodes N": what is left when only the moves,
 * depths and scores must repeat. */
static void
strip_nodes(const struct buf *in, struct buf *out)
{
	const char *p = in->p ? in->p : "", *q;

	buf_reset(out);
	buf_adds(out, "");
	while ((q = strstr(p, " nodes ")) != NULL) {
		buf_add(out, p, (size_t)(q - p));
		p = q + 7;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	buf_adds(out, p);
}

static int
same_text(const struct buf *a, const struct buf *b, int nodes_too)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	int same;

	if (nodes_too)
		return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
	strip_nodes(a, &x);
	strip_nodes(b, &y);
	same = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
	buf_release(&x);
	buf_release(&y);
	return same;
}

/* The same results in REPEATS fresh processes? */
static void
survey_repeat(void)
{
	struct buf first = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	int same = 0, moves = 0, runs = 1;

	if (run_all(0, &first, &e) < 0) {
		say("deterministic", "error: %s", e.msg);
		return;
	}
	for (; runs < REPEATS; runs++) {
		buf_reset(&b);
		if (run_all(0, &b, &e) < 0)
			break;
		same += same_text(&first, &b, 1);
		moves += same_text(&first, &b, 0);
		if (!same_text(&first, &b, 1))
			fputs(b.p, stdout);
	}
	if (e.code != ERR_OK)
		say("deterministic", "error: %s", e.msg);
	else
		say("deterministic", "%s (4 positions; of %d more fresh processes, %d the same, "
		                     "%d the same but for node counts)",
		    same == runs - 1 ? "yes" : "no", runs - 1, same, moves);
	fputs(first.p, stdout);
	buf_release(&first);
	buf_release(&b);
}

static void
survey_multipv(void)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = fresh(3, &e);
	int lines = g != NULL, best = lines;

	for (size_t i = 0; lines && i < NFENS; i++) {
		lines = search(g, fens[i], NULL, 0, NULL, &r, &e) == 0 && r.nlines == 3;
		for (size_t k = 0; lines && k < 3; k++)
			lines = r.lines[k].npv > 0;
		best = best && lines && strcmp(r.bestmove, r.lines[0].pv[0]) == 0;
	}
	if (!lines)
		say("multipv", "no: %s", e.code != ERR_OK ? e.msg : "not three lines");
	else
		say("multipv", "3 lines on 4 positions; bestmove %s",
		    best ? "is line 1's move" : "not always line 1's move");
	engine_result_release(&r);
	engine_free(g);
}

/* Two legal moves other than the best, in each position. */
static const char *const others[NFENS][2] = { { "a2a3", "b2b3" }, { "e2e3", "b4c4" },
	{ "g8h8", "d7d5" }, { "h1f1", "e1f2" } };

static void
survey_searchmoves(void)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	int good = 1;

	for (size_t i = 0; good && i < NFENS; i++) {
		struct engine *g = fresh(0, &e);
		good = g != NULL && search(g, fens[i], others[i], 2, NULL, &r, &e) == 0;
		engine_free(g);
	}
	say("searchmoves", "%s%s", good ? "yes (4 positions)" : "no: ", good ? "" : e.msg);
	engine_result_release(&r);
}

/* One fresh process: ucinewgame and a search of each position of seq,
 * the last one described into b. */
static int
sequence(const int *seq, size_t n, struct buf *b, struct err *e)
{
	struct engine_result r = ENGINE_RESULT_INIT;
	struct engine *g = fresh(0, e);
	int rc = g ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < n; i++)
		if ((rc = engine_newgame(g, e)) == 0)
			rc = search(g, fens[seq[i]], NULL, 0, i + 1 == n ? b : NULL, &r, e);
	engine_result_release(&r);
	engine_free(g);
	return rc;
}

/* 2 when each sequence ends with the same description as the first, 1
 * when the same but for node counts, 0 when not, -1 on an error. */
static int
same_ends(const int seqs[][4], const size_t *lens, size_t n, struct err *e)
{
	struct buf first = BUF_INIT, b = BUF_INIT;
	int same = sequence(seqs[0], lens[0], &first, e) == 0 ? 2 : -1;

	for (size_t i = 1; same > 0 && i < n; i++) {
		buf_reset(&b);
		if (sequence(seqs[i], lens[i], &b, e) < 0)
			same = -1;
		else if (!same_text(&first, &b, 1))
			same = same_text(&first, &b, 0) ? 1 : 0;
	}
	buf_release(&first);
	buf_release(&b);
	return same;
}

static int
worse(int a, int b)
{
	return a < b ? a : b;
}

/* Does ucinewgame forget the searches before it?  And if not, does one
 * fixed throw-away search (position 1) just before make results repeat? */
static void
survey_newgame(void)
{
	static const int plain[][4] = { { 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 }, { 0, 0 } };
	static const size_t plain_n[] = { 1, 2, 2, 2, 2 };
	static const int plain3[][4] = { { 3 }, { 0, 3 }, { 1, 3 }, { 2, 3 }, { 3, 3 } };
	static const int warm[][4] = { { 1, 0 }, { 3, 1, 0 }, { 0, 1, 0 }, { 2, 3, 1, 0 } };
	static const size_t warm_n[] = { 2, 3, 3, 4 };
	static const int warm3[][4] = { { 1, 3 }, { 3, 1, 3 }, { 0, 1, 3 }, { 2, 0, 1, 3 } };
	static const char *const said[] = { "no", "only moves and scores", "yes" };
	struct err e = ERR_INIT;
	int a = worse(same_ends(plain, plain_n, 5, &e), same_ends(plain3, plain_n, 5, &e));
	int w = worse(same_ends(warm, warm_n, 4, &e), same_ends(warm3, warm_n, 4, &e));

	if (a < 0 || w < 0) {
		say("ucinewgame", "error: %s", e.msg);
		return;
	}
	say("ucinewgame forgets earlier searches", "%s", said[a]);
	say("with a fixed throw-away search just before", "%s repeat",
	    w == 2 ? "results" : w == 1 ? "moves and scores" : "nothing");
}

int
main(int argc, char **argv)
{
	int i = 2;

	if (argc < 3 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "survey") != 0)) {
		fprintf(stderr,
		    "usage: engine_real check|survey [-d DEPTH | -n NODES] ENGINE [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[i], "-d") == 0 && i + 2 < argc) {
		limit = (struct engine_limit){ 0, atoi(argv[i + 1]), 0 };
		i += 2;
	} else if (strcmp(argv[i], "-n") == 0 && i + 2 < argc) {
		limit = (struct engine_limit){ strtoull(argv[i + 1], NULL, 10), 0, 0 };
		i += 2;
	}
	path = argv[i];
	extra = (const char *const *)argv + i + 1;
	if (strcmp(argv[1], "check") == 0) {
		check_digest();
		check_lines();
		check_determinism();
		check_searchmoves();
	} else {
		survey_id();
		survey_nodes();
		survey_repeat();
		survey_multipv();
		survey_searchmoves();
		survey_newgame();
	}
	return failed ? 1 : 0;
}
