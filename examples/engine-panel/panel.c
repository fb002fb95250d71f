/* panel.c: the harness of the engine panel example (examples/engine-panel).
 *
 * Three of Debian's UCI engines stand in for model families; this program
 * plays their games against Stockfish anchors and makes their paired
 * decisions, and writes what a harness would: game ledger records, decision
 * records, request logs and billing rows, as canonical JSON Lines (and CSV).
 * generate.sh beside it runs every step; cohort itself decides each block's
 * anchor and builds the candidate manifest.  Not part of cohort: it is
 * built by generate.sh against the project's objects, not by make.
 *
 *   panel positions --engine SF --nodes N --pos-pgn F... --book-pgn F...
 *                   --positions OUT --sources OUT --openings OUT
 *   panel play      --replication R --family F --condition C --block B --anchor ELO
 *                   --openings FILE --opening-shift S --hash H --family-nodes N
 *                   --cand-nodes N --anchor-nodes N --games G --ledger OUT --requests OUT
 *   panel decide    --replication R --family F --candidates FILE --sources FILE
 *                   --hash H --seeds A,B,C --budgets low=N,medium=N,high=N
 *                   --history-budget NAME --decisions OUT --requests OUT
 *   panel billing   --price USD_PER_CPU_HOUR REQUESTS... > billing.csv
 *   panel next      LADDER_NEXT_JSON         "ELO BLOCKS RULE" or "stop BLOCKS STATE RULE"
 *   panel legal     MANIFEST                 each position's legal moves (JSON Lines)
 *   panel replay    LEDGER...                replays every game: moves, plies, ending
 *   panel perm      ORDER_SEED POSITION_ID N prints the permutation (for tests)
 *
 * Engines are driven over pipes with the engine layer's process and line
 * readers (engine/proc.h, engine/uci.h): engine.h's searches send
 * `position fen F` only, and a game needs `position startpos moves ...` so
 * that the engines see repetitions, as does the `history` context.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chess/chess.h"
#include "chess/pgn.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/hash.h"
#include "common/io.h"
#include "engine/engine.h"
#include "engine/proc.h"
#include "engine/uci.h"
#include "json/json.h"
#include "protocol/candidates.h"

#define MAXPLY 1024
#define GAME_PLIES 200
#define TS_LEN 64

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("panel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *
xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);
	if (p == NULL)
		die("out of memory");
	return p;
}

static char *
xstrdup(const char *s)
{
	char *p = strdup(s);
	if (p == NULL)
		die("out of memory");
	return p;
}

/* ---- time ---- */

static double
mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The wall clock as RFC 3339 UTC with milliseconds. */
static void
now_rfc3339(char out[TS_LEN])
{
	struct timespec t;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	snprintf(out, TS_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(t.tv_nsec / 1000000));
}

/* Milliseconds with three decimals (a whole number of microseconds). */
static double
ms3(double seconds)
{
	return json_round(seconds * 1000.0, 0.001);
}

/* ---- canonical output ---- */

static void
emit_line(struct buf *out, const cJSON *v)
{
	struct err e = ERR_INIT;
	if (canon_write(v, out, &e) < 0 || buf_addc(out, '\n') < 0)
		die("%s", e.msg);
}

static void
write_file(const char *path, const struct buf *b)
{
	struct err e = ERR_INIT;
	if (io_write_all(path, b->p ? b->p : "", b->len, &e) < 0)
		die("%s", e.msg);
}

static cJSON *
obj(void)
{
	cJSON *o = cJSON_CreateObject();
	if (o == NULL)
		die("out of memory");
	return o;
}

static void
add_str(cJSON *o, const char *k, const char *v)
{
	if (json_add_string(o, k, v) == NULL)
		die("out of memory");
}

static void
add_num(cJSON *o, const char *k, double v)
{
	if (json_add_number(o, k, v) == NULL)
		die("out of memory");
}

static cJSON *
add_arr(cJSON *o, const char *k)
{
	cJSON *a = cJSON_AddArrayToObject(o, k);
	if (a == NULL)
		die("out of memory");
	return a;
}

static void
push_str(cJSON *a, const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	if (v == NULL || !cJSON_AddItemToArray(a, v))
		die("out of memory");
}

static cJSON *
tokens_obj(uint64_t nodes)
{
	cJSON *t = obj();
	add_num(t, "input", 0);
	add_num(t, "output", 0);
	add_num(t, "reasoning", (double)nodes);
	add_num(t, "cached", 0);
	return t;
}

/* ---- the families ---- */

struct family {
	const char *name;     /* the family label */
	const char *path;     /* the binary */
	const char *id_name;  /* the id name we expect (model.requested) */
	int glaurung;         /* needs Ponder/OwnBook off and a throw-away search */
};

static const struct family families[] = {
	{ "stockfish", "/usr/games/stockfish", "Stockfish 15.1", 0 },
	{ "fairy-stockfish", "/usr/games/fairy-stockfish", "Fairy-Stockfish 11.1 LB 64", 0 },
	{ "glaurung", "/usr/games/glaurung", "Glaurung 2.2", 1 },
};

static const struct family *
family_find(const char *name)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (strcmp(families[i].name, name) == 0)
			return &families[i];
	die("unknown family %s", name);
}

/* ---- a UCI session over the engine layer's process ---- */

#define THROWAWAY_NODES 1000 /* glaurung: the fixed search before each one */

struct uci {
	struct engine_proc p;
	char path[PATH_MAX];
	char name[256];
	char sha[2 * HASH_LEN + 1];
	int throwaway;
	int multipv;
};

static void
uci_send(struct uci *u, const char *fmt, ...)
{
	struct err e = ERR_INIT;
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line - 1)
		die("engine %s: command too long", u->path);
	if (engine_proc_send(&u->p, line, engine_now() + 10.0, &e) < 0)
		die("engine %s: %s", u->path, e.msg);
}

/* Lines up to one that starts with word (a whole word); returns it. */
static char *
uci_until(struct uci *u, const char *word, double timeout_s,
    void (*each)(char *line, void *arg), void *arg)
{
	double deadline = engine_now() + timeout_s;
	size_t n = strlen(word);
	struct err e = ERR_INIT;
	char *line;
	int rc;

	for (;;) {
		if ((rc = engine_proc_line(&u->p, deadline, &line, &e)) <= 0)
			die("engine %s: %s waiting for %s", u->path, rc == 0 ? "timed out" : e.msg, word);
		if (strncmp(line, word, n) == 0 && (line[n] == '\0' || line[n] == ' '))
			return line;
		if (each != NULL)
			each(line, arg);
	}
}

static void
uci_handshake_line(char *line, void *arg)
{
	struct uci *u = arg;
	if (strncmp(line, "id name ", 8) == 0)
		snprintf(u->name, sizeof u->name, "%s", line + 8);
}

static void
uci_ready(struct uci *u)
{
	uci_send(u, "isready\n");
	uci_until(u, "readyok", 30.0, NULL, NULL);
}

/* Start path; opts are "Name=Value" strings, NULL-terminated. */
static void
uci_open(struct uci *u, const char *path, const char *const *opts, int throwaway)
{
	struct err e = ERR_INIT;
	uint8_t d[HASH_LEN];
	char *argv[2];

	memset(u, 0, sizeof *u);
	engine_proc_init(&u->p);
	if (realpath(path, u->path) == NULL)
		die("%s: %s", path, strerror(errno));
	if (hash_file(u->path, d, NULL, &e) < 0)
		die("%s", e.msg);
	hash_hex_format(d, u->sha);
	argv[0] = u->path;
	argv[1] = NULL;
	if (engine_proc_start(&u->p, u->path, argv, &e) < 0)
		die("engine %s: %s", path, e.msg);
	uci_send(u, "uci\n");
	uci_until(u, "uciok", 30.0, uci_handshake_line, u);
	for (size_t i = 0; opts != NULL && opts[i] != NULL; i++) {
		const char *eq = strchr(opts[i], '=');
		if (eq == NULL)
			die("option %s: expected Name=Value", opts[i]);
		uci_send(u, "setoption name %.*s value %s\n", (int)(eq - opts[i]), opts[i], eq + 1);
	}
	u->throwaway = throwaway;
	u->multipv = 1;
	uci_ready(u);
}

