/* chess.h: the rules of standard chess: positions, FEN, legal moves, UCI and
 * SAN move text, game states and perft.
 *
 * Board representation: a 0x88 mailbox, one byte per square of a 16x8 board
 * whose right half lies off the board, so "is this square on the board" is
 * one AND and a ray walk needs no edge tables.  Chosen over bitboards
 * because it needs no generated magic tables, keeps a position a small
 * plain value, and is fast enough here: perft 5 of the start position
 * (4,865,609 leaves) takes about 0.1 s at -O2.  Legality: pinned pieces and
 * king moves are checked directly; check evasions and en passant captures
 * are made on a copy and the king tested, which keeps the rare cases
 * obviously right.
 *
 * Ownership: everything here is a plain value.  struct chess_pos holds no
 * pointer and no heap memory (copy it with =), output arrays are the
 * caller's, sized by the CHESS_*_MAX constants, and nothing keeps state
 * between calls.  Functions that take a struct err fill it and return -1
 * on bad input; nothing prints or exits.
 *
 * Squares are numbered 0..63: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ...,
 * h8 = 63.  Only standard chess is played (no Chess960 castling).
 */
#ifndef COHORT_CHESS_H
#define COHORT_CHESS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

#define CHESS_SQ(file, rank) ((file) + 8 * (rank)) /* file, rank 0..7 */
#define CHESS_FILE(sq) ((sq) & 7)
#define CHESS_RANK(sq) ((sq) >> 3)

enum chess_color { CHESS_WHITE = 0, CHESS_BLACK = 1 };

enum chess_type {
	CHESS_NONE = 0,
	CHESS_PAWN,
	CHESS_KNIGHT,
	CHESS_BISHOP,
	CHESS_ROOK,
	CHESS_QUEEN,
	CHESS_KING
};

/* A piece code: its type in the low three bits, its colour in bit 3 (so a
 * white pawn is 1 and a black pawn 9); 0 is an empty square. */
#define CHESS_PIECE(color, type) ((type) | (color) << 3)
#define CHESS_TYPE_OF(piece) ((piece) & 7)
#define CHESS_COLOR_OF(piece) ((piece) >> 3)

/* Castling rights. */
enum {
	CHESS_CASTLE_WK = 1, /* white, king's side (O-O) */
	CHESS_CASTLE_WQ = 2, /* white, queen's side (O-O-O) */
	CHESS_CASTLE_BK = 4,
	CHESS_CASTLE_BQ = 8
};

#define CHESS_MAX_MOVES 256 /* legal moves in a position; the known maximum is 218 */
#define CHESS_FEN_MAX 128   /* FEN text with its NUL */
#define CHESS_UCI_MAX 6     /* "e7e8q" with its NUL */
#define CHESS_SAN_MAX 16    /* "Qa1xb2+", "exd8=Q#" with its NUL, and room */
#define CHESS_NO_EP 0x88    /* pos.ep when no en passant capture is possible */

/* A position.  Read it through the functions below; the layout is this
 * module's business.  Positions made only by these functions compare equal
 * with memcmp exactly when board, side, castling rights, en passant square
 * and both counters agree. */
struct chess_pos {
	uint8_t sq[128];   /* 0x88 board (index rank * 16 + file): piece codes */
	uint8_t king[2];   /* each side's king, as a 0x88 index */
	uint8_t side;      /* enum chess_color to move */
	uint8_t castle;    /* CHESS_CASTLE_* rights still held */
	uint8_t ep;        /* 0x88 target of a legal en passant capture, or CHESS_NO_EP */
	uint8_t zero;      /* always 0, so memcmp sees no stray padding */
	uint16_t halfmove; /* half-moves since the last capture or pawn move */
	uint32_t fullmove; /* number of the full move being played, from 1 */
};

/* A move.  For castling, to is the king's destination (e1g1, e1c1, e8g8,
 * e8c8), as in UCI.  The null move (a pass, seen only in PGN files) is
 * from == to == 0 with no promotion: see chess_move_is_null. */
struct chess_move {
	uint8_t from;  /* square 0..63 */
	uint8_t to;    /* square 0..63 */
	uint8_t promo; /* CHESS_KNIGHT..CHESS_QUEEN for a promotion, else CHESS_NONE */
};

/* Whether a and b are the same move. */
static inline int
chess_move_same(struct chess_move a, struct chess_move b)
{
	return a.from == b.from && a.to == b.to && a.promo == b.promo;
}

enum chess_state {
	CHESS_ONGOING = 0,  /* the side to move has a legal move; see also chess_in_check */
	CHESS_CHECKMATE,    /* in check, no legal move: the side to move has lost */
	CHESS_STALEMATE,    /* not in check, no legal move: a draw */
	CHESS_INSUFFICIENT  /* neither side can ever mate (FIDE dead position subset) */
};

/* Set *pos to the standard starting position. */
void chess_start(struct chess_pos *pos);

