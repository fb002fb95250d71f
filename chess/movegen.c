/* movegen.c: legal move generation and perft.
 *
 * Out of check, a move is legal unless its piece is pinned and leaves the
 * pin's line, or it is a king move onto an attacked square (with no slider
 * aimed at the king, the king's own square hides no attack), or it is an
 * en passant capture (which can uncover a rank, as in 8/8/8/KPp4r/...).
 * Those captures, and every move while in check, are made on a copy and
 * the king tested: rare enough that plain beats clever. */
#include "core.h"

#include <string.h>

struct dir {
	int8_t d;      /* 0x88 step */
	int8_t dr, df; /* its rank and file parts */
	int8_t diag;   /* 1 for bishop-like, 0 for rook-like */
};

static const struct dir ray_dirs[8] = {
	{ 1, 0, 1, 0 }, { -1, 0, -1, 0 }, { 16, 1, 0, 0 }, { -16, -1, 0, 0 },
	{ 15, 1, -1, 1 }, { 17, 1, 1, 1 }, { -15, -1, 1, 1 }, { -17, -1, -1, 1 },
};
static const int knight_dirs[8] = { 33, 31, 18, 14, -14, -18, -31, -33 };

struct gen {
	const struct chess_pos *p;
	struct chess_move *out;
	int n;
	int us, them, ksq;
	int check;         /* in check: every move is tried on a copy */
	int npins;
	uint8_t pin_sq[8]; /* our pieces pinned to our king */
	uint8_t pin_dir[8]; /* index into ray_dirs, from the king outwards */
};

static void
push(struct gen *g, int from, int to, int promo)
{
	struct chess_move *m = &g->out[g->n++];

	m->from = (uint8_t)SQ64(from);
	m->to = (uint8_t)SQ64(to);
	m->promo = (uint8_t)promo;
}

/* 1 when to lies on the ray from the king in direction ray_dirs[i]. */
static int
on_ray(int ksq, int i, int to)
{
	int dr = RANK88(to) - RANK88(ksq), df = FILE88(to) - FILE88(ksq);
	const struct dir *r = &ray_dirs[i];

	if ((dr > 0) - (dr < 0) != r->dr || (df > 0) - (df < 0) != r->df)
		return 0;
	return r->dr == 0 || r->df == 0 || dr == df || dr == -df;
}

/* 1 when a move of a piece other than the king, out of check, is legal. */
static int
pin_ok(const struct gen *g, int from, int to)
{
	for (int i = 0; i < g->npins; i++) {
		if (g->pin_sq[i] == from)
			return on_ray(g->ksq, g->pin_dir[i], to);
	}
	return 1;
}

static int
legal(const struct gen *g, int from, int to)
{
	return g->check ? chess_safe_after(g->p, from, to, CHESS_NONE) : pin_ok(g, from, to);
}

static void
try_move(struct gen *g, int from, int to)
{
	if (legal(g, from, to))
		push(g, from, to, CHESS_NONE);
}

static void
find_pins(struct gen *g)
{
	const uint8_t *b = g->p->sq;

	g->npins = 0;
	for (int i = 0; i < 8; i++) {
		int d = ray_dirs[i].d, y = g->ksq + d, mine = -1;
		int slider = CHESS_PIECE(g->them, ray_dirs[i].diag ? CHESS_BISHOP : CHESS_ROOK);

		for (; ONBOARD(y); y += d) {
			if (b[y] == 0)
				continue;
			if (mine < 0 && CHESS_COLOR_OF(b[y]) == g->us) {
				mine = y;
				continue;
			}
			if (mine >= 0 &&
			    (b[y] == slider || b[y] == CHESS_PIECE(g->them, CHESS_QUEEN))) {
				g->pin_sq[g->npins] = (uint8_t)mine;
				g->pin_dir[g->npins++] = (uint8_t)i;
			}
			break;
		}
	}
}

static int
takes_or_empty(const struct gen *g, int y)
{
	int piece = g->p->sq[y];

	return piece == 0 || CHESS_COLOR_OF(piece) == g->them;
}

static void
pawn_to(struct gen *g, int from, int to)
{
	if (RANK88(to) != 0 && RANK88(to) != 7) {
		try_move(g, from, to);
		return;
	}
	if (!legal(g, from, to))
		return;
	for (int promo = CHESS_QUEEN; promo >= CHESS_KNIGHT; promo--)
		push(g, from, to, promo);
}

static void
gen_pawn(struct gen *g, int x)
{
	const uint8_t *b = g->p->sq;
	int fwd = g->us == CHESS_WHITE ? 16 : -16;
	int home = g->us == CHESS_WHITE ? 1 : 6;

	if (!ONBOARD(x + fwd)) /* a pawn on its last rank: only a hand-made position */
		return;
	if (b[x + fwd] == 0) {
		pawn_to(g, x, x + fwd);
		if (RANK88(x) == home && b[x + 2 * fwd] == 0)
			try_move(g, x, x + 2 * fwd);
	}
	for (int d = -1; d <= 1; d += 2) {
		int y = x + fwd + d;

		if (!ONBOARD(y))
			continue;
		if (b[y] != 0 && CHESS_COLOR_OF(b[y]) == g->them)
			pawn_to(g, x, y);
		else if (y == g->p->ep && chess_safe_after(g->p, x, y, CHESS_NONE))
			push(g, x, y, CHESS_NONE);
	}
}