static void
uci_close(struct uci *u)
{
	struct err e = ERR_INIT;
	engine_proc_send(&u->p, "quit\n", engine_now() + 1.0, &e);
	engine_proc_end(&u->p, 1.0);
}

struct search_acc {
	struct uci *u;
	struct engine_result *r;
};

static void
keep_info(struct engine_result *r, struct engine_info *in)
{
	size_t k = (size_t)in->multipv;

	if (in->nodes > r->nodes)
		r->nodes = in->nodes;
	if (in->time_ms > r->time_ms)
		r->time_ms = in->time_ms;
	if (in->npv == 0 || !(in->has_cp || in->has_mate) || k > ENGINE_MULTIPV_MAX) {
		engine_info_release(in);
		return;
	}
	if (k > r->nlines) {
		struct engine_info *t = realloc(r->lines, k * sizeof *t);
		if (t == NULL)
			die("out of memory");
		memset(t + r->nlines, 0, (k - r->nlines) * sizeof *t);
		for (size_t i = r->nlines; i < k; i++)
			t[i].multipv = (int)i + 1;
		r->lines = t;
		r->nlines = k;
	}
	struct engine_info *slot = &r->lines[k - 1];
	if (slot->npv > 0 && in->depth < slot->depth) {
		engine_info_release(in);
		return;
	}
	engine_info_release(slot);
	*slot = *in;
}

static void
search_line(char *line, void *arg)
{
	struct search_acc *a = arg;
	struct err e = ERR_INIT;
	struct engine_info in;
	char *cur = line;
	const char *w = engine_uci_word(&cur);
	int rc;

	if (w == NULL || strcmp(w, "info") != 0)
		return;
	if ((rc = engine_uci_info(cur, &in, &e)) < 0)
		die("engine %s: %s", a->u->path, e.msg);
	if (rc == 0)
		keep_info(a->r, &in);
}

static void
uci_multipv(struct uci *u, int n)
{
	if (u->multipv == n)
		return;
	uci_send(u, "setoption name MultiPV value %d\n", n);
	u->multipv = n;
	uci_ready(u);
}

/* One search: from fen (NULL: the start position) after moves, within
 * nodes, among the searchmoves sm.  *latency gets the seconds from the go
 * command to bestmove; ts the wall time the command was sent.  A search
 * may end without a move (r->bestmove ""): see family_search. */
static void
uci_search_raw(struct uci *u, const char *fen, char (*moves)[CHESS_UCI_MAX], size_t nm,
    uint64_t nodes, char (*sm)[CHESS_UCI_MAX], size_t ns, struct engine_result *r,
    double *latency, char ts[TS_LEN])
{
	struct buf cmd = BUF_INIT;
	struct search_acc a = { u, r };
	struct err e = ERR_INIT;
	char *line, *cur;
	double t0;
	int rc = 0;

	engine_result_release(r);
	rc |= fen ? buf_printf(&cmd, "position fen %s", fen) : buf_adds(&cmd, "position startpos");
	if (nm > 0)
		rc |= buf_adds(&cmd, " moves");
	for (size_t i = 0; i < nm; i++)
		rc |= buf_printf(&cmd, " %s", moves[i]);
	rc |= buf_printf(&cmd, "\ngo nodes %" PRIu64, nodes);
	if (ns > 0)
		rc |= buf_adds(&cmd, " searchmoves");
	for (size_t i = 0; i < ns; i++)
		rc |= buf_printf(&cmd, " %s", sm[i]);
	rc |= buf_addc(&cmd, '\n');
	if (rc != 0)
		die("out of memory");
	if (ts != NULL)
		now_rfc3339(ts);
	t0 = mono_s();
	if (engine_proc_send(&u->p, cmd.p, engine_now() + 10.0, &e) < 0)
		die("engine %s: %s", u->path, e.msg);
	line = uci_until(u, "bestmove", 120.0, search_line, &a);
	if (latency != NULL)
		*latency = mono_s() - t0;
	cur = line;
	engine_uci_word(&cur);
	if (engine_uci_bestmove(cur, r->bestmove, r->ponder, &e) < 0)
		die("engine %s: %s", u->path, e.msg);
	for (size_t i = 0; ns > 0 && r->bestmove[0] != '\0'; i++) {
		if (i == ns)
			die("engine %s: bestmove %s outside the searchmoves", u->path, r->bestmove);
		if (strcmp(sm[i], r->bestmove) == 0)
			break;
	}
	buf_release(&cmd);
}

/* A search that must give a move (Stockfish as anchor, candidate source
 * or quick search). */
static void
uci_search(struct uci *u, const char *fen, char (*moves)[CHESS_UCI_MAX], size_t nm,
    uint64_t nodes, struct engine_result *r)
{
	uci_search_raw(u, fen, moves, nm, nodes, NULL, 0, r, NULL, NULL);
	if (r->bestmove[0] == '\0')
		die("engine %s: no move in position %s (after %zu moves)", u->path,
		    fen ? fen : "startpos", nm);
}

/* A family's search, asked again while it ends without a move.  Glaurung
 * does that now and then: it looks at its node limit only every few
 * thousand nodes, with a count that runs on from its last search, and
 * when the limit strikes before its first iteration is done it answers
 * "bestmove (none)" in a position with legal moves.  Each attempt is a
 * request of its own (the log keeps the failed ones, status error); the
 * same limit is asked again three times, then doubled at each attempt
 * (2, 4, 8, 16 times), at most MAX_ATTEMPTS attempts.  Returns the number
 * of attempts; r holds the last. */
#define MAX_ATTEMPTS 8

struct attempt {
	uint64_t nodes;
	double latency;
	char ts[TS_LEN];
	int ok;
};

static int
family_search(struct uci *u, const char *fen, char (*moves)[CHESS_UCI_MAX], size_t nm,
    uint64_t nodes, char (*sm)[CHESS_UCI_MAX], size_t ns, struct engine_result *r,
    struct attempt *at)
{
	for (int k = 0; k < MAX_ATTEMPTS; k++) {
		uint64_t lim = k < 4 ? nodes : nodes << (k - 3);
		uci_search_raw(u, fen, moves, nm, lim, sm, ns, r, &at[k].latency, at[k].ts);
		at[k].nodes = r->nodes;
		at[k].ok = r->bestmove[0] != '\0';
		if (at[k].ok)
			return k + 1;
	}
	die("engine %s: no move in %d attempts (position %s, after %zu moves)", u->path,
	    MAX_ATTEMPTS, fen ? fen : "startpos", nm);
}

/* ucinewgame, and for glaurung the fixed throw-away search (its state
 * survives ucinewgame: docs/engines.md). */
static void
uci_newgame(struct uci *u)
{
	uci_send(u, "ucinewgame\n");
	uci_ready(u);
	if (u->throwaway) {
		struct engine_result r = ENGINE_RESULT_INIT;
		uci_search_raw(u, NULL, NULL, 0, THROWAWAY_NODES, NULL, 0, &r, NULL, NULL);
		engine_result_release(&r);
	}
}

static void
family_open(struct uci *u, const struct family *f, int hash)
{
	char h[32];
	snprintf(h, sizeof h, "Hash=%d", hash);
	const char *sf[] = { "Threads=1", h, NULL };
	const char *gl[] = { "Threads=1", h, "OwnBook=false", "Ponder=false", NULL };

	uci_open(u, f->path, f->glaurung ? gl : sf, f->glaurung);
}

/* A line's first move, "" when it has none. */
static const char *
line_move(const struct engine_info *l)
{
	return l->npv > 0 ? l->pv[0] : "";
}

/* A line's value in centipawns, a mate as 100000 - 100 n (contract). */
static long
line_value(const struct engine_info *l)
{
	if (!l->has_mate)
		return l->cp;
	return l->mate > 0 ? 100000L - 100L * l->mate : -(100000L + 100L * l->mate);
}

/* ---- positions and openings ---- */

