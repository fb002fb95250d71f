/* chess_pgn.c: the PGN reader and writer.  Driven by tests/chess.test.sh.
 *   chess_pgn count FILE      games, results, unsupported and refused games,
 *                             null moves; every game replayed on its own
 *   chess_pgn fen FILE        each game's last position as FEN
 *   chess_pgn san FILE        each game's moves in SAN as written here
 *   chess_pgn roundtrip FILE  write every game, read it again: same tags,
 *                             moves and result; no line over 79 columns
 *   chess_pgn selftest        malformed and edge-case inputs built in
 * Messages of refused games go to stdout after the counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/pgn.h"

static int
load(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	fclose(f);
	return 0;
}

/* Replay g on a fresh position, checking each move with chess_is_legal. */
static int
replays(const struct chess_pgn_game *g)
{
	struct chess_pos p = g->start;

	for (size_t i = 0; i < g->nmoves; i++) {
		struct chess_move m = g->moves[i];

		if (chess_move_is_null(m) ? chess_in_check(&p) : !chess_is_legal(&p, m))
			return 0;
		chess_play(&p, m);
	}
	return memcmp(&p, &g->end, sizeof p) == 0;
}

static int
count(const char *path)
{
	struct buf in = BUF_INIT, msgs = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	unsigned long results[4] = { 0 }, games = 0, unsup = 0, errors = 0, nulls = 0, bad = 0, plies = 0;
	int rc;

	if (load(path, &in) < 0)
		return 2;
	chess_pgn_reader_init(&r, in.p, in.len, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	for (;;) {
		struct err e = ERR_INIT;

		if ((rc = chess_pgn_next(&r, &g, &e)) == CHESS_PGN_END)
			break;
		games++;
		if (rc == CHESS_PGN_ERROR) {
			errors++;
			buf_printf(&msgs, "%s\n", e.msg);
			continue;
		}
		results[g.result]++;
		if (rc == CHESS_PGN_UNSUPPORTED) {
			unsup++;
			buf_printf(&msgs, "%s\n", e.msg);
			continue;
		}
		nulls += g.nulls;
		bad += !replays(&g);
		plies += chess_pgn_tag(&g, "PlyCount") != NULL &&
		    strtoul(chess_pgn_tag(&g, "PlyCount"), NULL, 10) != g.nmoves;
	}
	printf("games %lu (1-0 %lu, 0-1 %lu, 1/2-1/2 %lu, * %lu), unsupported %lu, refused %lu, "
	       "null moves %lu, replay failures %lu, PlyCount mismatches %lu\n",
	    games, results[CHESS_RESULT_WHITE], results[CHESS_RESULT_BLACK], results[CHESS_RESULT_DRAW],
	    results[CHESS_RESULT_UNKNOWN], unsup, errors, nulls, bad, plies);
	fputs(msgs.p ? msgs.p : "", stdout);
	chess_pgn_game_release(&g);
	buf_release(&in);
	buf_release(&msgs);
	return 0;
}

static int
fens(const char *path)
{
	struct buf in = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;
	char fen[CHESS_FEN_MAX];
	int rc, status = 0;

	if (load(path, &in) < 0)
		return 2;
	chess_pgn_reader_init(&r, in.p, in.len, "in.pgn");
	while ((rc = chess_pgn_next(&r, &g, &e)) != CHESS_PGN_END) {
		if (rc != CHESS_PGN_GAME) {
			printf("%s\n", e.msg);
			status = 1;
			continue;
		}
		chess_fen_write(&g.end, fen);
		printf("%s\n", fen);
	}
	chess_pgn_game_release(&g);
	buf_release(&in);
	return status;
}

/* Each game's moves as this module writes them in SAN, one game a line. */
static int
sans(const char *path)
{
	struct buf in = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (load(path, &in) < 0)
		return 2;
	chess_pgn_reader_init(&r, in.p, in.len, "in.pgn");
	while ((rc = chess_pgn_next(&r, &g, &e)) != CHESS_PGN_END) {
		struct chess_pos p = g.start;
		char san[CHESS_SAN_MAX];

		if (rc != CHESS_PGN_GAME)
			continue;
		for (size_t i = 0; i < g.nmoves; i++) {
			chess_san_write(&p, g.moves[i], san);
			printf("%s%s", i ? " " : "", san);
			chess_play(&p, g.moves[i]);
		}
		printf("\n");
	}
	chess_pgn_game_release(&g);
	buf_release(&in);
	return 0;
}

/* The tags the writer should write: the roster first, then the rest. */
static int
same_tags(const struct chess_pgn_game *a, const struct chess_pgn_game *b)
{
	static const char *const roster[7] = { "Event", "Site", "Date", "Round", "White", "Black",
		"Result" };

	for (int i = 0; i < 7; i++) {
		const char *x = chess_pgn_tag(a, roster[i]), *y = chess_pgn_tag(b, roster[i]);

		if (i == 6 ? strcmp(y, chess_result_text(a->result)) != 0 : x && strcmp(x, y) != 0)
			return 0;
		if (strcmp(b->tags[i].name, roster[i]) != 0)
			return 0;
	}
	for (size_t i = 0, j = 7; i < a->ntags; i++) {
		int k;

		for (k = 0; k < 7 && strcmp(a->tags[i].name, roster[k]) != 0; k++)
			;
		if (k < 7)
			continue;
		if (j >= b->ntags || strcmp(a->tags[i].name, b->tags[j].name) != 0 ||
		    strcmp(a->tags[i].value, b->tags[j].value) != 0)
			return 0;
		j++;
	}
	return 1;
}

static int
same_game(const struct chess_pgn_game *a, const struct chess_pgn_game *b)
{
	return a->nmoves == b->nmoves && a->result == b->result &&
	    (a->nmoves == 0 || memcmp(a->moves, b->moves, a->nmoves * sizeof a->moves[0]) == 0) &&
	    memcmp(&a->start, &b->start, sizeof a->start) == 0 && same_tags(a, b);
}

/* The longest line of movetext (tag lines may be longer). */
static int
longest_line(const struct buf *b)
{
	int longest = 0;

	for (size_t i = 0, start = 0; i <= b->len; i++) {
		if (i == b->len || b->p[i] == '\n') {
			if (i > start && b->p[start] != '[' && (int)(i - start) > longest)
				longest = (int)(i - start);
			start = i + 1;
		}
	}
	return longest;
}

/* One game written alone and read back. */
static int
round_trip_one(const struct chess_pgn_game *g, int *widest)
{
	struct buf out = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game back = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;
	int ok = 0;

	if (chess_pgn_write(&out, g, &e) < 0) {
		printf("game %lu: write: %s\n", g->number, e.msg);
		return 0;
	}
	chess_pgn_reader_init(&r, out.p, out.len, "written.pgn");
	if (chess_pgn_next(&r, &back, &e) != CHESS_PGN_GAME)
		printf("game %lu: read back: %s\n", g->number, e.msg);
	else if (!same_game(g, &back))
		printf("game %lu: read back as another game\n", g->number);
	else if (chess_pgn_next(&r, &back, &e) != CHESS_PGN_END)
		printf("game %lu: more than one game written\n", g->number);
	else
		ok = 1;
	if (longest_line(&out) > *widest)
		*widest = longest_line(&out);
	chess_pgn_game_release(&back);
	buf_release(&out);
	return ok;
}

static int
roundtrip(const char *path)
{
	struct buf in = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;
	int rc, n = 0, good = 0, widest = 0;

	if (load(path, &in) < 0)
		return 2;
	chess_pgn_reader_init(&r, in.p, in.len, "in.pgn");
	while ((rc = chess_pgn_next(&r, &g, &e)) != CHESS_PGN_END) {
		if (rc != CHESS_PGN_GAME)
			continue;
		n++;
		good += round_trip_one(&g, &widest);
	}
	chess_pgn_game_release(&g);
	buf_release(&in);
	printf("%d of %d games read back the same; widest movetext line %d\n", good, n, widest);
	return good == n && n > 0 && widest <= 79 ? 0 : 1;
}

/* ---- selftest ---- */

struct pgn_case {
	const char *name;
	const char *in;
	size_t len;
	const char *outcomes; /* a letter a game: G game, U unsupported, E refused */
	const char *msg;      /* found in the first message, or NULL */
	int moves;            /* the first game's move count, or -1 */
	unsigned long line;   /* the first game's line, or 0 */
};

#define CASE(name, text, outcomes, msg, moves, line) \
	{ name, text, sizeof text - 1, outcomes, msg, moves, line }

static const struct pgn_case cases[] = {
	CASE("empty input", "", "", NULL, -1, 0),
	CASE("white space only", " \r\n\t\n", "", NULL, -1, 0),
	CASE("bare movetext", "\n\n1. e4 e5 *", "G", NULL, 2, 3),
	CASE("BOM and CRLF", "\xEF\xBB\xBF[Event \"a\"]\r\n\r\n1. e4 e5 1-0\r\n\r\n[Event \"b\"]\r\n*", "GG", NULL, 2, 1),
	CASE("blank line in the tags", "[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 *\n", "G", NULL, 1, 1),
	CASE("percent lines", "% a comment line\n[Event \"a\"]\n% another\n1. e4 *", "G", NULL, 1, 2),
	CASE("move numbers in every form", "1.e4 1... e5 2. Nf3 2...Nc6 3 Bb5 ... a6 *", "G", NULL, 6, 1),
	CASE("huge move numbers", "99999999999999999999999. e4 e5 *", "G", NULL, 2, 1),
	CASE("a word too long", "1. e4 123456789012345678901234567890123. e5 *", "E",
	    "t.pgn:1: game 1: a word longer than 32 bytes", -1, 0),
	CASE("comments, NAGs, glyphs", "1. e4 {best by test} $1 e5 ; to the end {\n 2. Nf3 !? Nc6 $14 *", "G", NULL, 4, 1),
	CASE("variations skipped", "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... e5 (1... c5 {(}) *", "G", NULL, 2, 1),
	CASE("unterminated comment", "1. e4 { never closed\n e5 *", "E",
	    "t.pgn:1: game 1: a comment opened here is not closed", -1, 0),
	CASE("unterminated variation", "1. e4\n(1. d4 d5\n\n", "E",
	    "t.pgn:2: game 1: a variation opened here is not closed", -1, 0),
	CASE("stray close", "1. e4 ) e5 *", "E", "t.pgn:1: game 1: unexpected ')' in the movetext", -1, 0),
	CASE("unterminated tag value", "[Event \"x\n1. e4 *", "E",
	    "t.pgn:1: game 1: tag Event: the value is not closed on its line", -1, 0),
	CASE("tag without ]", "[Event \"x\"\n1. e4 *", "E", "tag Event: expected ] after the value", -1, 0),
	CASE("tag cut at the end", "[Event \"x", "E", "tag Event: the value is not closed on its line", -1, 0),
	CASE("tag without a name", "[ \"x\"]\n*", "E", "a tag without a name", -1, 0),
	CASE("tag escapes", "[White \"a \\\"b\\\" \\\\ c \\d\"]\n*", "G", NULL, 0, 1),
	CASE("non-UTF-8 tag", "[White \"Caf\xe9\"]\n1. e4 *\n[White \"b\"]\n*", "EG",
	    "t.pgn:1: game 1: tag White: the value is not UTF-8", -1, 0),
	CASE("UTF-8 tag", "[White \"Caf\xc3\xa9\"]\n1. e4 *", "G", NULL, 1, 1),
	CASE("NUL in a tag", "[White \"a\0b\"]\n1. e4 *", "E", "tag White: a NUL byte in the value", -1, 0),
	CASE("NUL in movetext", "1. e4\0 e5 *", "E", "unexpected byte 0x00 in the movetext", -1, 0),
	CASE("NUL in a comment", "1. e4 {a\0b} e5 *", "G", NULL, 2, 1),
	CASE("duplicate tag", "[White \"a\"]\n[White \"b\"]\n*", "E", "t.pgn:2: game 1: tag White appears twice", -1, 0),
	CASE("missing result, next game read", "1. e4 e5\n\n[Event \"n\"]\n1. d4 *", "EG",
	    "t.pgn:3: game 1: the movetext ends without a result", -1, 0),
	CASE("missing result at the end", "[Event \"n\"]\n1. d4", "E", "the movetext ends without a result", -1, 0),
	CASE("result against the tag", "[Result \"1-0\"]\n1. e4 0-1", "E",
	    "the movetext ends with 0-1 but the Result tag says 1-0", -1, 0),
	CASE("illegal white move, then on", "*\n*\n[Event \"3\"]\n1. e4 e5 2. Nxe5 Nf6 *\n[Event \"4\"]\n*", "GGEG",
	    "t.pgn:4: game 3, move 2. Nxe5: illegal in this position", -1, 0),
	CASE("illegal black move", "1. e4 Nxe5 *", "E", "t.pgn:1: game 1, move 1... Nxe5: illegal in this position", -1, 0),
	CASE("ambiguous move", "[FEN \"4k3/8/8/8/8/8/4K3/R6R w - - 0 1\"]\n1. Rd1 *", "E",
	    "t.pgn:2: game 1, move 1. Rd1: ambiguous: Rad1 or Rhd1", -1, 0),
	CASE("not a move", "1. e4 hello *", "E", "move 1... hello: not a move in SAN", -1, 0),
	CASE("UCI movetext", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 e7e8q *", "E",
	    "move 4... e7e8q: illegal in this position", -1, 0),
	CASE("UCI castling", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 *", "G", NULL, 7, 1),
	CASE("null moves", "1. e4 -- 2. d4 Z0 3. c4 0000 *", "G", NULL, 6, 1),
	CASE("null move in check", "1. e4 f5 2. Qh5+ -- *", "E", "move 2... --: a null move while in check", -1, 0),
	CASE("from a FEN, black to move", "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 2. e4 *",
	    "G", NULL, 2, 1),
	CASE("truncated FEN", "[SetUp \"1\"]\n[FEN \"4k3/8/8 w - - 0 1\"]\n*", "E",
	    "t.pgn:1: game 1: tag FEN: fen: the placement has 3 ranks, not 8", -1, 0),
	CASE("7-field FEN", "[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1 x\"]\n*", "E",
	    "tag FEN: fen: expected 6 fields separated by single spaces, found 7", -1, 0),
	CASE("FEN with SetUp 0", "[SetUp \"0\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n*", "E",
	    "a FEN tag with SetUp \"0\"", -1, 0),
	CASE("SetUp without FEN", "[SetUp \"1\"]\n*", "E", "tag SetUp is \"1\" but there is no FEN tag", -1, 0),
	CASE("variant, then on", "[Variant \"Crazyhouse\"]\n1. e4 e5 2. N@f3 (2. Nc3) 1-0\n\n1. e4 *", "UG",
	    "t.pgn:1: game 1: variant \"Crazyhouse\" is not supported", -1, 0),
	CASE("Chess960", "[Variant \"fischerandom\"]\n*", "U", "variant \"fischerandom\" (Chess960) is not supported", -1, 0),
	CASE("variant named standard", "[Variant \"Standard\"]\n1. e4 *", "G", NULL, 1, 1),
	CASE("bad NAG", "1. e4 $ e5 *", "E", "a NAG must be $ and one to three digits", -1, 0),
	CASE("checkmate", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0", "G", NULL, 7, 1),
	CASE("comment before the tags", "{intro}\n; more\n[Event \"a\"]\n1. e4 *", "G", NULL, 1, 3),
	CASE("unterminated comment between games", "1. e4 *\n{ open", "GE", "t.pgn:2: a comment opened here is not closed", -1, 0),
};

static int
run_case(const struct pgn_case *c, struct chess_pgn_game *first)
{
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	char got[16] = "", msg[sizeof ((struct err *)0)->msg] = "";
	int rc, n = 0, ok;

	chess_pgn_reader_init(&r, c->in, c->len, "t.pgn");
	for (;;) {
		struct err e = ERR_INIT;

		if ((rc = chess_pgn_next(&r, n == 0 ? first : &g, &e)) == CHESS_PGN_END || n == 15)
			break;
		got[n++] = rc == CHESS_PGN_GAME ? 'G' : rc == CHESS_PGN_UNSUPPORTED ? 'U' : 'E';
		got[n] = '\0';
		if (rc != CHESS_PGN_GAME && msg[0] == '\0')
			snprintf(msg, sizeof msg, "%s", e.msg);
	}
	chess_pgn_game_release(&g);
	ok = strcmp(got, c->outcomes) == 0 && (c->msg == NULL ? msg[0] == '\0' : strstr(msg, c->msg) != NULL);
	ok = ok && (c->moves < 0 || (int)first->nmoves == c->moves) && (c->line == 0 || first->line == c->line);
	if (!ok)
		fprintf(stderr, "chess_pgn: %s: got %s (first game %zu moves, line %lu) %s\n", c->name, got,
		    first->nmoves, first->line, msg);
	return ok;
}

/* Input built to a size: nesting, many tags, a long value. */
static int
run_built(const char *name, const struct buf *in, const char *want, const char *msg)
{
	struct pgn_case c = { name, in->p, in->len, want, msg, -1, 0 };
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	int ok = run_case(&c, &g);

	chess_pgn_game_release(&g);
	return ok;
}

static int
built_cases(void)
{
	struct buf b = BUF_INIT;
	int ok = 1;

	for (int depth = CHESS_PGN_MAX_DEPTH; depth <= CHESS_PGN_MAX_DEPTH + 1; depth++) {
		buf_reset(&b);
		buf_adds(&b, "1. e4 ");
		for (int i = 0; i < depth; i++)
			buf_adds(&b, "(1. d4 ");
		for (int i = 0; i < depth; i++)
			buf_adds(&b, ") ");
		buf_adds(&b, "*");
		ok &= run_built("deep variations", &b, depth > CHESS_PGN_MAX_DEPTH ? "E" : "G",
		    depth > CHESS_PGN_MAX_DEPTH ? "variations nested more than 128 deep" : NULL);
	}
	for (int n = CHESS_PGN_MAX_TAGS; n <= CHESS_PGN_MAX_TAGS + 1; n++) {
		buf_reset(&b);
		for (int i = 0; i < n; i++)
			buf_printf(&b, "[T%d \"v\"]\n", i);
		buf_adds(&b, "*");
		ok &= run_built("many tags", &b, n > CHESS_PGN_MAX_TAGS ? "E" : "G",
		    n > CHESS_PGN_MAX_TAGS ? "more than 1024 tags" : NULL);
	}
	for (int n = CHESS_PGN_VALUE_MAX; n <= CHESS_PGN_VALUE_MAX + 1; n++) {
		buf_reset(&b);
		buf_adds(&b, "[Annotator \"");
		for (int i = 0; i < n; i++)
			buf_addc(&b, 'x');
		buf_adds(&b, "\"]\n*");
		ok &= run_built("long tag value", &b, n > CHESS_PGN_VALUE_MAX ? "E" : "G",
		    n > CHESS_PGN_VALUE_MAX ? "a value longer than 65536 bytes" : NULL);
	}
	buf_release(&b);
	return ok;
}

static const char fen_game_pgn[] = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
				   "[White \"a \\\"b\\\" \\\\ c\"]\n[Black \"?\"]\n[Result \"*\"]\n[SetUp \"1\"]\n"
				   "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n[Annotator \"x\"]\n\n1... Kd7 2. e4 *\n\n";

/* The writer: exact text for a small game from a FEN, and refusals. */
static int
writer_cases(void)
{
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct chess_pgn_tag tags[2] = { { "White", "a \"b\" \\ c" }, { "Annotator", "x" } };
	struct chess_move moves[2];
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	int ok = 1;

	chess_fen_read(&g.start, "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", &e);
	chess_uci_read(&g.start, "e8d7", &moves[0], &e);
	moves[1] = (struct chess_move){ CHESS_SQ(4, 1), CHESS_SQ(4, 3), CHESS_NONE };
	g.tags = tags;
	g.ntags = 2;
	g.moves = moves;
	g.nmoves = 2;
	if (chess_pgn_write(&out, &g, &e) < 0 || strcmp(out.p, fen_game_pgn) != 0) {
		fprintf(stderr, "chess_pgn: writer wrote:\n%s%s\n", out.p ? out.p : "", e.msg);
		ok = 0;
	}
	moves[1].to = CHESS_SQ(4, 4);
	buf_reset(&out);
	if (chess_pgn_write(&out, &g, &e) == 0 || strstr(e.msg, "move 2 (e2e5) is illegal") == NULL) {
		fprintf(stderr, "chess_pgn: writer took an illegal move: %s\n", e.msg);
		ok = 0;
	}
	moves[1].to = CHESS_SQ(4, 3);
	tags[1].name = "Bad Name";
	if (chess_pgn_write(&out, &g, &e) == 0 || strstr(e.msg, "is not a PGN symbol") == NULL) {
		fprintf(stderr, "chess_pgn: writer took a bad tag name: %s\n", e.msg);
		ok = 0;
	}
	tags[1].name = "Annotator";
	tags[1].value = "two\nlines";
	if (chess_pgn_write(&out, &g, &e) == 0 || strstr(e.msg, "must be one line") == NULL) {
		fprintf(stderr, "chess_pgn: writer took a value with a line end: %s\n", e.msg);
		ok = 0;
	}
	buf_release(&out);
	return ok;
}

/* What some cases read, beyond their outcome. */
static int
read_values(void)
{
	static const char esc[] = "[White \"a \\\"b\\\" \\\\ c \\d\"]\n[Black \"Caf\xc3\xa9\"]\n*";
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;
	int ok;

	chess_pgn_reader_init(&r, esc, sizeof esc - 1, "t.pgn");
	ok = chess_pgn_next(&r, &g, &e) == CHESS_PGN_GAME &&
	    strcmp(chess_pgn_tag(&g, "White"), "a \"b\" \\ c \\d") == 0 &&
	    strcmp(chess_pgn_tag(&g, "Black"), "Caf\xc3\xa9") == 0 && g.result == CHESS_RESULT_UNKNOWN;
	if (!ok)
		fprintf(stderr, "chess_pgn: tag values read wrong\n");
	chess_pgn_game_release(&g);
	return ok;
}

/* The ';' comments before the first move are the note, in order, with
 * the blanks after ';' and a CR at the end left out; later ones and brace
 * comments are not; the writer puts the note back as it was. */
static int
note_values(void)
{
	static const char in[] =
	    "[White \"a\"]\n\n;  one {x}\r\n{skipped} ;two\n1. e4 ; later\ne5 *\n";
	static const char want[] = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n"
	                           "[Round \"?\"]\n[White \"a\"]\n[Black \"?\"]\n[Result \"*\"]\n\n"
	                           "; one {x}\n; two\n1. e4 e5 *\n\n";
	static const char next[] = "[White \"b\"]\n\n1-0\n";
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	int ok;

	chess_pgn_reader_init(&r, in, sizeof in - 1, "t.pgn");
	ok = chess_pgn_next(&r, &g, &e) == CHESS_PGN_GAME && g.note != NULL &&
	    strcmp(g.note, "one {x}\ntwo\n") == 0 && g.note_len == 12 && g.nmoves == 2 &&
	    chess_pgn_write(&out, &g, &e) == 0 && strcmp(out.p, want) == 0;
	if (!ok)
		fprintf(stderr, "chess_pgn: note read as \"%s\", written as:\n%s\n",
		    g.note ? g.note : "(none)", out.p ? out.p : "");
	chess_pgn_reader_init(&r, next, sizeof next - 1, "t.pgn");
	if (chess_pgn_next(&r, &g, &e) != CHESS_PGN_GAME || g.note != NULL || g.note_len != 0) {
		fprintf(stderr, "chess_pgn: the next game kept the last one's note\n");
		ok = 0;
	}
	chess_pgn_game_release(&g);
	buf_release(&out);
	return ok;
}

static int
selftest(void)
{
	int good = 0, n = (int)(sizeof cases / sizeof cases[0]);

	for (int i = 0; i < n; i++) {
		struct chess_pgn_game g = CHESS_PGN_GAME_INIT;

		good += run_case(&cases[i], &g);
		chess_pgn_game_release(&g);
	}
	if (good != n || !built_cases() || !writer_cases() || !read_values() || !note_values())
		return 1;
	printf("chess_pgn: %d input cases, built inputs, writer, tag values and notes hold\n", n);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "selftest") == 0)
		return selftest();
	if (argc == 3 && strcmp(argv[1], "count") == 0)
		return count(argv[2]);
	if (argc == 3 && strcmp(argv[1], "fen") == 0)
		return fens(argv[2]);
	if (argc == 3 && strcmp(argv[1], "san") == 0)
		return sans(argv[2]);
	if (argc == 3 && strcmp(argv[1], "roundtrip") == 0)
		return roundtrip(argv[2]);
	fprintf(stderr, "usage: chess_pgn count|fen|san|roundtrip FILE, or chess_pgn selftest\n");
	return 2;
}
