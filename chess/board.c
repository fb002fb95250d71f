/* board.c: the board itself: the start position, attacks, making a move,
 * and the states of a game (check, mate, stalemate, dead material). */
#include "core.h"

#include <string.h>

static const int knight_dirs[8] = { 33, 31, 18, 14, -14, -18, -31, -33 };
static const int king_dirs[8] = { 1, -1, 16, -16, 15, 17, -15, -17 };
static const int diag_dirs[4] = { 15, 17, -15, -17 };
static const int line_dirs[4] = { 1, -1, 16, -16 };

void
chess_start(struct chess_pos *pos)
{
	static const uint8_t back[8] = { CHESS_ROOK, CHESS_KNIGHT, CHESS_BISHOP, CHESS_QUEEN,
		CHESS_KING, CHESS_BISHOP, CHESS_KNIGHT, CHESS_ROOK };

	memset(pos, 0, sizeof *pos);
	for (int f = 0; f < 8; f++) {
		pos->sq[f] = CHESS_PIECE(CHESS_WHITE, back[f]);
		pos->sq[0x10 + f] = CHESS_PIECE(CHESS_WHITE, CHESS_PAWN);
		pos->sq[0x60 + f] = CHESS_PIECE(CHESS_BLACK, CHESS_PAWN);
		pos->sq[0x70 + f] = CHESS_PIECE(CHESS_BLACK, back[f]);
	}
	pos->king[CHESS_WHITE] = SQ_E1;
	pos->king[CHESS_BLACK] = SQ_E8;
	pos->side = CHESS_WHITE;
	pos->castle = CHESS_CASTLE_WK | CHESS_CASTLE_WQ | CHESS_CASTLE_BK | CHESS_CASTLE_BQ;
	pos->ep = CHESS_NO_EP;
	pos->fullmove = 1;
}

int
chess_piece_at(const struct chess_pos *pos, int sq)
{
	return pos->sq[SQ88(sq & 63)];
}

/* 1 when a slider of colour by, moving along dirs like a bishop (or a
 * rook), sees x; the queen moves both ways. */
static int
slider_sees(const uint8_t *b, int x, const int dirs[4], int piece, int queen)
{
	for (int i = 0; i < 4; i++) {
		int y = x + dirs[i];
		while (ONBOARD(y) && b[y] == 0)
			y += dirs[i];
		if (ONBOARD(y) && (b[y] == piece || b[y] == queen))
			return 1;
	}
	return 0;
}

static int
stepper_sees(const uint8_t *b, int x, const int dirs[8], int piece)
{
	for (int i = 0; i < 8; i++) {
		int y = x + dirs[i];
		if (ONBOARD(y) && b[y] == piece)
			return 1;
	}
	return 0;
}

int
chess_attacked(const struct chess_pos *p, int x, int by)
{
	const uint8_t *b = p->sq;
	int pawn = CHESS_PIECE(by, CHESS_PAWN);
	int behind = by == CHESS_WHITE ? -16 : 16; /* where an attacking pawn stands */
	int queen = CHESS_PIECE(by, CHESS_QUEEN);

	if (ONBOARD(x + behind - 1) && b[x + behind - 1] == pawn)
		return 1;
	if (ONBOARD(x + behind + 1) && b[x + behind + 1] == pawn)
		return 1;
	if (stepper_sees(b, x, knight_dirs, CHESS_PIECE(by, CHESS_KNIGHT)) ||
	    stepper_sees(b, x, king_dirs, CHESS_PIECE(by, CHESS_KING)))
		return 1;
	return slider_sees(b, x, diag_dirs, CHESS_PIECE(by, CHESS_BISHOP), queen) ||
	    slider_sees(b, x, line_dirs, CHESS_PIECE(by, CHESS_ROOK), queen);
}

/* The rights a move from or to square x leaves standing. */
static int
castle_keep(int x)
{
	switch (x) {
	case SQ_A1: return ~CHESS_CASTLE_WQ;
	case SQ_E1: return ~(CHESS_CASTLE_WK | CHESS_CASTLE_WQ);
	case SQ_H1: return ~CHESS_CASTLE_WK;
	case SQ_A8: return ~CHESS_CASTLE_BQ;
	case SQ_E8: return ~(CHESS_CASTLE_BK | CHESS_CASTLE_BQ);
	case SQ_H8: return ~CHESS_CASTLE_BK;
	default: return ~0;
	}
}