static int
nonpawn_material(const struct chess_pos *p)
{
	static const int val[7] = { 0, 0, 3, 3, 5, 9, 0 };
	int m = 0;
	for (int sq = 0; sq < 64; sq++) {
		int pc = chess_piece_at(p, sq);
		if (pc != 0)
			m += val[CHESS_TYPE_OF(pc)];
	}
	return m;
}

/* phase: 2 endgame (non-pawn material, N B 3, R 5, Q 9, both sides,
 * <= 26), 0 opening (full move <= 15 and that material >= 50 of 62),
 * else 1 middlegame.  (`cohort candidates build` gives a position that
 * comes without a phase "opening" only from 58; these positions all
 * come with theirs.) */
static int
phase_of(const struct chess_pos *p)
{
	int m = nonpawn_material(p);
	if (m <= 26)
		return 2;
	if (p->fullmove <= 15 && m >= 50)
		return 0;
	return 1;
}

struct pgn_game {
	char file[256];
	unsigned long number;
	char white[128], black[128], eco[16];
	struct chess_move *moves;
	size_t n;
};

static size_t
read_games(const char *path, struct pgn_game **out, size_t have)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct chess_pos start;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int rc;

	chess_start(&start);
	if (io_read_all(path, &b, IO_MAX_DOCUMENT, &e) < 0)
		die("%s", e.msg);
	chess_pgn_reader_init(&r, b.p, b.len, base);
	while ((rc = chess_pgn_next(&r, &g, &e)) != CHESS_PGN_END) {
		if (rc != CHESS_PGN_GAME || g.nulls > 0 || memcmp(&g.start, &start, sizeof start) != 0)
			continue;
		*out = realloc(*out, (have + 1) * sizeof **out);
		if (*out == NULL)
			die("out of memory");
		struct pgn_game *pg = &(*out)[have++];
		const char *t;
		memset(pg, 0, sizeof *pg);
		snprintf(pg->file, sizeof pg->file, "%s", base);
		pg->number = g.number;
		snprintf(pg->white, sizeof pg->white, "%s", (t = chess_pgn_tag(&g, "White")) ? t : "?");
		snprintf(pg->black, sizeof pg->black, "%s", (t = chess_pgn_tag(&g, "Black")) ? t : "?");
		snprintf(pg->eco, sizeof pg->eco, "%s", (t = chess_pgn_tag(&g, "ECO")) ? t : "?");
		pg->moves = xcalloc(g.nmoves, sizeof *pg->moves);
		memcpy(pg->moves, g.moves, g.nmoves * sizeof *pg->moves);
		pg->n = g.nmoves;
	}
	chess_pgn_game_release(&g);
	buf_release(&b);
	return have;
}

static cJSON *
source_obj(const struct pgn_game *g)
{
	cJSON *s = obj();
	add_str(s, "file", g->file);
	add_num(s, "game", (double)g->number);
	add_str(s, "white", g->white);
	add_str(s, "black", g->black);
	add_str(s, "eco", g->eco);
	return s;
}

static int
same_prefix(const struct pgn_game *a, const struct pgn_game *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a->moves[i].from != b->moves[i].from || a->moves[i].to != b->moves[i].to ||
		    a->moves[i].promo != b->moves[i].promo)
			return 0;
	return 1;
}

struct cand_ply {
	size_t ply;
	int phase, kind, side;
	long best, gap;
	int taken;
};

#define NOPEN 12
#define PER_OPEN 10
#define NBOOK 10
#define BOOK_PLIES 8

