/* chess_rules.c: FEN, SAN, UCI and game states against fixed expectations.
 *
 * Positions marked "python-chess" and their expected text are from
 * python-chess's test.py (niklasf/python-chess, GPL-3.0-or-later; facts
 * used as test oracles, no code copied).  Then a property check: along
 * pseudo-random games, every legal move's SAN and UCI read back as that
 * move, and every position's FEN reads back as the same position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/chess.h"

static int checks, failures;

static void
failed(const char *what, const char *detail)
{
	failures++;
	fprintf(stderr, "chess_rules: %s: %s\n", what, detail);
}

static int
load(struct chess_pos *p, const char *fen)
{
	struct err e = ERR_INIT;

	struct err epd = ERR_INIT;

	if (chess_fen_read(p, fen, &e) == 0 || chess_epd_read(p, fen, &epd) == 0)
		return 0;
	failed(fen, e.msg);
	return -1;
}

static struct chess_move
uci(const struct chess_pos *p, const char *text)
{
	struct chess_move m = { 0, 0, 0 };
	struct err e = ERR_INIT;

	if (chess_uci_read(p, text, &m, &e) < 0)
		failed(text, e.msg);
	return m;
}

/* FEN text that must read and write back as want (NULL: as itself). */
static void
fen_ok(const char *fen, const char *want)
{
	struct chess_pos p;
	char out[CHESS_FEN_MAX];

	checks++;
	if (load(&p, fen) < 0)
		return;
	chess_fen_write(&p, out);
	if (strcmp(out, want ? want : fen) != 0)
		failed(fen, out);
}

/* FEN text that must be refused with a message containing why. */
static void
fen_bad(const char *fen, const char *why)
{
	struct chess_pos p;
	struct err e = ERR_INIT;

	checks++;
	if (chess_fen_read(&p, fen, &e) == 0)
		failed(fen, "read, should be refused");
	else if (strstr(e.msg, why) == NULL)
		failed(fen, e.msg);
}