/* Read a FEN record: exactly six fields separated by single spaces and
 * nothing else (no leading or trailing white space).  Placement ranks 8 to
 * 1, no two digits in a row; side "w" or "b"; castling "-" or a subset of
 * "KQkq" in that order; en passant "-" or a square on the sixth (white to
 * move) or third rank; half-move clock 0..65535 and full-move number
 * 1..999999999 in plain decimal.  Refused as impossible: a king count other
 * than one each, a pawn on the first or last rank, more than 8 pawns or 16
 * pieces a side, the side not to move in check, a castling right whose king
 * and rook are not on their home squares, and an en passant square without
 * an enemy pawn in front of it or with something on it or behind it.
 * A well-placed en passant square is kept only if an en passant capture is
 * legal (see chess_fen_write).  On error *pos is unspecified and -1 is
 * returned with the reason in e ("fen: ..."). */
int chess_fen_read(struct chess_pos *pos, const char *fen, struct err *e);

/* The same for an EPD position: exactly the first four FEN fields, no
 * operations; the half-move clock is 0 and the full-move number 1. */
int chess_epd_read(struct chess_pos *pos, const char *epd, struct err *e);

/* Write the canonical FEN of pos into out.  The en passant field names a
 * square only when an en passant capture is legal there, the rule
 * python-chess (fen(en_passant="legal"), its default) and Stockfish follow;
 * after 1. e4 it is "-".  So two positions with the same legal moves and
 * counters write the same text. */
void chess_fen_write(const struct chess_pos *pos, char out[CHESS_FEN_MAX]);

/* The piece code on square sq (0..63), or 0 when it is empty. */
int chess_piece_at(const struct chess_pos *pos, int sq);

/* The legal moves of pos, in no promised order; returns their count. */
int chess_moves(const struct chess_pos *pos, struct chess_move out[CHESS_MAX_MOVES]);

/* 1 when m is a legal move in pos (the null move never is). */
int chess_is_legal(const struct chess_pos *pos, struct chess_move m);

/* 1 when m is the null move. */
int chess_move_is_null(struct chess_move m);

/* Play m, which must be legal in pos (from chess_moves or one of the
 * readers; anything else leaves a position that breaks no memory rule but
 * no chess rule either).  The null move passes the turn. */
void chess_play(struct chess_pos *pos, struct chess_move m);

/* 1 when the side to move is in check. */
int chess_in_check(const struct chess_pos *pos);

/* Checkmate, stalemate, insufficient material (in that order of
 * precedence), or ongoing.  Insufficient material means no pawns, rooks or
 * queens and either at most one knight or bishop on the board, or only
 * bishops, all on squares of one colour; K+N vs K+N and K+N+N vs K are not
 * counted (a mate can still happen), as in python-chess.  The fifty- and
 * seventy-five-move rules and repetitions are not judged here. */
enum chess_state chess_state(const struct chess_pos *pos);

/* Read UCI move text ("e2e4", "e7e8q"; castling as the king's two-square
 * move, "e1g1"): exactly 4 or 5 characters, promotion letter lowercase.
 * The move must be legal in pos; on error -1 with the reason in e. */
int chess_uci_read(const struct chess_pos *pos, const char *text, struct chess_move *m,
    struct err *e);
/* chess_uci_read against list[0..n), the legal moves of a position as
 * chess_moves gives them: a reader of many moves in one position
 * generates them once. */
int chess_uci_among(const struct chess_move *list, int n, const char *text,
    struct chess_move *m, struct err *e);

/* Write m as UCI text ("0000" for the null move). */
void chess_uci_write(struct chess_move m, char out[CHESS_UCI_MAX]);

/* Read SAN move text and find the one legal move it names.  Tolerated:
 * missing or extra check and mate marks, trailing annotation glyphs
 * (! ? !! ?? !? ?!), "0-0" and "0-0-0" for castling, a promotion without
 * "=" ("e8Q") or in lowercase, an 'x' or '-' before the destination whether
 * or not the move captures (as python-chess), and more disambiguation than
 * needed.  Refused: anything else around the move, a pawn move without a
 * file that would need to capture ("c4" for bxc4), a king's two-square move
 * written as "Kg1", a promotion with no piece or to a king, a move that is
 * illegal, and one that fits two legal moves (the message names both).
 * Messages read "TEXT: why", with unprintable bytes shown as '?'. */
int chess_san_read(const struct chess_pos *pos, const char *text, struct chess_move *m,
    struct err *e);

/* Write the SAN of m, which must be legal in pos: piece letter, the least
 * disambiguation (file, else rank, else both), 'x' for captures, "=Q" for
 * promotions, O-O and O-O-O, and "+" or "#".  The null move is "--". */
void chess_san_write(const struct chess_pos *pos, struct chess_move m, char out[CHESS_SAN_MAX]);

/* The number of legal move sequences of length depth from pos (depth 0
 * gives 1); for testing the move generator against published counts. */
uint64_t chess_perft(const struct chess_pos *pos, int depth);

#endif