static int
cmd_positions(int argc, char **argv)
{
	const char *engine = "/usr/games/stockfish", *pos_out = NULL, *book_out = NULL, *src_out = NULL;
	uint64_t nodes = 40000;
	struct pgn_game *pg = NULL, *bg = NULL;
	size_t npg = 0, nbg = 0;

	for (int i = 0; i < argc; i++) {
		if (i + 1 >= argc)
			die("%s: needs a value", argv[i]);
		if (strcmp(argv[i], "--engine") == 0)
			engine = argv[++i];
		else if (strcmp(argv[i], "--nodes") == 0)
			nodes = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--pos-pgn") == 0)
			npg = read_games(argv[++i], &pg, npg);
		else if (strcmp(argv[i], "--book-pgn") == 0)
			nbg = read_games(argv[++i], &bg, nbg);
		else if (strcmp(argv[i], "--positions") == 0)
			pos_out = argv[++i];
		else if (strcmp(argv[i], "--openings") == 0)
			book_out = argv[++i];
		else if (strcmp(argv[i], "--sources") == 0)
			src_out = argv[++i];
		else
			die("positions: unknown option %s", argv[i]);
	}
	if (pos_out == NULL || book_out == NULL || src_out == NULL)
		die("positions: --positions, --sources and --openings are required");

	/* the games positions come from: long, reaching an endgame, of
	 * distinct ECO codes, first in the order given */
	const struct pgn_game *chosen[NOPEN];
	size_t nch = 0;
	for (size_t i = 0; i < npg && nch < NOPEN; i++) {
		struct chess_pos p;
		size_t endply = 0;
		int dup = 0;
		if (pg[i].n < 100)
			continue;
		chess_start(&p);
		for (size_t k = 0; k < pg[i].n; k++) {
			chess_play(&p, pg[i].moves[k]);
			if (endply == 0 && nonpawn_material(&p) <= 26)
				endply = k + 1;
		}
		if (endply == 0 || pg[i].n - endply < 20)
			continue;
		for (size_t j = 0; j < nch; j++)
			if (strcmp(chosen[j]->eco, pg[i].eco) == 0 || same_prefix(chosen[j], &pg[i], BOOK_PLIES))
				dup = 1;
		if (!dup)
			chosen[nch++] = &pg[i];
	}
	if (nch < NOPEN)
		die("positions: only %zu games qualify", nch);

	/* the opening suite: the first 8 plies of other games, all distinct
	 * from each other and from the position games */
	const struct pgn_game *book[NBOOK];
	size_t nbook = 0;
	for (size_t i = 0; i < nbg && nbook < NBOOK; i++) {
		int dup = bg[i].n < 40;
		for (size_t j = 0; j < nbook && !dup; j++)
			dup = same_prefix(book[j], &bg[i], BOOK_PLIES);
		for (size_t j = 0; j < nch && !dup; j++)
			dup = same_prefix(chosen[j], &bg[i], BOOK_PLIES);
		if (!dup)
			book[nbook++] = &bg[i];
	}
	if (nbook < NBOOK)
		die("positions: only %zu book openings", nbook);

	struct uci sf;
	const char *opts[] = { "Threads=1", "Hash=16", "MultiPV=2", NULL };
	uci_open(&sf, engine, opts, 0);
	sf.multipv = 2;

	static const char *const split_of[NOPEN] = { "explore", "explore", "confirm", "heldout",
		"explore", "explore", "confirm", "heldout", "explore", "explore", "confirm", "heldout" };
	int cell[3][3] = { { 0 } }, side_n[2] = { 0, 0 };
	struct buf out = BUF_INIT, sout = BUF_INIT;
	double t0 = mono_s();
	long searches = 0;

	for (size_t o = 0; o < nch; o++) {
		const struct pgn_game *g = chosen[o];
		struct cand_ply *cp = xcalloc(g->n, sizeof *cp);
		size_t ncp = 0, by_phase[3] = { 0, 0, 0 };
		struct chess_pos p;
		char (*hist)[CHESS_UCI_MAX] = xcalloc(g->n + 1, sizeof *hist);

		/* every eligible ply, then at most 16 of each phase, evenly
		 * spread, searched MultiPV 2 */
		chess_start(&p);
		size_t *plies[3];
		size_t np[3] = { 0, 0, 0 };
		for (int k = 0; k < 3; k++)
			plies[k] = xcalloc(g->n, sizeof(size_t));
		for (size_t k = 0; k < g->n; k++) {
			struct chess_move ms[CHESS_MAX_MOVES];
			if (k >= 16 && !chess_in_check(&p) && chess_moves(&p, ms) >= 12) {
				int ph = phase_of(&p);
				plies[ph][np[ph]++] = k;
			}
			chess_uci_write(g->moves[k], hist[k]);
			chess_play(&p, g->moves[k]);
		}
		for (int ph = 0; ph < 3; ph++) {
			size_t want = np[ph] < 16 ? np[ph] : 16;
			for (size_t j = 0; j < want; j++) {
				size_t k = plies[ph][(j * np[ph]) / want];
				struct chess_pos q;
				char fen[CHESS_FEN_MAX];
				struct engine_result r = ENGINE_RESULT_INIT;
				chess_start(&q);
				for (size_t m = 0; m < k; m++)
					chess_play(&q, g->moves[m]);
				chess_fen_write(&q, fen);
				uci_send(&sf, "ucinewgame\n");
				uci_ready(&sf);
				uci_search(&sf, fen, NULL, 0, nodes, &r);
				searches++;
				if (r.nlines >= 2 && r.lines[0].npv > 0 && r.lines[1].npv > 0 &&
				    !r.lines[0].has_mate && !r.lines[1].has_mate &&
				    labs(line_value(&r.lines[0])) <= 400) {
					struct cand_ply *c = &cp[ncp++];
					c->ply = k;
					c->phase = ph;
					c->side = q.side;
					c->best = line_value(&r.lines[0]);
					c->gap = c->best - line_value(&r.lines[1]);
					c->kind = c->gap >= 150 ? 0 : c->gap <= 20 ? 1 : 2;
					by_phase[ph]++;
				}
				engine_result_release(&r);
			}
		}
		/* quotas: 4 of the phase o mod 3, 3 of the others; a phase
		 * short of plies gives its share to the next */
		int quota[3] = { 3, 3, 3 };
		quota[o % 3] = 4;
		for (int ph = 0; ph < 3; ph++)
			if ((size_t)quota[ph] > by_phase[ph]) {
				quota[(ph + 1) % 3] += quota[ph] - (int)by_phase[ph];
				quota[ph] = (int)by_phase[ph];
			}
		size_t picked[PER_OPEN];
		size_t npicked = 0;
		for (int ph = 0; ph < 3; ph++)
			for (int q = 0; q < quota[ph] && npicked < PER_OPEN; q++) {
				long bestscore = LONG_MAX;
				size_t bi = SIZE_MAX;
				for (size_t j = 0; j < ncp; j++) {
					if (cp[j].taken || cp[j].phase != ph)
						continue;
					size_t dist = SIZE_MAX;
					for (size_t m = 0; m < npicked; m++) {
						size_t d = cp[j].ply > picked[m] ? cp[j].ply - picked[m] :
						    picked[m] - cp[j].ply;
						if (d < dist)
							dist = d;
					}
					long score = (long)cell[ph][cp[j].kind] * 1000 +
					    (long)side_n[cp[j].side] * 10 + (dist < 3 ? 100000 : 0);
					if (score < bestscore) {
						bestscore = score;
						bi = j;
					}
				}
				if (bi == SIZE_MAX)
					break;
				cp[bi].taken = 1;
				cell[ph][cp[bi].kind]++;
				side_n[cp[bi].side]++;
				picked[npicked++] = cp[bi].ply;
			}
		if (npicked != PER_OPEN)
			die("positions: game %s %lu gave %zu positions", g->file, g->number, npicked);
		/* in ply order */
		for (size_t a = 1; a < npicked; a++)
			for (size_t b = a; b > 0 && picked[b - 1] > picked[b]; b--) {
				size_t t = picked[b];
				picked[b] = picked[b - 1];
				picked[b - 1] = t;
			}
		for (size_t a = 0; a < npicked; a++) {
			const struct cand_ply *c = NULL;
			for (size_t j = 0; j < ncp; j++)
				if (cp[j].taken && cp[j].ply == picked[a])
					c = &cp[j];
			struct chess_pos q;
			char fen[CHESS_FEN_MAX], id[32], op[8];
			chess_start(&q);
			for (size_t m = 0; m < c->ply; m++)
				chess_play(&q, g->moves[m]);
			chess_fen_write(&q, fen);
			snprintf(op, sizeof op, "o%02zu", o + 1);
			snprintf(id, sizeof id, "%s-p%02zu", op, a + 1);
			cJSON *l = obj(), *st, *src, *mv, *qk, *s = obj();
			add_str(l, "position_id", id);
			add_str(l, "fen", fen);
			add_str(l, "split", split_of[o]);
			add_str(l, "opening", op);
			st = obj();
			add_str(st, "phase", cand_phase_names[c->phase]);
			add_str(st, "kind", cand_kind_names[c->kind]);
			add_str(st, "to_move", c->side ? "black" : "white");
			cJSON_AddItemToObject(l, "stratum", st);
			emit_line(&out, l);
			cJSON_Delete(l);
			/* where it came from, and the quick search that set its kind */
			add_str(s, "position_id", id);
			add_str(s, "fen", fen);
			src = source_obj(g);
			add_num(src, "ply", (double)c->ply);
			mv = add_arr(src, "moves");
			for (size_t m = 0; m < c->ply; m++)
				push_str(mv, hist[m]);
			cJSON_AddItemToObject(s, "source", src);
			qk = obj();
			add_num(qk, "nodes", (double)nodes);
			add_num(qk, "multipv", 2);
			add_num(qk, "best_cp", (double)c->best);
			add_num(qk, "gap_cp", (double)c->gap);
			add_num(qk, "nonpawn_material", nonpawn_material(&q));
			cJSON_AddItemToObject(s, "quick", qk);
			emit_line(&sout, s);
			cJSON_Delete(s);
		}
		for (int k = 0; k < 3; k++)
			free(plies[k]);
		free(hist);
		free(cp);
	}
	uci_close(&sf);
	write_file(pos_out, &out);
	write_file(src_out, &sout);
	buf_release(&sout);
	fprintf(stderr, "positions: %zu openings, %ld quick searches in %.1f s\n", nch, searches,
	    mono_s() - t0);
	for (int ph = 0; ph < 3; ph++)
		fprintf(stderr, "  %-10s tactical %d ambiguous %d quiet %d\n", cand_phase_names[ph],
		    cell[ph][0], cell[ph][1], cell[ph][2]);
	fprintf(stderr, "  white to move %d, black to move %d\n", side_n[0], side_n[1]);

	buf_reset(&out);
	for (size_t b = 0; b < nbook; b++) {
		struct chess_pos q;
		char fen[CHESS_FEN_MAX], id[16], u[CHESS_UCI_MAX], san[CHESS_SAN_MAX];
		struct buf sant = BUF_INIT;
		cJSON *l = obj(), *mv;
		snprintf(id, sizeof id, "book-%02zu", b + 1);
		add_str(l, "opening", id);
		mv = add_arr(l, "moves");
		chess_start(&q);
		for (size_t m = 0; m < BOOK_PLIES; m++) {
			chess_uci_write(book[b]->moves[m], u);
			chess_san_write(&q, book[b]->moves[m], san);
			push_str(mv, u);
			if (m % 2 == 0)
				buf_printf(&sant, "%s%zu. ", m ? " " : "", m / 2 + 1);
			else
				buf_addc(&sant, ' ');
			buf_adds(&sant, san);
			chess_play(&q, book[b]->moves[m]);
		}
		chess_fen_write(&q, fen);
		add_str(l, "san", sant.p);
		add_str(l, "fen", fen);
		cJSON_AddItemToObject(l, "source", source_obj(book[b]));
		emit_line(&out, l);
		cJSON_Delete(l);
		buf_release(&sant);
	}
	write_file(book_out, &out);
	buf_release(&out);
	return 0;
}

/* ---- reading our own JSON Lines ---- */

static cJSON **
read_jsonl(const char *path, size_t *n)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON **v = NULL;
	size_t cap = 0;
	long lineno = 1;

	*n = 0;
	if (io_read_all(path, &b, IO_MAX_DOCUMENT, &e) < 0)
		die("%s", e.msg);
	for (char *p = b.p; p != NULL && *p != '\0'; lineno++) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 0) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				v = realloc(v, cap * sizeof *v);
				if (v == NULL)
					die("out of memory");
			}
			if ((v[*n] = json_parse(p, len, path, lineno, &e)) == NULL)
				die("%s", e.msg);
			(*n)++;
		}
		p = nl ? nl + 1 : p + len;
	}
	buf_release(&b);
	return v;
}