static void
test_fen(void)
{
	static const char *const bad[][2] = {
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "expected 6 fields" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", "found 7" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ", "found 7" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -  0 1", "found 7" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\tw KQkq - 0 1", "found 5" },
		{ "", "found 1" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank 1 has 7" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "more than 8 squares" },
		{ "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits" },
		{ "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 ranks" },
		{ "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unexpected character" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1", "in that order" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1", "in that order" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "half-move clock" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 01 1", "half-move clock" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 65536 1", "half-move clock" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "full-move number" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999", "full-move number" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 +1", "full-move number" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1", "white has 0 kings" },
		{ "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "black has 2 kings" },
		{ "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "a pawn on h8" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNp w KQkq - 0 1", "a pawn on h1" },
		{ "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "9 pawns" },
		{ "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "castling right Q" },
		{ "4k3/8/8/8/8/8/8/3K3R w K - 0 1", "castling right K" },
		{ "r3k3/8/8/8/8/8/8/4K3 w k - 0 1", "castling right k" },
		{ "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "side not to move is in check" },
		{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1", "with black to move" },
		{ "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "rank 3 or 6" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "without a pawn" },
		/* python-chess: not a pawn there; sixth rank square, seventh rank square not empty */
		{ "1b1b4/8/b1P5/2kP4/8/2b4K/8/8 w - c6 0 1", "without a pawn" },
		{ "5K2/8/2pp2Pp/2PP4/P5Pp/2pP1Ppp/P6p/7k b - g3 0 1", "without a pawn" },
		{ "8/7k/8/7p/8/8/8/K7 w - h6 0 1", "without a pawn" },
	};
	struct chess_pos p;
	struct err e = ERR_INIT;

	fen_ok("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", NULL);
	/* the legal-capture-only rule: after 1. e4 no pawn can take e3 */
	fen_ok("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
	    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
	fen_ok("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", NULL);
	/* python-chess: horizontal pin (dropped), diagonal ones (kept, dropped) */
	fen_ok("8/8/8/r2Pp2K/8/8/4k3/8 w - e6 0 1", "8/8/8/r2Pp2K/8/8/4k3/8 w - - 0 1");
	fen_ok("2b1r2r/8/5P1k/2p1pP2/5R1P/6PK/4q3/4R3 w - e6 0 1", NULL);
	fen_ok("8/8/8/5k2/4Pp2/8/2B5/4K3 b - e3 0 1", "8/8/8/5k2/4Pp2/8/2B5/4K3 b - - 0 1");
	fen_ok("8/5K2/8/3k4/3pP3/8/8/3R4 b - e3 0 1", "8/5K2/8/3k4/3pP3/8/8/3R4 b - - 0 1");
	fen_ok("8/8/8/2k5/2pP4/8/4K3/8 b - d3 0 1", NULL);
	fen_ok("4k3/8/8/8/8/8/8/4K3 w - - 65535 999999999", NULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		fen_bad(bad[i][0], bad[i][1]);
	checks += 3;
	if (chess_epd_read(&p, "8/2KN1p2/5p2/3N1B1k/5PNp/7P/7P/8 w - -", &e) < 0)
		failed("epd", e.msg);
	if (chess_epd_read(&p, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &e) == 0)
		failed("epd with counters", "read, should be refused");
	if (chess_fen_read(&p, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", &e) == 0)
		failed("fen without counters", "read, should be refused");
}

/* The SAN of UCI move m in fen must be want. */
static void
san_is(const char *fen, const char *m, const char *want)
{
	struct chess_pos p;
	char out[CHESS_SAN_MAX];

	checks++;
	if (load(&p, fen) < 0)
		return;
	chess_san_write(&p, uci(&p, m), out);
	if (strcmp(out, want) != 0) {
		char msg[128];

		snprintf(msg, sizeof msg, "%s wrote %s, want %s", m, out, want);
		failed(fen, msg);
	}
}

static void
test_san_write(void)
{
	const char *queens = "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1";
	const char *knights = "N3k2N/8/8/3N4/N4N1N/2R5/1R6/4K3 w - - 0 1";

	/* python-chess */
	san_is("rnbk1b1r/ppp2pp1/5n1p/4p1B1/2P5/2N5/PP2PPPP/R3KBNR w KQ - 0 7", "e1c1", "O-O-O+");
	san_is("6bk/7b/8/3pP3/8/8/8/Q3K3 w - d6 0 2", "e5d6", "exd6#");
	san_is(knights, "e1f1", "Kf1");
	san_is(knights, "c3c2", "Rcc2");
	san_is(knights, "b2c2", "Rbc2");
	san_is(knights, "a4b6", "N4b6");
	san_is(knights, "h8g6", "N8g6");
	san_is(knights, "h4g6", "Nh4g6");
	san_is("8/2KN1p2/5p2/3N1B1k/5PNp/7P/7P/8 w - -", "d5f6", "N5xf6#");
	san_is("8/8/8/R2nkn2/8/8/2K5/8 b - - 0 1", "f5e3", "Ne3+");
	san_is("7k/1p2Npbp/8/2P5/1P1r4/3b2QP/3q1pPK/2RB4 b - - 1 29", "f2f1q", "f1=Q");
	san_is("7k/1p2Npbp/8/2P5/1P1r4/3b2QP/3q1pPK/2RB4 b - - 1 29", "f2f1n", "f1=N+");
	/* three queens: by both, by rank, by file */
	san_is(queens, "a1b2", "Qa1b2");
	san_is(queens, "a3b2", "Q3b2");
	san_is(queens, "c1b2", "Qcb2");
	/* promotion with capture and check; castling both ways for both sides */
	san_is("3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8q", "exd8=Q+");
	san_is("3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", "e8=N");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", "O-O-O");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8", "O-O");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "O-O-O");
	san_is("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "a1a8", "Rxa8+");
	san_is("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "g1f3", "Nf3");
}

/* SAN text in fen must read as UCI move want (NULL: be refused with a
 * message containing why). */
static void
san_reads(const char *fen, const char *text, const char *want, const char *why)
{
	struct chess_pos p;
	struct chess_move m;
	struct err e = ERR_INIT;
	char got[CHESS_UCI_MAX];

	checks++;
	if (load(&p, fen) < 0)
		return;
	if (chess_san_read(&p, text, &m, &e) < 0) {
		if (want != NULL || strstr(e.msg, why) == NULL)
			failed(text, e.msg);
		return;
	}
	chess_uci_write(m, got);
	if (want == NULL || strcmp(got, want) != 0)
		failed(text, got);
}

static void
test_san_read(void)
{
	const char *start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
	const char *castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
	const char *promo = "8/4P1k1/8/8/8/8/8/K7 w - - 0 1";
	const char *amb = "8/8/1n6/3R1P2/1n6/2k2K2/3p4/r6r b - - 0 82"; /* python-chess */
	static const char *const tolerated[] = { "Nf3", "Nf3+", "Nf3#", "Nf3!", "Nf3?", "Nf3!!",
		"Nf3??", "Nf3!?", "Nf3?!", "Nf3+!?", "Ngf3", "Ng1f3", "Nxf3", "N-f3", "Ng1-f3" };

	for (size_t i = 0; i < sizeof tolerated / sizeof tolerated[0]; i++)
		san_reads(start, tolerated[i], "g1f3", NULL);
	san_reads(start, "e4", "e2e4", NULL);
	san_reads(start, "e3", "e2e3", NULL);
	san_reads(castle, "O-O", "e1g1", NULL);
	san_reads(castle, "0-0", "e1g1", NULL);
	san_reads(castle, "O-O-O", "e1c1", NULL);
	san_reads(castle, "0-0-0+", "e1c1", NULL);
	san_reads(promo, "e8=Q", "e7e8q", NULL);
	san_reads(promo, "e8Q", "e7e8q", NULL);
	san_reads(promo, "e8q", "e7e8q", NULL);
	san_reads(promo, "e8=N+", "e7e8n", NULL);
	san_reads(promo, "e8", NULL, "a promotion needs its piece");
	san_reads(promo, "e8=K", NULL, "cannot promote to a king");
	san_reads(promo, "Ke8=Q", NULL, "only a pawn promotes");
	san_reads("8/8/8/2k5/2pP4/8/4K3/8 b - d3 0 1", "cxd3", "c4d3", NULL); /* python-chess */
	san_reads("4k3/8/8/4Pp2/8/8/8/4K3 w - f6 0 2", "exf6", "e5f6", NULL);
	san_reads("4k3/8/8/4Pp2/8/8/8/4K3 w - f6 0 2", "f6", NULL, "illegal");
	san_reads("2rq1rk1/pb2bppp/1p2p3/n1ppPn2/2PP4/PP3N2/1B1NQPPP/RB3RK1 b - - 4 13", "c4", NULL,
	    "illegal");
	san_reads(amb, "Rf1", NULL, "ambiguous: Raf1+ or Rhf1+");
	san_reads(amb, "Nd5", NULL, "ambiguous: N4xd5 or N6xd5");
	san_reads(amb, "Rhf1", "h1f1", NULL);
	san_reads(amb, "N4d5", "b4d5", NULL);
	san_reads(castle, "Kg1", NULL, "castling is written O-O");
	san_reads(start, "O-O", NULL, "castling is not legal");
	san_reads(start, "e5", NULL, "illegal in this position");
	san_reads(start, "Ke2", NULL, "illegal in this position");
	san_reads(start, "Nf6", NULL, "illegal in this position");
	san_reads(start, "Nf3\n", NULL, "not a move in SAN");
	san_reads(start, "O-O\n", NULL, "not a move in SAN");
	san_reads(start, " Nf3", NULL, "not a move in SAN");
	san_reads(start, "Nf3x", NULL, "not a move in SAN");
	san_reads(start, "", NULL, "not a move in SAN");
	san_reads(start, "Pe4", NULL, "not a move in SAN");
	san_reads(start, "nf3", NULL, "not a move in SAN");
	san_reads(start, "Nf\x01", NULL, "Nf?: not a move in SAN");
	san_reads(start, "--", NULL, "not a move in SAN");
}

static void
uci_reads(const char *fen, const char *text, const char *why)
{
	struct chess_pos p;
	struct chess_move m;
	struct err e = ERR_INIT;
	char back[CHESS_UCI_MAX];

	checks++;
	if (load(&p, fen) < 0)
		return;
	if (chess_uci_read(&p, text, &m, &e) < 0) {
		if (why == NULL || strstr(e.msg, why) == NULL)
			failed(text, e.msg);
		return;
	}
	chess_uci_write(m, back);
	if (why != NULL || strcmp(back, text) != 0)
		failed(text, back);
}

static void
test_uci(void)
{
	const char *start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
	const char *castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
	char out[CHESS_UCI_MAX];

	uci_reads(start, "e2e4", NULL);
	uci_reads(start, "g1f3", NULL);
	uci_reads(castle, "e1g1", NULL);
	uci_reads(castle, "e1c1", NULL);
	uci_reads("8/4P1k1/8/8/8/8/8/K7 w - - 0 1", "e7e8q", NULL);
	uci_reads("8/4P1k1/8/8/8/8/8/K7 w - - 0 1", "e7e8n", NULL);
	uci_reads("8/4P1k1/8/8/8/8/8/K7 w - - 0 1", "e7e8", "a promotion needs its piece");
	uci_reads("8/4P1k1/8/8/8/8/8/K7 w - - 0 1", "e7e8k", "one of n b r q");
	uci_reads(castle, "e1h1", "illegal");
	uci_reads(start, "e2e5", "illegal");
	uci_reads(start, "e2e4q", "illegal");
	uci_reads(start, "E2E4", "not a move in UCI form");
	uci_reads(start, "e2e4 ", "one of n b r q");
	uci_reads(start, "0000", "not a move in UCI form");
	checks++;
	chess_uci_write((struct chess_move){ 0, 0, CHESS_NONE }, out);
	if (strcmp(out, "0000") != 0)
		failed("null move as UCI", out);
}

/* Play UCI moves from fen; the state and FEN at the end must be these. */
static void
line_ends(const char *fen, const char *moves, enum chess_state want, int check, const char *want_fen)
{
	struct chess_pos p;
	char buf[512], out[CHESS_FEN_MAX];

	checks++;
	if (load(&p, fen) < 0)
		return;
	snprintf(buf, sizeof buf, "%s", moves);
	for (char *t = strtok(buf, " "); t != NULL; t = strtok(NULL, " "))
		chess_play(&p, uci(&p, t));
	chess_fen_write(&p, out);
	if (chess_state(&p) != want || chess_in_check(&p) != check)
		failed(moves[0] ? moves : fen, "wrong state at the end");
	if (want_fen != NULL && strcmp(out, want_fen) != 0)
		failed(moves[0] ? moves : fen, out);
}

static void
test_states(void)
{
	static const struct {
		const char *fen;
		int dead;
	} material[] = { /* python-chess's is_insufficient_material cases */
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0 },
		{ "k1K1B1B1/8/8/8/8/8/8/8 w - - 7 32", 1 },
		{ "kbK1B1B1/8/8/8/8/8/8/8 w - - 7 32", 0 },
		{ "8/5k2/8/8/8/8/3K4/8 w - - 0 1", 1 },
		{ "8/3k4/8/8/2N5/8/3K4/8 b - - 0 1", 1 },
		{ "8/4rk2/8/8/8/8/3K4/8 w - - 0 1", 0 },
		{ "8/4qk2/8/8/8/8/3K4/8 w - - 0 1", 0 },
		{ "8/4bk2/8/8/8/8/3KB3/8 w - - 0 1", 0 },
		{ "8/8/3Q4/2bK4/B7/8/1k6/8 w - - 1 68", 0 },
		{ "8/5k2/8/8/8/4B3/3K1B2/8 w - - 0 1", 1 },
		{ "5K2/8/8/1B6/8/k7/6b1/8 w - - 0 39", 1 },
		{ "8/8/8/4k3/5b2/3K4/8/2B5 w - - 0 33", 1 },
		{ "3b4/8/8/6b1/8/8/R7/K1k5 w - - 0 1", 0 },
		{ "8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", 0 },
		{ "8/8/8/4k3/8/2n5/8/2N1K3 w - - 0 1", 0 },
	};
	const char *start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

	for (size_t i = 0; i < sizeof material / sizeof material[0]; i++)
		line_ends(material[i].fen, "", material[i].dead ? CHESS_INSUFFICIENT : CHESS_ONGOING, 0, NULL);
	/* python-chess: scholar's mate, fool's mate, stalemate, promotions with check */
	line_ends(start, "e2e4 e7e5 d1f3 b8c6 f1c4 a8b8 f3f7", CHESS_CHECKMATE, 1,
	    "1rbqkbnr/pppp1Qpp/2n5/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQk - 0 4");
	line_ends(start, "f2f3 e7e5 g2g4 d8h4", CHESS_CHECKMATE, 1,
	    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
	line_ends("7K/7P/7k/8/6q1/8/8/8 w - - 0 1", "", CHESS_STALEMATE, 0, NULL);
	line_ends("8/6P1/2p5/1Pqk4/6P1/2P1RKP1/4P1P1/8 w - - 0 1", "g7g8q", CHESS_ONGOING, 1,
	    "6Q1/8/2p5/1Pqk4/6P1/2P1RKP1/4P1P1/8 b - - 0 1");
	line_ends("8/8/8/3R1P2/8/2k2K2/3p4/r7 b - - 0 82", "d2d1q", CHESS_ONGOING, 1,
	    "8/8/8/3R1P2/8/2k2K2/8/r2q4 w - - 0 83");
	/* castling rights go with a moved king or rook and with a taken rook */
	line_ends("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "a1a8", CHESS_ONGOING, 1,
	    "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
	line_ends("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1 e8c8", CHESS_ONGOING, 0,
	    "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
	/* en passant: the square is written only while the capture is legal */
	line_ends(start, "e2e4 g8f6 e4e5 d7d5", CHESS_ONGOING, 0,
	    "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
	line_ends(start, "e2e4 g8f6 e4e5 d7d5 e5d6", CHESS_ONGOING, 0,
	    "rnbqkb1r/ppp1pppp/3P1n2/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Every legal move of p: SAN and UCI text read back as that move. */
static void
round_trip_moves(const struct chess_pos *p, const struct chess_move *list, int n)
{
	for (int i = 0; i < n; i++) {
		char san[CHESS_SAN_MAX], u[CHESS_UCI_MAX], fen[CHESS_FEN_MAX];
		struct chess_move a, b;
		struct err e = ERR_INIT;

		checks++;
		chess_san_write(p, list[i], san);
		chess_uci_write(list[i], u);
		if (chess_san_read(p, san, &a, &e) < 0 || chess_uci_read(p, u, &b, &e) < 0 ||
		    memcmp(&a, &list[i], sizeof a) != 0 || memcmp(&b, &list[i], sizeof b) != 0) {
			chess_fen_write(p, fen);
			fprintf(stderr, "chess_rules: %s in %s: %s\n", san, fen, e.msg);
			failures++;
		}
	}
}

static void
round_trip_fen(const struct chess_pos *p)
{
	char fen[CHESS_FEN_MAX];
	struct chess_pos back;
	struct err e = ERR_INIT;

	checks++;
	chess_fen_write(p, fen);
	if (chess_fen_read(&back, fen, &e) < 0 || memcmp(&back, p, sizeof back) != 0)
		failed(fen, e.msg[0] ? e.msg : "reads back as another position");
}

/* Pseudo-random games from the start: every position round-trips. */
static void
test_walks(int games)
{
	long plies = 0;

	for (int g = 0; g < games; g++) {
		struct chess_pos p;

		chess_start(&p);
		for (int ply = 0; ply < 300; ply++) {
			struct chess_move list[CHESS_MAX_MOVES];
			int n = chess_moves(&p, list);

			round_trip_fen(&p);
			round_trip_moves(&p, list, n);
			if (n == 0 || chess_state(&p) != CHESS_ONGOING)
				break;
			chess_play(&p, list[next_random() % (unsigned)n]);
			plies++;
		}
	}
	printf("chess_rules: %d random games, %ld plies, every move and position read back\n", games,
	    plies);
}

/* Usage: chess_rules [GAMES], GAMES random games in the last check (200). */
int
main(int argc, char **argv)
{
	int games = argc > 1 ? atoi(argv[1]) : 200;

	test_fen();
	test_san_write();
	test_san_read();
	test_uci();
	test_states();
	test_walks(games);
	if (failures > 0) {
		fprintf(stderr, "chess_rules: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("chess_rules: %d checks hold\n", checks);
	return 0;
}