static void
gen_knight(struct gen *g, int x)
{
	for (int i = 0; i < 8; i++) {
		int y = x + knight_dirs[i];

		if (ONBOARD(y) && takes_or_empty(g, y))
			try_move(g, x, y);
	}
}

static void
gen_slider(struct gen *g, int x, int first, int last)
{
	const uint8_t *b = g->p->sq;

	for (int i = first; i < last; i++) {
		int d = ray_dirs[i].d;

		for (int y = x + d; ONBOARD(y); y += d) {
			if (b[y] == 0) {
				try_move(g, x, y);
				continue;
			}
			if (CHESS_COLOR_OF(b[y]) == g->them)
				try_move(g, x, y);
			break;
		}
	}
}

/* Castling to the king's side (dir 1) or the queen's (dir -1): the rook
 * home, the squares between empty, the king's path unattacked. */
static void
gen_castle(struct gen *g, int right, int dir)
{
	const uint8_t *b = g->p->sq;
	int k = g->ksq, rook = dir > 0 ? k + 3 : k - 4;

	if (!(g->p->castle & right) || b[rook] != CHESS_PIECE(g->us, CHESS_ROOK))
		return;
	for (int y = k + dir; y != rook; y += dir) {
		if (b[y] != 0)
			return;
	}
	if (chess_attacked(g->p, k + dir, g->them) || chess_attacked(g->p, k + 2 * dir, g->them))
		return;
	push(g, k, k + 2 * dir, CHESS_NONE);
}

static void
gen_king(struct gen *g, int x)
{
	for (int i = 0; i < 8; i++) {
		int y = x + ray_dirs[i].d;

		if (!ONBOARD(y) || !takes_or_empty(g, y))
			continue;
		if (g->check ? chess_safe_after(g->p, x, y, CHESS_NONE) :
			       !chess_attacked(g->p, y, g->them))
			push(g, x, y, CHESS_NONE);
	}
	if (g->check || (x != SQ_E1 && x != SQ_E8))
		return;
	if (g->us == CHESS_WHITE) {
		gen_castle(g, CHESS_CASTLE_WK, 1);
		gen_castle(g, CHESS_CASTLE_WQ, -1);
	} else {
		gen_castle(g, CHESS_CASTLE_BK, 1);
		gen_castle(g, CHESS_CASTLE_BQ, -1);
	}
}

static void
gen_piece(struct gen *g, int x, int type)
{
	switch (type) {
	case CHESS_PAWN: gen_pawn(g, x); break;
	case CHESS_KNIGHT: gen_knight(g, x); break;
	case CHESS_BISHOP: gen_slider(g, x, 4, 8); break;
	case CHESS_ROOK: gen_slider(g, x, 0, 4); break;
	case CHESS_QUEEN: gen_slider(g, x, 0, 8); break;
	case CHESS_KING: gen_king(g, x); break;
	default: break;
	}
}

int
chess_moves(const struct chess_pos *pos, struct chess_move out[CHESS_MAX_MOVES])
{
	struct gen g;

	g.p = pos;
	g.out = out;
	g.n = 0;
	g.us = pos->side;
	g.them = !pos->side;
	g.ksq = pos->king[g.us];
	g.check = chess_attacked(pos, g.ksq, g.them);
	g.npins = 0;
	if (!g.check)
		find_pins(&g);
	for (int x = 0; x < 128; x++) {
		int piece = pos->sq[x];

		if (!ONBOARD(x)) {
			x += 7;
			continue;
		}
		if (piece != 0 && CHESS_COLOR_OF(piece) == g.us)
			gen_piece(&g, x, CHESS_TYPE_OF(piece));
	}
	return g.n;
}

int
chess_has_move(const struct chess_pos *p)
{
	struct chess_move list[CHESS_MAX_MOVES];

	return chess_moves(p, list) > 0;
}

int
chess_is_legal(const struct chess_pos *pos, struct chess_move m)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(pos, list);

	for (int i = 0; i < n; i++) {
		if (chess_move_same(list[i], m))
			return 1;
	}
	return 0;
}

static uint64_t
perft(const struct chess_pos *p, int depth)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(p, list);
	uint64_t sum = 0;

	if (depth == 1)
		return (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct chess_pos c = *p;

		chess_play(&c, list[i]);
		sum += perft(&c, depth - 1);
	}
	return sum;
}

uint64_t
chess_perft(const struct chess_pos *pos, int depth)
{
	return depth <= 0 ? 1 : perft(pos, depth);
}
