/* pgn.h: chess games in PGN: a streaming reader over a buffer, game by
 * game, and a writer of export-format PGN.
 *
 * The reader takes PGN as programs and people write it: tag pairs (values
 * with \" and \\ escapes; blank lines inside the tag section, as ChessBase
 * exports them), movetext with move numbers ("1.", "1...", "12.Nf3"),
 * comments {...} and ; to the end of the line, NAGs ($1), annotation
 * glyphs, recursive variations (skipped, not kept), the four results,
 * lines starting with % (ignored), CRLF line ends and a UTF-8 byte-order
 * mark at the start.  The rest-of-line comments before a game's first move
 * are kept as its note (a program's word on the game, beside its tags);
 * every other comment is skipped.  Moves are SAN as chess_san_read reads it, or UCI
 * ("e2e4") as some engine exports write them; null moves ("--", "Z0",
 * "0000") are kept and counted (see struct chess_pgn_game).  Move numbers
 * are skipped, not checked.
 *
 * Refused, with "NAME:LINE: game N: what" or "NAME:LINE: game N, move
 * 17... Nxe5: why": a tag value that is not UTF-8 or holds a NUL byte or
 * a line end (values pass through otherwise; comments are never looked
 * into), a duplicate tag, a bad FEN tag, an illegal or ambiguous move,
 * a null move while in check, a movetext that ends (at the end of the
 * input or at the next game's tags) without a result, a result that
 * disagrees with the Result tag, any other byte outside comments, and the
 * limits: CHESS_PGN_MAX_TAGS tags, tag names of CHESS_PGN_NAME_MAX bytes,
 * values of CHESS_PGN_VALUE_MAX bytes, a note of CHESS_PGN_NOTE_MAX bytes,
 * CHESS_PGN_MAX_PLIES moves, and variations nested CHESS_PGN_MAX_DEPTH
 * deep.  After an error in a game the
 * reader skips to that game's end, so the next call reads the next game.
 *
 * Games of other variants ([Variant "..."] other than Standard, normal,
 * chess or From Position) are reported with CHESS_PGN_UNSUPPORTED: their
 * tags and result are read, their moves are not; Chess960 among them.
 *
 * Ownership: a reader borrows its buffer, which must outlive it, and owns
 * nothing, so it needs no release.  A struct chess_pgn_game owns its tags
 * and moves: start it as CHESS_PGN_GAME_INIT; chess_pgn_next frees what it
 * held before filling it again, and chess_pgn_game_release frees it for
 * good.  The writer only reads the game it is given.
 */
#ifndef COHORT_CHESS_PGN_H
#define COHORT_CHESS_PGN_H

#include <stddef.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "chess.h"

#define CHESS_PGN_MAX_TAGS 1024
#define CHESS_PGN_NAME_MAX 255
#define CHESS_PGN_VALUE_MAX 65536
#define CHESS_PGN_NOTE_MAX (1 << 22)
/* More than the longest game the 75-move rule allows (about 17,700 plies). */
#define CHESS_PGN_MAX_PLIES 20000
/* Variations are skipped by counting, so this is a sanity bound, not a
 * stack: annotated games rarely nest more than a handful deep. */
#define CHESS_PGN_MAX_DEPTH 128

enum chess_result {
	CHESS_RESULT_UNKNOWN = 0, /* "*": unfinished, unknown or abandoned */
	CHESS_RESULT_WHITE,       /* "1-0" */
	CHESS_RESULT_BLACK,       /* "0-1" */
	CHESS_RESULT_DRAW         /* "1/2-1/2" */
};

struct chess_pgn_tag {
	char *name;  /* NUL-terminated */
	char *value; /* NUL-terminated, escapes undone */
};

struct chess_pgn_game {
	struct chess_pgn_tag *tags; /* in the order read */
	size_t ntags;
	struct chess_pos start;     /* the standard position, or the FEN tag's */
	struct chess_pos end;       /* after the last move */
	struct chess_move *moves;   /* every one legal from start, in turn */
	size_t nmoves;
	size_t nulls;               /* null moves among them: passes, not chess */
	enum chess_result result;   /* the movetext's result */
	unsigned long number;       /* the game's place in the input, from 1 */
	unsigned long line;         /* line of its first tag (or first movetext) */
	char *note;                 /* the text of each ';' comment before the first move
	                               (blanks after the ';' and a CR at its end left out),
	                               one a line, each ended by a line feed; NULL: none */
	size_t note_len;            /* bytes in note */
	size_t cap_tags, cap_moves; /* allocated */
};

#define CHESS_PGN_GAME_INIT { .tags = NULL }

struct chess_pgn_reader {
	const char *p;         /* the input */
	size_t len;
	size_t off;            /* next byte to read */
	unsigned long line;    /* line of p[off], from 1 */
	const char *name;      /* for messages */
	unsigned long games;   /* games started so far */
};

/* What chess_pgn_next returns. */
enum {
	CHESS_PGN_ERROR = -1,      /* e says why; the next call goes on after this game */
	CHESS_PGN_END = 0,         /* no more games */
	CHESS_PGN_GAME = 1,        /* *g holds the next game */
	CHESS_PGN_UNSUPPORTED = 2  /* a variant game: *g has its tags and result, e says which */
};

/* Read buf[0..len) as PGN; name (not copied) is used in messages. */
void chess_pgn_reader_init(struct chess_pgn_reader *r, const char *buf, size_t len,
    const char *name);

/* Read the next game into *g (see the return values above). */
int chess_pgn_next(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e);

void chess_pgn_game_release(struct chess_pgn_game *g);

/* The value of tag name in g, or NULL. */
const char *chess_pgn_tag(const struct chess_pgn_game *g, const char *name);

/* "1-0", "0-1", "1/2-1/2" or "*". */
const char *chess_result_text(enum chess_result r);

/* Append g to out as export-format PGN: the Seven Tag Roster first, in its
 * order (a missing one as "?", Date as "????.??.??", Result from
 * g->result), then SetUp "1" and FEN if g->start is not the standard
 * position and no FEN tag is given, then g's other tags in order; a blank
 * line; the note's lines, each as a ';' comment of its own; the moves in
 * SAN with move numbers, wrapped at 79 columns; the result; a blank line.
 * Refused: a tag name that is not a PGN symbol, a value holding a line end
 * or a NUL, a note's line that starts with a blank or ends with a CR (the
 * reader would not give it back), a move that is not legal in turn.
 * On error out may hold part of the game. */
int chess_pgn_write(struct buf *out, const struct chess_pgn_game *g, struct err *e);

#endif