static const char *
jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsString(v))
		die("\"%s\": expected a string", k);
	return v->valuestring;
}

/* ---- games ---- */

struct opening {
	char id[32];
	char moves[BOOK_PLIES][CHESS_UCI_MAX];
};

static size_t
read_openings(const char *path, struct opening **out)
{
	size_t n;
	cJSON **v = read_jsonl(path, &n);
	*out = xcalloc(n, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		const cJSON *mv = cJSON_GetObjectItemCaseSensitive(v[i], "moves"), *m;
		size_t k = 0;
		snprintf((*out)[i].id, sizeof (*out)[i].id, "%s", jstr(v[i], "opening"));
		cJSON_ArrayForEach(m, mv) {
			if (k == BOOK_PLIES || !cJSON_IsString(m))
				die("%s: bad opening moves", path);
			snprintf((*out)[i].moves[k++], CHESS_UCI_MAX, "%s", m->valuestring);
		}
		if (k != BOOK_PLIES)
			die("%s: an opening of %zu plies", path, k);
		cJSON_Delete(v[i]);
	}
	free(v);
	return n;
}

/* Position key for repetitions: the position without its counters. */
static struct chess_pos
rep_key(const struct chess_pos *p)
{
	struct chess_pos k = *p;
	k.halfmove = 0;
	k.fullmove = 0;
	return k;
}

static int
cond_width(const char *c)
{
	if (strcmp(c, "none") == 0)
		return 0;
	if (strncmp(c, "top", 3) == 0 && atoi(c + 3) > 0)
		return atoi(c + 3);
	die("unknown condition %s", c);
}

static int
cmd_play(int argc, char **argv)
{
	const char *rep = NULL, *fam = NULL, *cond = NULL, *open_path = NULL, *ledger = NULL,
	           *reqs = NULL, *anchor_path = "/usr/games/stockfish";
	int block = 0, anchor = 0, shift = 0, hash = 16, games = 10;
	uint64_t fnodes = 5000, cnodes = 10000, anodes = 10000;

	for (int i = 0; i < argc; i++) {
		if (i + 1 >= argc)
			die("%s: needs a value", argv[i]);
		const char *o = argv[i], *v = argv[++i];
		if (strcmp(o, "--replication") == 0) rep = v;
		else if (strcmp(o, "--family") == 0) fam = v;
		else if (strcmp(o, "--condition") == 0) cond = v;
		else if (strcmp(o, "--block") == 0) block = atoi(v);
		else if (strcmp(o, "--anchor") == 0) anchor = atoi(v);
		else if (strcmp(o, "--anchor-engine") == 0) anchor_path = v;
		else if (strcmp(o, "--openings") == 0) open_path = v;
		else if (strcmp(o, "--opening-shift") == 0) shift = atoi(v);
		else if (strcmp(o, "--hash") == 0) hash = atoi(v);
		else if (strcmp(o, "--family-nodes") == 0) fnodes = strtoull(v, NULL, 10);
		else if (strcmp(o, "--cand-nodes") == 0) cnodes = strtoull(v, NULL, 10);
		else if (strcmp(o, "--anchor-nodes") == 0) anodes = strtoull(v, NULL, 10);
		else if (strcmp(o, "--games") == 0) games = atoi(v);
		else if (strcmp(o, "--ledger") == 0) ledger = v;
		else if (strcmp(o, "--requests") == 0) reqs = v;
		else die("play: unknown option %s", o);
	}
	if (!rep || !fam || !cond || !open_path || !ledger || !reqs || block < 1 || anchor < 1)
		die("play: missing options");
	const struct family *f = family_find(fam);
	int width = cond_width(cond);
	struct opening *ops;
	size_t nops = read_openings(open_path, &ops);

	struct uci fe, an, ca;
	char elo[32];
	snprintf(elo, sizeof elo, "UCI_Elo=%d", anchor);
	const char *aopts[] = { "Threads=1", "Hash=16", "UCI_LimitStrength=true", elo, NULL };
	const char *copts[] = { "Threads=1", "Hash=16", "MultiPV=10", NULL };
	family_open(&fe, f, hash);
	uci_open(&an, anchor_path, aopts, 0);
	if (width > 0) {
		uci_open(&ca, anchor_path, copts, 0);
		ca.multipv = 10;
	}

	struct buf lout = BUF_INIT, rout = BUF_INIT;
	for (int gi = 1; gi <= games; gi++) {
		const struct opening *op = &ops[(size_t)(shift + (block - 1) * 5 + (gi - 1) / 2) % nops];
		int fcolor = (gi % 2 == 1) ? CHESS_WHITE : CHESS_BLACK;
		char gid[128], started[TS_LEN], ended[TS_LEN];
		char (*moves)[CHESS_UCI_MAX] = xcalloc(MAXPLY, sizeof *moves);
		struct chess_pos *seen = xcalloc(MAXPLY + 1, sizeof *seen);
		size_t nm = 0, nseen = 0;
		struct chess_pos pos;
		struct err e = ERR_INIT;
		uint64_t tok = 0;
		const char *result = NULL, *term = NULL;
		cJSON *rq = cJSON_CreateArray();
		int nreq = 0;
		double t0;

		snprintf(gid, sizeof gid, "%s-%s-%s-b%02d-g%02d", rep, fam, cond, block, gi);
		now_rfc3339(started);
		t0 = mono_s();
		uci_newgame(&fe);
		uci_newgame(&an);
		chess_start(&pos);
		seen[nseen++] = rep_key(&pos);
		for (size_t k = 0; k < BOOK_PLIES; k++) {
			struct chess_move m;
			if (chess_uci_read(&pos, op->moves[k], &m, &e) < 0)
				die("opening %s: %s", op->id, e.msg);
			chess_play(&pos, m);
			snprintf(moves[nm++], CHESS_UCI_MAX, "%s", op->moves[k]);
			seen[nseen++] = rep_key(&pos);
		}
		for (;;) {
			enum chess_state st = chess_state(&pos);
			if (st == CHESS_CHECKMATE) {
				result = pos.side == fcolor ? "loss" : "win";
				term = "checkmate";
			} else if (st == CHESS_STALEMATE) {
				result = "draw", term = "stalemate";
			} else if (st == CHESS_INSUFFICIENT) {
				result = "draw", term = "insufficient_material";
			} else {
				struct chess_pos key = rep_key(&pos);
				int reps = 0;
				for (size_t k = 0; k < nseen; k++)
					reps += memcmp(&seen[k], &key, sizeof key) == 0;
				if (reps >= 3)
					result = "draw", term = "threefold_repetition";
				else if (pos.halfmove >= 100)
					result = "draw", term = "fifty_move_rule";
				else if (nm >= GAME_PLIES)
					result = "draw", term = "administrative_draw_200_plies";
			}
			if (result != NULL)
				break;
			struct engine_result r = ENGINE_RESULT_INIT;
			char best[CHESS_UCI_MAX];
			if ((int)pos.side == fcolor) {
				char sm[16][CHESS_UCI_MAX];
				size_t ns = 0;
				char fen[CHESS_FEN_MAX], rid[160];
				if (width > 0) {
					struct engine_result c = ENGINE_RESULT_INIT;
					chess_fen_write(&pos, fen);
					uci_send(&ca, "ucinewgame\n");
					uci_ready(&ca);
					uci_search(&ca, fen, NULL, 0, cnodes, &c);
					for (size_t k = 0; k < c.nlines && ns < (size_t)width; k++)
						if (c.lines[k].npv > 0)
							snprintf(sm[ns++], CHESS_UCI_MAX, "%s", line_move(&c.lines[k]));
					engine_result_release(&c);
					if (ns == 0)
						die("%s: no candidates at %s", gid, fen);
				}
				struct attempt at[MAX_ATTEMPTS];
				int na = family_search(&fe, NULL, moves, nm, fnodes, sm, ns, &r, at);
				nreq++;
				for (int k = 0; k < na; k++) {
					if (k == 0)
						snprintf(rid, sizeof rid, "%s-m%03d", gid, nreq);
					else
						snprintf(rid, sizeof rid, "%s-m%03d-a%d", gid, nreq, k + 1);
					push_str(rq, rid);
					tok += at[k].nodes;
					cJSON *q = obj(), *model = obj();
					add_num(q, "attempt", k + 1);
					add_str(q, "game_id", gid);
					add_num(q, "latency_ms", ms3(at[k].latency));
					add_str(model, "requested", f->id_name);
					add_str(model, "returned", fe.name);
					cJSON_AddItemToObject(q, "model", model);
					add_str(q, "request_id", rid);
					add_str(q, "status", at[k].ok ? "ok" : "error");
					cJSON_AddItemToObject(q, "tokens", tokens_obj(at[k].nodes));
					add_str(q, "ts", at[k].ts);
					emit_line(&rout, q);
					cJSON_Delete(q);
				}
			} else {
				uci_search(&an, NULL, moves, nm, anodes, &r);
			}
			snprintf(best, sizeof best, "%s", r.bestmove);
			engine_result_release(&r);
			struct chess_move m;
			if (chess_uci_read(&pos, best, &m, &e) < 0)
				die("%s: engine move %s: %s", gid, best, e.msg);
			chess_play(&pos, m);
			if (nm >= MAXPLY)
				die("%s: too long", gid);
			snprintf(moves[nm++], CHESS_UCI_MAX, "%s", best);
			if (m.promo != CHESS_NONE || pos.halfmove == 0)
				nseen = 0; /* an irreversible move: no earlier position can recur */
			seen[nseen++] = rep_key(&pos);
		}
		double wall = mono_s() - t0;
		now_rfc3339(ended);
		wall = json_round(wall, 0.001);
		cJSON *g = obj(), *model = obj(), *anc = obj(), *mv;
		add_str(anc, "binary_sha256", an.sha);
		add_num(anc, "elo", anchor);
		add_str(anc, "engine", an.name);
		add_str(anc, "limiter", "UCI_LimitStrength");
		add_num(anc, "nodes", (double)anodes);
		cJSON_AddItemToObject(g, "anchor", anc);
		add_num(g, "block", block);
		add_str(g, "color", fcolor == CHESS_WHITE ? "white" : "black");
		add_str(g, "condition", cond);
		add_str(g, "ended_at", ended);
		add_str(g, "family", fam);
		add_str(g, "game_id", gid);
		add_str(model, "requested", f->id_name);
		add_str(model, "returned", fe.name);
		cJSON_AddItemToObject(g, "model", model);
		mv = add_arr(g, "moves");
		for (size_t k = 0; k < nm; k++)
			push_str(mv, moves[k]);
		add_str(g, "opening", op->id);
		add_num(g, "plies", (double)nm);
		add_str(g, "replication", rep);
		cJSON_AddItemToObject(g, "requests", rq);
		add_str(g, "result", result);
		add_str(g, "started_at", started);
		add_str(g, "status", "terminal");
		add_str(g, "termination", term);
		cJSON_AddItemToObject(g, "tokens", tokens_obj(tok));
		add_num(g, "wall_s", wall);
		add_num(g, "worker_hours", json_round(wall / 3600.0, 1e-6));
		emit_line(&lout, g);
		cJSON_Delete(g);
		free(moves);
		free(seen);
	}
	uci_close(&fe);
	uci_close(&an);
	if (width > 0)
		uci_close(&ca);
	write_file(ledger, &lout);
	write_file(reqs, &rout);
	buf_release(&lout);
	buf_release(&rout);
	free(ops);
	return 0;
}