/* The rook's part of a castling: the king has gone from e1/e8 to to. */
static void
castle_rook(uint8_t *b, int from, int to)
{
	int rook_from = to > from ? from + 3 : from - 4;
	int rook_to = to > from ? from + 1 : from - 1;

	b[rook_to] = b[rook_from];
	b[rook_from] = 0;
}

void
chess_apply(struct chess_pos *p, int from, int to, int promo)
{
	int us = p->side, piece = p->sq[from], type = CHESS_TYPE_OF(piece);
	int fwd = us == CHESS_WHITE ? 16 : -16;
	int ep = p->ep;

	p->ep = CHESS_NO_EP;
	if (type == CHESS_PAWN || p->sq[to] != 0)
		p->halfmove = 0;
	else if (p->halfmove < UINT16_MAX)
		p->halfmove++;
	if (type == CHESS_PAWN) {
		if (to == ep && to != from + fwd)
			p->sq[to - fwd] = 0;
		else if (to == from + 2 * fwd)
			p->ep = (uint8_t)(from + fwd);
		if (promo != CHESS_NONE)
			piece = CHESS_PIECE(us, promo);
	} else if (type == CHESS_KING) {
		p->king[us] = (uint8_t)to;
		if ((from == SQ_E1 || from == SQ_E8) && (to == from + 2 || to == from - 2))
			castle_rook(p->sq, from, to);
	}
	p->sq[to] = (uint8_t)piece;
	p->sq[from] = 0;
	p->castle &= castle_keep(from) & castle_keep(to);
	p->side ^= 1;
	if (p->side == CHESS_WHITE && p->fullmove < CHESS_FULLMOVE_MAX)
		p->fullmove++;
}

int
chess_safe_after(const struct chess_pos *p, int from, int to, int promo)
{
	struct chess_pos c = *p;
	int us = p->side;

	chess_apply(&c, from, to, promo);
	return !chess_attacked(&c, c.king[us], !us);
}

void
chess_ep_fix(struct chess_pos *p)
{
	int ep = p->ep, us = p->side;
	int from = ep + (us == CHESS_WHITE ? -16 : 16); /* beside the pawn that passed */
	int pawn = CHESS_PIECE(us, CHESS_PAWN);

	if (ep == CHESS_NO_EP)
		return;
	for (int d = -1; d <= 1; d += 2) {
		if (ONBOARD(from + d) && p->sq[from + d] == pawn &&
		    chess_safe_after(p, from + d, ep, CHESS_NONE))
			return;
	}
	p->ep = CHESS_NO_EP;
}

int
chess_move_is_null(struct chess_move m)
{
	return m.from == 0 && m.to == 0 && m.promo == CHESS_NONE;
}

void
chess_play(struct chess_pos *pos, struct chess_move m)
{
	if (chess_move_is_null(m)) {
		pos->ep = CHESS_NO_EP;
		if (pos->halfmove < UINT16_MAX)
			pos->halfmove++;
		pos->side ^= 1;
		if (pos->side == CHESS_WHITE && pos->fullmove < CHESS_FULLMOVE_MAX)
			pos->fullmove++;
		return;
	}
	int promo = m.promo >= CHESS_KNIGHT && m.promo <= CHESS_QUEEN ? m.promo : CHESS_NONE;

	chess_apply(pos, SQ88(m.from & 63), SQ88(m.to & 63), promo);
	chess_ep_fix(pos);
}

int
chess_in_check(const struct chess_pos *pos)
{
	return chess_attacked(pos, pos->king[pos->side], !pos->side);
}

/* No pawn, rook or queen, and at most one minor piece, or bishops only,
 * all on one colour of square. */
static int
dead_material(const struct chess_pos *p)
{
	int knights = 0, light = 0, dark = 0;

	for (int x = 0; x < 128; x++) {
		if (!ONBOARD(x))
			continue;
		switch (CHESS_TYPE_OF(p->sq[x])) {
		case CHESS_PAWN:
		case CHESS_ROOK:
		case CHESS_QUEEN: return 0;
		case CHESS_KNIGHT: knights++; break;
		case CHESS_BISHOP:
			if ((RANK88(x) + FILE88(x)) & 1)
				light++;
			else
				dark++;
			break;
		default: break;
		}
	}
	if (knights + light + dark <= 1)
		return 1;
	return knights == 0 && (light == 0 || dark == 0);
}

enum chess_state
chess_state(const struct chess_pos *pos)
{
	if (!chess_has_move(pos))
		return chess_in_check(pos) ? CHESS_CHECKMATE : CHESS_STALEMATE;
	if (dead_material(pos))
		return CHESS_INSUFFICIENT;
	return CHESS_ONGOING;
}
