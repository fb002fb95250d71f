/* positions_walk.c: positions for the candidates tests and bench, as
 * `candidates build` reads them (JSON Lines).  positions_walk N SEED
 * writes N positions, each the end of a seeded random walk of 6 to 80
 * legal moves from the start position (a walk that ends the game is
 * walked again), with position_id wNNNN.  The same N and SEED give the
 * same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../chess/chess.h"

static uint64_t
next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One walk of plies moves; 0 when it reached a position with no move. */
static int
walk(struct chess_pos *pos, int plies, uint64_t *s)
{
	struct chess_move ms[CHESS_MAX_MOVES];

	chess_start(pos);
	for (int i = 0; i < plies; i++) {
		int n = chess_moves(pos, ms);
		if (n == 0)
			return 0;
		chess_play(pos, ms[next(s) % (uint64_t)n]);
	}
	return chess_state(pos) == CHESS_ONGOING;
}

int
main(int argc, char **argv)
{
	static const char *const splits[3] = { "explore", "confirm", "heldout" };
	uint64_t s;
	long n;

	if (argc != 3 || (n = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: positions_walk N SEED\n");
		return 2;
	}
	s = strtoull(argv[2], NULL, 10);
	for (long i = 1; i <= n; i++) {
		struct chess_pos pos;
		char fen[CHESS_FEN_MAX];
		int plies;
		do
			plies = 6 + (int)(next(&s) % 75);
		while (!walk(&pos, plies, &s));
		chess_fen_write(&pos, fen);
		printf("{\"position_id\": \"w%04ld\", \"fen\": \"%s\", \"split\": \"%s\", "
		       "\"opening\": \"walk-%ld\", \"stratum\": {\"to_move\": \"%s\"}}\n",
		    i, fen, splits[i % 3], (i + 1) / 2, pos.side ? "black" : "white");
	}
	return 0;
}