/* ---- the order of shown candidates ---- */

/* splitmix64 (Steele, Lea and Flood 2014; Vigna's reference constants). */
static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* FNV-1a, 64 bits, of a position id's bytes. */
static uint64_t
fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* perm[0..n) = the order of n shown moves for (order_seed, position_id):
 * Fisher-Yates from the end, j = splitmix64() mod (i + 1), the stream
 * started at fnv1a64(position_id) XOR (order_seed * 0x9e3779b97f4a7c15). */
static void
permutation(long seed, const char *position_id, size_t n, size_t *perm)
{
	uint64_t st = fnv1a64(position_id) ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ULL);
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&st) % (uint64_t)i);
		size_t t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

static int
cmd_perm(int argc, char **argv)
{
	size_t n, perm[64];
	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) > 64)
		die("perm ORDER_SEED POSITION_ID N");
	permutation(atol(argv[0]), argv[1], n, perm);
	for (size_t i = 0; i < n; i++)
		printf("%s%zu", i ? " " : "", perm[i]);
	printf("\n");
	return 0;
}

/* ---- decisions ---- */

struct budget {
	char name[32];
	uint64_t nodes;
};

struct hist_pos {
	const char *id;
	char (*moves)[CHESS_UCI_MAX];
	size_t n;
};

struct decide {
	const char *rep, *fam;
	const struct family *f;
	struct uci u;
	const struct candidates *c;
	struct buf dout, rout;
	long count;
};

/* One decision: its search and its two records. */
static void
decision(struct decide *d, const struct cand_position *p, const char *cond, const char *context,
    const struct budget *b, long seed, const struct hist_pos *h)
{
	char shown[16][CHESS_UCI_MAX], id[256], ts[TS_LEN], fen[CHESS_FEN_MAX];
	size_t ns = 0, perm[16];
	int propose = strcmp(cond, "propose") == 0, esel = strcmp(cond, "engine-selects") == 0;
	int width = 0, omit = 0;
	struct engine_result r = ENGINE_RESULT_INIT;
	double lat;

	if (strcmp(cond, "top5-omit-best") == 0)
		width = 5, omit = 1;
	else if (strncmp(cond, "top", 3) == 0)
		width = atoi(cond + 3);
	if (width > 0) {
		size_t from = (size_t)omit, n = p->ncand > from ? p->ncand - from : 0;
		if (n > (size_t)width)
			n = (size_t)width;
		permutation(seed, p->id, n, perm);
		for (size_t i = 0; i < n; i++)
			snprintf(shown[ns++], CHESS_UCI_MAX, "%s", p->cand[from + perm[i]].uci);
	}
	uci_multipv(&d->u, propose || esel ? 3 : 1);
	if (h == NULL)
		uci_newgame(&d->u);
	snprintf(fen, sizeof fen, "%s", p->fen);
	struct attempt at[MAX_ATTEMPTS];
	int na;
	uint64_t nodes = 0;
	if (h == NULL)
		na = family_search(&d->u, fen, NULL, 0, b->nodes, shown, ns, &r, at);
	else
		na = family_search(&d->u, NULL, h->moves, h->n, b->nodes, shown, ns, &r, at);
	lat = 0;
	for (int k = 0; k < na; k++) {
		lat += ms3(at[k].latency);
		nodes += at[k].nodes;
	}
	snprintf(ts, sizeof ts, "%s", at[0].ts);

	if (seed > 0)
		snprintf(id, sizeof id, "%s-%s-%s-%s-s%ld-%s-%s", d->rep, d->fam, p->id, cond, seed,
		    b->name, context);
	else
		snprintf(id, sizeof id, "%s-%s-%s-%s-%s-%s", d->rep, d->fam, p->id, cond, b->name,
		    context);
	cJSON *rec = obj(), *model = obj(), *arr;
	const char *chosen = r.bestmove;
	char pick[CHESS_UCI_MAX] = "";
	add_str(rec, "budget", b->name);
	add_str(rec, "context", context);
	add_str(rec, "decision_id", id);
	add_str(rec, "family", d->fam);
	add_str(model, "requested", d->f->id_name);
	add_str(model, "returned", d->u.name);
	cJSON_AddItemToObject(rec, "model", model);
	add_str(rec, "condition", cond);
	add_num(rec, "nodes", (double)b->nodes);
	add_num(rec, "order_seed", (double)seed);
	add_str(rec, "position_id", p->id);
	arr = add_arr(rec, "shown");
	for (size_t i = 0; i < ns; i++)
		push_str(arr, shown[i]);
	if (propose || esel) {
		long bestv = LONG_MIN;
		arr = add_arr(rec, "proposed");
		for (size_t i = 0; i < r.nlines && i < 3; i++) {
			struct chess_move m;
			struct err e = ERR_INIT;
			int rank;
			const struct cand_move *cm;
			if (r.lines[i].npv == 0)
				continue;
			push_str(arr, line_move(&r.lines[i]));
			if (chess_uci_read(&p->pos, line_move(&r.lines[i]), &m, &e) < 0)
				die("%s: proposed %s: %s", id, line_move(&r.lines[i]), e.msg);
			if ((cm = cand_score_of(p, m, &rank)) != NULL && cand_value(cm) > bestv) {
				bestv = cand_value(cm);
				snprintf(pick, sizeof pick, "%s", line_move(&r.lines[i]));
			}
		}
		if (esel) {
			add_str(rec, "family_bestmove", r.bestmove);
			if (pick[0] == '\0')
				die("%s: no proposed move is scored in the manifest", id);
			chosen = pick;
		}
	}
	add_str(rec, "chosen", chosen);
	add_str(rec, "replication", d->rep);
	/* one request an attempt: the decision's id, then -a2, -a3 ... */
	char rid[sizeof id + 8];
	arr = add_arr(rec, "requests");
	for (int k = 0; k < na; k++) {
		if (k == 0)
			snprintf(rid, sizeof rid, "%s", id);
		else
			snprintf(rid, sizeof rid, "%s-a%d", id, k + 1);
		push_str(arr, rid);
		cJSON *q = obj(), *qm = obj();
		add_num(q, "attempt", k + 1);
		json_add_null(q, "game_id");
		add_num(q, "latency_ms", ms3(at[k].latency));
		add_str(qm, "requested", d->f->id_name);
		add_str(qm, "returned", d->u.name);
		cJSON_AddItemToObject(q, "model", qm);
		add_str(q, "request_id", rid);
		add_str(q, "status", at[k].ok ? "ok" : "error");
		cJSON_AddItemToObject(q, "tokens", tokens_obj(at[k].nodes));
		add_str(q, "ts", at[k].ts);
		emit_line(&d->rout, q);
		cJSON_Delete(q);
	}
	add_num(rec, "retries", na - 1);
	add_str(rec, "status", "ok");
	json_add_null(rec, "failure");
	cJSON_AddItemToObject(rec, "tokens", tokens_obj(nodes));
	add_num(rec, "latency_ms", json_round(lat, 0.001));
	add_str(rec, "ts", ts);
	emit_line(&d->dout, rec);
	cJSON_Delete(rec);
	engine_result_release(&r);
	d->count++;
}

