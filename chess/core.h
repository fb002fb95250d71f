/* core.h: what the files of chess/ share and callers need not see: 0x88
 * square arithmetic and the board operations under the public calls.
 * Squares here are 0x88 indexes (rank * 16 + file) unless a name says 64. */
#ifndef COHORT_CHESS_CORE_H
#define COHORT_CHESS_CORE_H

#include "chess.h"

#define SQ88(s) ((s) + ((s) & 56))      /* 0..63 to 0x88 */
#define SQ64(x) (((x) + ((x) & 7)) >> 1) /* 0x88 to 0..63 */
/* Also true for x in -128..-1 and 128..255, which the ray walks can reach. */
#define ONBOARD(x) (((x) & 0x88) == 0)
#define RANK88(x) ((x) >> 4)
#define FILE88(x) ((x) & 7)

enum { SQ_A1 = 0x00, SQ_E1 = 0x04, SQ_H1 = 0x07, SQ_A8 = 0x70, SQ_E8 = 0x74, SQ_H8 = 0x77 };

#define CHESS_FULLMOVE_MAX 999999999u /* FEN's full-move number: read up to, and saturates at */

/* 1 when square x is attacked by a piece of colour by (x's own occupant
 * does not count). */
int chess_attacked(const struct chess_pos *p, int x, int by);

/* Move the piece on from to to, promoting to promo (a type) if not 0, and
 * do what the board says goes with it: the rook of a castling, the pawn
 * taken en passant, rights lost, counters, the side to move.  After a
 * double push p->ep names the square passed over whether or not a capture
 * there is legal (chess_ep_fix settles that).  No legality check. */
void chess_apply(struct chess_pos *p, int from, int to, int promo);

/* 1 when the side to move's king is not attacked after that move. */
int chess_safe_after(const struct chess_pos *p, int from, int to, int promo);

/* Clear p->ep unless a legal en passant capture onto it exists. */
void chess_ep_fix(struct chess_pos *p);

/* 1 when the side to move has at least one legal move. */
int chess_has_move(const struct chess_pos *p);

#endif
