/* pgn_pairs.c: every game of a PGN file as read by the chess core's
 * reader, one line each: White, Black, Result and the WhiteElo and
 * BlackElo tags ("-" when absent), separated by tabs.  Refused games are
 * named on stderr and make the exit status 1.  Driven by
 * tests/export.test.sh, which counts the games of each pairing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../chess/pgn.h"
#include "../../common/io.h"

static const char *
tag(const struct chess_pgn_game *g, const char *name)
{
	const char *v = chess_pgn_tag(g, name);

	return v ? v : "-";
}

int
main(int argc, char **argv)
{
	struct buf in = BUF_INIT;
	struct err e = ERR_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	int rc, status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pgn_pairs FILE\n");
		return 2;
	}
	if (io_read_all(argv[1], &in, IO_MAX_DOCUMENT, &e) < 0) {
		fprintf(stderr, "pgn_pairs: %s\n", e.msg);
		return 2;
	}
	chess_pgn_reader_init(&r, in.p ? in.p : "", in.len, argv[1]);
	while ((rc = chess_pgn_next(&r, &g, &e)) != CHESS_PGN_END) {
		if (rc != CHESS_PGN_GAME) {
			fprintf(stderr, "pgn_pairs: %s\n", e.msg);
			status = 1;
			continue;
		}
		printf("%s\t%s\t%s\t%s\t%s\n", tag(&g, "White"), tag(&g, "Black"),
		    chess_result_text(g.result), tag(&g, "WhiteElo"), tag(&g, "BlackElo"));
	}
	chess_pgn_game_release(&g);
	buf_release(&in);
	return status;
}
