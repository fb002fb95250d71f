/* fuzz_pgn.c: any bytes as PGN.  Every call of the reader makes progress
 * and ends; a refusal says why; every game read replays legally to its
 * end position, and the writer's PGN of it reads back as the same game. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/pgn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
replays(const struct chess_pgn_game *g)
{
	struct chess_pos p = g->start;

	for (size_t i = 0; i < g->nmoves; i++) {
		struct chess_move m = g->moves[i];

		if (chess_move_is_null(m) ? chess_in_check(&p) : !chess_is_legal(&p, m))
			abort();
		chess_play(&p, m);
	}
	if (memcmp(&p, &g->end, sizeof p) != 0)
		abort();
}

static void
writes_back(const struct chess_pgn_game *g)
{
	struct buf out = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game back = CHESS_PGN_GAME_INIT;
	struct err e = ERR_INIT;

	if (chess_pgn_write(&out, g, &e) < 0)
		abort();
	chess_pgn_reader_init(&r, out.p, out.len, "written");
	if (chess_pgn_next(&r, &back, &e) != CHESS_PGN_GAME || back.nmoves != g->nmoves ||
	    back.result != g->result || memcmp(&back.start, &g->start, sizeof g->start) != 0 ||
	    (g->nmoves > 0 && memcmp(back.moves, g->moves, g->nmoves * sizeof g->moves[0]) != 0) ||
	    back.note_len != g->note_len ||
	    (g->note_len > 0 && memcmp(back.note, g->note, g->note_len) != 0))
		abort();
	if (chess_pgn_next(&r, &back, &e) != CHESS_PGN_END)
		abort();
	chess_pgn_game_release(&back);
	buf_release(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	size_t calls = 0;
	int rc;

	chess_pgn_reader_init(&r, (const char *)data, size, "fuzz");
	do {
		struct err e = ERR_INIT;
		size_t before = r.off;

		rc = chess_pgn_next(&r, &g, &e);
		if (++calls > size + 2 || (rc != CHESS_PGN_END && r.off == before))
			abort();
		if ((rc == CHESS_PGN_ERROR || rc == CHESS_PGN_UNSUPPORTED) && e.msg[0] == '\0')
			abort();
		if (rc == CHESS_PGN_GAME) {
			replays(&g);
			writes_back(&g);
		}
	} while (rc != CHESS_PGN_END);
	chess_pgn_game_release(&g);
	return 0;
}