static int
cmd_decide(int argc, char **argv)
{
	const char *cpath = NULL, *ppath = NULL, *dpath = NULL, *rpath = NULL, *hist_budget = "medium";
	struct decide d;
	struct budget bud[8];
	size_t nb = 0, nseeds = 0;
	long seeds[8];
	int hash = 16;
	struct err e = ERR_INIT;

	memset(&d, 0, sizeof d);
	for (int i = 0; i < argc; i++) {
		if (i + 1 >= argc)
			die("%s: needs a value", argv[i]);
		const char *o = argv[i], *v = argv[++i];
		if (strcmp(o, "--replication") == 0) d.rep = v;
		else if (strcmp(o, "--family") == 0) d.fam = v;
		else if (strcmp(o, "--candidates") == 0) cpath = v;
		else if (strcmp(o, "--sources") == 0) ppath = v;
		else if (strcmp(o, "--hash") == 0) hash = atoi(v);
		else if (strcmp(o, "--history-budget") == 0) hist_budget = v;
		else if (strcmp(o, "--decisions") == 0) dpath = v;
		else if (strcmp(o, "--requests") == 0) rpath = v;
		else if (strcmp(o, "--seeds") == 0) {
			char *s = xstrdup(v), *tok, *sv;
			for (tok = strtok_r(s, ",", &sv); tok && nseeds < 8; tok = strtok_r(NULL, ",", &sv))
				seeds[nseeds++] = atol(tok);
			free(s);
		} else if (strcmp(o, "--budgets") == 0) {
			char *s = xstrdup(v), *tok, *sv;
			for (tok = strtok_r(s, ",", &sv); tok && nb < 8; tok = strtok_r(NULL, ",", &sv)) {
				char *eq = strchr(tok, '=');
				if (eq == NULL)
					die("--budgets: expected name=nodes");
				snprintf(bud[nb].name, sizeof bud[nb].name, "%.*s", (int)(eq - tok), tok);
				bud[nb++].nodes = strtoull(eq + 1, NULL, 10);
			}
			free(s);
		} else die("decide: unknown option %s", o);
	}
	if (!d.rep || !d.fam || !cpath || !ppath || !dpath || !rpath || nb == 0 || nseeds == 0)
		die("decide: missing options");
	d.f = family_find(d.fam);
	struct candidates c = CANDIDATES_INIT;
	if (cand_read(cpath, &c, &e) < 0)
		die("%s", e.msg);
	d.c = &c;

	/* the source games' moves (positions-source.jsonl), for the history
	 * context */
	size_t np;
	cJSON **pv = read_jsonl(ppath, &np);
	struct hist_pos *hp = xcalloc(np, sizeof *hp);
	for (size_t i = 0; i < np; i++) {
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(pv[i], "source");
		const cJSON *mv = cJSON_GetObjectItemCaseSensitive(src, "moves"), *m;
		hp[i].id = jstr(pv[i], "position_id");
		hp[i].moves = xcalloc((size_t)cJSON_GetArraySize(mv) + 1, sizeof *hp[i].moves);
		cJSON_ArrayForEach(m, mv)
			snprintf(hp[i].moves[hp[i].n++], CHESS_UCI_MAX, "%s", m->valuestring);
		const struct cand_position *p = cand_find(&c, hp[i].id);
		struct chess_pos q;
		char f1[CHESS_FEN_MAX], f2[CHESS_FEN_MAX];
		if (p == NULL)
			die("%s: position %s is not in the manifest", ppath, hp[i].id);
		chess_start(&q);
		for (size_t k = 0; k < hp[i].n; k++) {
			struct chess_move mm;
			if (chess_uci_read(&q, hp[i].moves[k], &mm, &e) < 0)
				die("%s: %s: %s", ppath, hp[i].id, e.msg);
			chess_play(&q, mm);
		}
		chess_fen_write(&q, f1);
		chess_fen_write(&p->pos, f2);
		if (strcmp(f1, f2) != 0)
			die("%s: %s: the source moves do not reach the manifest's FEN", ppath, hp[i].id);
	}

	family_open(&d.u, d.f, hash);
	double t0 = mono_s();
	static const char *const widths[] = { "top2", "top3", "top5", "top10" };
	for (size_t i = 0; i < c.n; i++) {
		const struct cand_position *p = &c.p[i];
		for (size_t k = 0; k < nb; k++) {
			decision(&d, p, "none", "fresh", &bud[k], 0, NULL);
			for (size_t w = 0; w < 4; w++)
				for (size_t s = 0; s < nseeds; s++)
					decision(&d, p, widths[w], "fresh", &bud[k], seeds[s], NULL);
			decision(&d, p, "top5-omit-best", "fresh", &bud[k], seeds[0], NULL);
			decision(&d, p, "propose", "fresh", &bud[k], 0, NULL);
			decision(&d, p, "engine-selects", "fresh", &bud[k], 0, NULL);
		}
	}
	/* history: each opening's positions in game order, one game's
	 * conversation (ucinewgame once, then position startpos moves ...) */
	const struct budget *hb = NULL;
	for (size_t k = 0; k < nb; k++)
		if (strcmp(bud[k].name, hist_budget) == 0)
			hb = &bud[k];
	if (hb == NULL)
		die("--history-budget %s: not a budget", hist_budget);
	static const char *const hconds[] = { "none", "top3" };
	for (size_t hc = 0; hc < 2; hc++) {
		const char *prev = "";
		for (size_t i = 0; i < np; i++) {
			const struct cand_position *p = cand_find(&c, hp[i].id);
			if (strcmp(p->opening, prev) != 0) {
				uci_multipv(&d.u, 1);
				uci_newgame(&d.u);
				prev = p->opening;
			}
			decision(&d, p, hconds[hc], "history", hb, hc == 0 ? 0 : seeds[0], &hp[i]);
		}
	}
	uci_close(&d.u);
	write_file(dpath, &d.dout);
	write_file(rpath, &d.rout);
	fprintf(stderr, "decide %s %s: %ld decisions in %.1f s\n", d.rep, d.fam, d.count,
	    mono_s() - t0);
	for (size_t i = 0; i < np; i++) {
		free(hp[i].moves);
	}
	free(hp);
	for (size_t i = 0; i < np; i++)
		cJSON_Delete(pv[i]);
	free(pv);
	cand_release(&c);
	buf_release(&d.dout);
	buf_release(&d.rout);
	return 0;
}

