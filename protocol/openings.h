/* openings.h: a frozen opening suite (cohort.openings/1), and where a game
 * record starts: the one rule freeze (each game starts from its opening)
 * and adjudicate (each game's final position) share.
 *
 * A suite is JSON Lines: a header {"kind": "cohort.openings/1", "name": N},
 * then one opening a line, {"opening": ID, "fen": FEN} or {"opening": ID,
 * "moves": [UCI, ...]} (moves from the initial position; with both, the
 * moves must reach the FEN), unknown fields kept.  Its identity is the
 * SHA-256 of its lines made canonical, each followed by a newline: a suite
 * written that way hashes to its identity, and a cohort spec names it
 * (`opening_suite`).
 *
 * Ownership: a struct openings owns its trees and arrays; the strings of
 * its openings are borrowed from those trees.  openings_release frees all.
 */
#ifndef COHORT_OPENINGS_H
#define COHORT_OPENINGS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../chess/chess.h"
#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"

/* A suite is read whole: an opening's line is a few hundred bytes. */
#define OPENINGS_MAX_BYTES ((size_t)64 << 20)
/* The longest move list of an opening, and of a game replayed here. */
#define OPENINGS_MAX_PLIES 100000

struct opening {
	const char *id;       /* "opening" (borrowed from the suite's tree) */
	struct chess_pos pos; /* the position its games start from */
	long plies;           /* plies from the initial position to pos: its
	                       * moves' count, or for a FEN alone the count its
	                       * move number and side to move imply */
	long line;            /* its line in the suite */
};

struct openings {
	char id[HASH_ID_LEN + 1]; /* the suite's identity */
	const char *name;         /* the header's "name" (borrowed) */
	cJSON **trees;            /* every line, the header first */
	size_t ntrees;
	struct opening *v;        /* the openings, sorted by id */
	size_t n;
};

#define OPENINGS_INIT { "", NULL, NULL, 0, NULL, 0 }

/* Read a suite from path, or from p[0..n) named name.  Errors name the
 * line and field ("suite.jsonl:3: "fen": ...").  On failure s is left
 * released. */
int openings_read(const char *path, struct openings *s, struct err *e);
int openings_read_bytes(const char *p, size_t n, const char *name, struct openings *s,
    struct err *e);
/* Its canonical lines (the bytes its identity is the digest of),
 * appended to out. */
int openings_canonical(const struct openings *s, struct buf *out, struct err *e);
void openings_release(struct openings *s);

/* The opening named id, or NULL. */
const struct opening *openings_find(const struct openings *s, const char *id);

/* Whether two positions are the same for a game: board, side to move,
 * castling rights and en passant square (the move counters aside). */
int openings_same_position(const struct chess_pos *a, const struct chess_pos *b);

/* Where a game record starts: its "pgn_tags" "FEN" when it has one, else
 * its "opening" when that reads as a FEN, else the initial position.
 * *set_up is 1 when it is not the initial position.  A "pgn_tags" "FEN"
 * that does not read is an input error naming it. */
int openings_game_start(const cJSON *rec, struct chess_pos *pos, int *set_up, struct err *e);

/* The record's position after its first k moves (k < 0: all of them)
 * from its start, each move checked legal; *played gets how many were
 * played (fewer than k when the game has fewer).  "moves" absent is 0
 * moves.  Errors name "moves"[i]. */
int openings_game_replay(const cJSON *rec, long k, struct chess_pos *pos, long *played,
    struct err *e);

/* 0 when the record starts from o's position: either it is set up at that
 * position, or it starts from the initial position and its first
 * o->plies moves reach it.  Otherwise -1, an input error naming the field
 * ("moves", or "pgn_tags" when set up elsewhere). */
int openings_game_check(const struct opening *o, const cJSON *rec, struct err *e);

#endif
