/* chess_perft.c: the move generator against published perft counts.
 *
 * The six positions and their counts are those of the Chess Programming
 * Wiki's "Perft Results" page (chessprogramming.org/Perft_Results); the
 * special cases after them (en passant pins, castling giving or out of
 * check, promotions, stalemate) are Martin Sedlak's TalkChess list as
 * republished on chessprogramming.net ("Perfect Perft").  Usage:
 *   chess_perft [MAX]   skip counts above MAX leaves (default: none)
 * Prints how long the start position takes to depth 5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../chess/chess.h"

struct perft_case {
	const char *name;
	const char *fen;
	uint64_t nodes[8]; /* nodes[d - 1] for depth d; 0 ends the list */
};

static const struct perft_case cases[] = {
	{ "start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	    { 20, 400, 8902, 197281, 4865609 } },
	{ "kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	    { 48, 2039, 97862, 4085603 } },
	{ "position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", { 14, 191, 2812, 43238, 674624 } },
	{ "position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	    { 6, 264, 9467, 422333 } },
	{ "position 4 mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
	    { 6, 264, 9467, 422333 } },
	{ "position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	    { 44, 1486, 62379, 2103487 } },
	{ "position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	    { 46, 2079, 89890, 3894594 } },
	/* Sedlak's list: only the deepest count is published there. */
	{ "illegal ep 1", "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", { 0, 0, 0, 0, 0, 1134888 } },
	{ "illegal ep 2", "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", { 0, 0, 0, 0, 0, 1015133 } },
	{ "ep captures checker", "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", { 0, 0, 0, 0, 0, 1440467 } },
	{ "short castling gives check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", { 0, 0, 0, 0, 0, 661072 } },
	{ "long castling gives check", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", { 0, 0, 0, 0, 0, 803711 } },
	{ "castling rights", "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", { 0, 0, 0, 1274206 } },
	{ "castling prevented", "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", { 0, 0, 0, 1720476 } },
	{ "promote out of check", "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", { 0, 0, 0, 0, 0, 3821001 } },
	{ "discovered check", "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", { 0, 0, 0, 0, 1004658 } },
	{ "promote to give check", "4k3/1P6/8/8/8/8/K7/8 w - - 0 1", { 0, 0, 0, 0, 0, 217342 } },
	{ "underpromote to check", "8/P1k5/K7/8/8/8/8/8 w - - 0 1", { 0, 0, 0, 0, 0, 92683 } },
	{ "self stalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1", { 0, 0, 0, 0, 0, 2217 } },
	{ "stalemate and checkmate 1", "8/k1P5/8/1K6/8/8/8/8 w - - 0 1", { 0, 0, 0, 0, 0, 0, 567584 } },
	{ "stalemate and checkmate 2", "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", { 0, 0, 0, 23527 } },
};

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	uint64_t max = argc > 1 ? strtoull(argv[1], NULL, 10) : UINT64_MAX;
	int bad = 0, checked = 0, skipped = 0;
	double start_d5 = -1;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct perft_case *c = &cases[i];
		struct chess_pos pos;
		struct err e = ERR_INIT;

		if (chess_fen_read(&pos, c->fen, &e) < 0) {
			fprintf(stderr, "chess_perft: %s: %s\n", c->name, e.msg);
			bad++;
			continue;
		}
		for (int d = 1; d <= 8; d++) {
			uint64_t want = c->nodes[d - 1], got;
			double t0 = now();

			if (want == 0)
				continue;
			if (want > max) {
				skipped++;
				continue;
			}
			got = chess_perft(&pos, d);
			if (i == 0 && d == 5)
				start_d5 = now() - t0;
			checked++;
			if (got != want) {
				fprintf(stderr, "chess_perft: %s depth %d: %llu nodes, want %llu\n", c->name, d,
				    (unsigned long long)got, (unsigned long long)want);
				bad++;
			}
		}
	}
	if (bad > 0)
		return 1;
	printf("chess_perft: %d counts agree, %d skipped", checked, skipped);
	if (start_d5 >= 0)
		printf("; start position to depth 5 in %.3f s", start_d5);
	printf("\n");
	return 0;
}