/* ---- billing ---- */

static int
cmd_billing(int argc, char **argv)
{
	double price = 0;
	int i = 0;

	if (argc >= 2 && strcmp(argv[0], "--price") == 0) {
		price = strtod(argv[1], NULL);
		i = 2;
	}
	printf("request_id,ts,model,input_tokens,output_tokens,reasoning_tokens,cached_tokens,cost\n");
	for (; i < argc; i++) {
		size_t n;
		cJSON **v = read_jsonl(argv[i], &n);
		for (size_t k = 0; k < n; k++) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(v[k], "tokens");
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(v[k], "model");
			const cJSON *lat = cJSON_GetObjectItemCaseSensitive(v[k], "latency_ms");
			double cost = json_round(lat->valuedouble / 3.6e6 * price, 1e-9);
			printf("%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%.9f\n", jstr(v[k], "request_id"),
			    jstr(v[k], "ts"), jstr(m, "returned"),
			    cJSON_GetObjectItemCaseSensitive(t, "input")->valuedouble,
			    cJSON_GetObjectItemCaseSensitive(t, "output")->valuedouble,
			    cJSON_GetObjectItemCaseSensitive(t, "reasoning")->valuedouble,
			    cJSON_GetObjectItemCaseSensitive(t, "cached")->valuedouble, cost);
			cJSON_Delete(v[k]);
		}
		free(v);
	}
	return fflush(stdout) == 0 ? 0 : 2;
}

/* ---- reading cohort's answer ---- */

static int
cmd_next(int argc, char **argv)
{
	struct err e = ERR_INIT;
	cJSON *v;
	const cJSON *next;

	if (argc != 1)
		die("next FILE");
	if ((v = json_parse_file(argv[0], &e)) == NULL)
		die("%s", e.msg);
	next = cJSON_GetObjectItemCaseSensitive(v, "next");
	const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(v, "blocks");
	if (!cJSON_IsNumber(blocks))
		die("%s: \"blocks\": expected a number", argv[0]);
	if (cJSON_IsNumber(next))
		printf("%.0f %.0f %s\n", next->valuedouble, blocks->valuedouble, jstr(v, "rule"));
	else
		printf("stop %.0f %s %s\n", blocks->valuedouble, jstr(v, "state"), jstr(v, "rule"));
	cJSON_Delete(v);
	return 0;
}

/* ---- checks without engines ---- */

static int
cmd_legal(int argc, char **argv)
{
	struct candidates c = CANDIDATES_INIT;
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;

	if (argc != 1)
		die("legal MANIFEST");
	if (cand_read(argv[0], &c, &e) < 0)
		die("%s", e.msg);
	for (size_t i = 0; i < c.n; i++) {
		struct chess_move ms[CHESS_MAX_MOVES];
		int n = chess_moves(&c.p[i].pos, ms);
		cJSON *l = obj(), *a;
		add_str(l, "position_id", c.p[i].id);
		a = add_arr(l, "legal");
		for (int k = 0; k < n; k++) {
			char u[CHESS_UCI_MAX];
			chess_uci_write(ms[k], u);
			push_str(a, u);
		}
		emit_line(&out, l);
		cJSON_Delete(l);
	}
	fwrite(out.p, 1, out.len, stdout);
	buf_release(&out);
	cand_release(&c);
	return fflush(stdout) == 0 ? 0 : 2;
}

/* Every game again from the start: its moves legal, its plies their
 * number, its ending the one its last position shows, its result the
 * family's.  Prints one line of counts; exit 1 on the first mismatch. */
static int
cmd_replay(int argc, char **argv)
{
	long games = 0, plies = 0;

	for (int a = 0; a < argc; a++) {
		size_t n;
		cJSON **v = read_jsonl(argv[a], &n);
		for (size_t k = 0; k < n; k++) {
			const cJSON *mv = cJSON_GetObjectItemCaseSensitive(v[k], "moves"), *m;
			const char *gid = jstr(v[k], "game_id"), *term = jstr(v[k], "termination");
			const char *res = jstr(v[k], "result");
			int fcolor = strcmp(jstr(v[k], "color"), "white") == 0 ? CHESS_WHITE : CHESS_BLACK;
			struct chess_pos pos, *seen = xcalloc(MAXPLY + 1, sizeof *seen);
			size_t nm = 0, nseen = 0;
			struct err e = ERR_INIT;
			const char *want_term = NULL, *want_res = "draw";
			chess_start(&pos);
			seen[nseen++] = rep_key(&pos);
			cJSON_ArrayForEach(m, mv) {
				struct chess_move cm;
				if (!cJSON_IsString(m) || chess_uci_read(&pos, m->valuestring, &cm, &e) < 0) {
					printf("%s: move %zu: %s\n", gid, nm + 1, e.msg);
					return 1;
				}
				if (chess_state(&pos) != CHESS_ONGOING) {
					printf("%s: a move after the end\n", gid);
					return 1;
				}
				chess_play(&pos, cm);
				if (cm.promo != CHESS_NONE || pos.halfmove == 0)
					nseen = 0;
				seen[nseen++] = rep_key(&pos);
				nm++;
			}
			enum chess_state st = chess_state(&pos);
			struct chess_pos key = rep_key(&pos);
			int reps = 0;
			for (size_t i = 0; i < nseen; i++)
				reps += memcmp(&seen[i], &key, sizeof key) == 0;
			if (st == CHESS_CHECKMATE) {
				want_term = "checkmate";
				want_res = pos.side == fcolor ? "loss" : "win";
			} else if (st == CHESS_STALEMATE) {
				want_term = "stalemate";
			} else if (st == CHESS_INSUFFICIENT) {
				want_term = "insufficient_material";
			} else if (reps >= 3) {
				want_term = "threefold_repetition";
			} else if (pos.halfmove >= 100) {
				want_term = "fifty_move_rule";
			} else if (nm >= GAME_PLIES) {
				want_term = "administrative_draw_200_plies";
			}
			const cJSON *pl = cJSON_GetObjectItemCaseSensitive(v[k], "plies");
			if (want_term == NULL || strcmp(want_term, term) != 0 || strcmp(want_res, res) != 0 ||
			    !cJSON_IsNumber(pl) || pl->valuedouble != (double)nm) {
				printf("%s: ends as %s %s after %zu plies, recorded %s %s\n", gid,
				    want_term ? want_term : "ongoing", want_res, nm, term, res);
				return 1;
			}
			games++;
			plies += (long)nm;
			free(seen);
			cJSON_Delete(v[k]);
		}
		free(v);
	}
	printf("replayed %ld games, %ld plies: every move legal, every ending as recorded\n", games,
	    plies);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: panel positions|play|decide|billing|next|perm|legal|replay ...");
	if (strcmp(argv[1], "positions") == 0)
		return cmd_positions(argc - 2, argv + 2);
	if (strcmp(argv[1], "play") == 0)
		return cmd_play(argc - 2, argv + 2);
	if (strcmp(argv[1], "decide") == 0)
		return cmd_decide(argc - 2, argv + 2);
	if (strcmp(argv[1], "billing") == 0)
		return cmd_billing(argc - 2, argv + 2);
	if (strcmp(argv[1], "next") == 0)
		return cmd_next(argc - 2, argv + 2);
	if (strcmp(argv[1], "perm") == 0)
		return cmd_perm(argc - 2, argv + 2);
	if (strcmp(argv[1], "legal") == 0)
		return cmd_legal(argc - 2, argv + 2);
	if (strcmp(argv[1], "replay") == 0)
		return cmd_replay(argc - 2, argv + 2);
	die("unknown command %s", argv[1]);
}
