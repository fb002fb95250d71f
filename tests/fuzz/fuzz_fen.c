/* fuzz_fen.c: any bytes as FEN and as EPD.  The reader either refuses with
 * a message, or gives a position whose canonical FEN reads back as the same
 * position; so does every position one legal move on, and every legal
 * move's SAN and UCI text read back as that move. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/chess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fen_round_trip(const struct chess_pos *p)
{
	char fen[CHESS_FEN_MAX];
	struct chess_pos back;
	struct err e = ERR_INIT;

	chess_fen_write(p, fen);
	if (strlen(fen) >= CHESS_FEN_MAX || chess_fen_read(&back, fen, &e) < 0 ||
	    memcmp(&back, p, sizeof back) != 0)
		abort();
}

static void
moves_round_trip(const struct chess_pos *p)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(p, list);

	if (n > 218 || (uint64_t)n != chess_perft(p, 1))
		abort();
	for (int i = 0; i < n; i++) {
		struct chess_pos next = *p;
		struct chess_move m;
		struct err e = ERR_INIT;
		char san[CHESS_SAN_MAX], uci[CHESS_UCI_MAX];

		chess_san_write(p, list[i], san);
		if (chess_san_read(p, san, &m, &e) < 0 || memcmp(&m, &list[i], sizeof m) != 0)
			abort();
		chess_uci_write(list[i], uci);
		if (chess_uci_read(p, uci, &m, &e) < 0 || memcmp(&m, &list[i], sizeof m) != 0)
			abort();
		chess_play(&next, list[i]);
		fen_round_trip(&next);
		(void)chess_state(&next);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[256];

	if (size >= sizeof text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int epd = 0; epd < 2; epd++) {
		struct chess_pos p;
		struct err e = ERR_INIT;
		int rc = epd ? chess_epd_read(&p, text, &e) : chess_fen_read(&p, text, &e);

		if (rc < 0) {
			if (e.msg[0] == '\0')
				abort();
			continue;
		}
		fen_round_trip(&p);
		moves_round_trip(&p);
	}
	return 0;
}
