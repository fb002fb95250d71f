/* fuzz_san.c: any bytes as SAN and as UCI move text, in positions reached
 * by a few moves chosen by the input from one of several starts.  The
 * input: byte 0 picks the start, byte 1 the number of moves (0..15), the
 * next bytes the moves, the rest is the text.  A reader either refuses
 * with a message or names a legal move, whose own SAN and UCI read back as
 * it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/chess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const starts[] = {
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"N3k2N/8/8/3N4/N4N1N/2R5/1R6/4K3 w - - 0 1",
	"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1",
	"8/8/1n6/3R1P2/1n6/2k2K2/3p4/r6r b - - 0 82",
	"8/8/8/2k5/2pP4/8/4K3/8 b - d3 0 1",
	"3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1",
};

static void
check_move(const struct chess_pos *p, struct chess_move m)
{
	struct chess_move back;
	struct err e = ERR_INIT;
	char san[CHESS_SAN_MAX], uci[CHESS_UCI_MAX];

	if (!chess_is_legal(p, m))
		abort();
	chess_san_write(p, m, san);
	if (chess_san_read(p, san, &back, &e) < 0 || memcmp(&back, &m, sizeof m) != 0)
		abort();
	chess_uci_write(m, uci);
	if (chess_uci_read(p, uci, &back, &e) < 0 || memcmp(&back, &m, sizeof m) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chess_pos p;
	struct err e = ERR_INIT;
	struct chess_move m;
	size_t at = 2, plies;
	char text[64];

	if (size < 2)
		return 0;
	if (chess_fen_read(&p, starts[data[0] % (sizeof starts / sizeof starts[0])], &e) < 0)
		abort();
	for (plies = data[1] % 16; plies > 0 && at < size; plies--, at++) {
		struct chess_move list[CHESS_MAX_MOVES];
		int n = chess_moves(&p, list);

		if (n == 0)
			break;
		chess_play(&p, list[data[at] % n]);
	}
	if (size - at >= sizeof text)
		return 0;
	memcpy(text, data + at, size - at);
	text[size - at] = '\0';
	if (chess_san_read(&p, text, &m, &e) == 0)
		check_move(&p, m);
	else if (e.msg[0] == '\0')
		abort();
	e = (struct err)ERR_INIT;
	if (chess_uci_read(&p, text, &m, &e) == 0)
		check_move(&p, m);
	else if (e.msg[0] == '\0')
		abort();
	return 0;
}
