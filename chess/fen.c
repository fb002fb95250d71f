/* fen.c: FEN and EPD positions, read strictly and written canonically. */
#include "core.h"

#include <string.h>

#define MAX_FIELDS 8

struct field {
	const char *s;
	size_t n;
};

static const char piece_letters[] = " PNBRQK  pnbrqk";

/* Split text at single spaces into at most MAX_FIELDS fields; returns the
 * count (MAX_FIELDS + 1 when there are more). */
static int
split(const char *text, struct field f[MAX_FIELDS])
{
	int n = 0;
	const char *s = text;

	for (;;) {
		const char *sp = strchr(s, ' ');
		size_t len = sp ? (size_t)(sp - s) : strlen(s);

		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[n].s = s;
		f[n++].n = len;
		if (sp == NULL)
			return n;
		s = sp + 1;
	}
}

static int
read_placement(struct chess_pos *p, struct field f, const char *what, struct err *e)
{
	int rank = 7, file = 0, digit = 0;

	for (size_t i = 0; i < f.n; i++) {
		char c = f.s[i];
		const char *l = c != ' ' && c != '\0' ? strchr(piece_letters, c) : NULL;

		if (c == '/') {
			if (file != 8)
				return err_set(e, ERR_INPUT, "%s: rank %d has %d squares, not 8",
				    what, rank + 1, file);
			if (rank == 0)
				return err_set(e, ERR_INPUT, "%s: more than 8 ranks", what);
			rank--;
			file = digit = 0;
		} else if (c >= '1' && c <= '8') {
			if (digit)
				return err_set(e, ERR_INPUT, "%s: two digits in a row in rank %d",
				    what, rank + 1);
			file += c - '0';
			digit = 1;
			if (file > 8)
				return err_set(e, ERR_INPUT, "%s: rank %d has more than 8 squares",
				    what, rank + 1);
		} else if (l != NULL) {
			if (file >= 8)
				return err_set(e, ERR_INPUT, "%s: rank %d has more than 8 squares",
				    what, rank + 1);
			p->sq[rank * 16 + file++] = (uint8_t)(l - piece_letters);
			digit = 0;
		} else {
			return err_set(e, ERR_INPUT, "%s: unexpected character in the placement",
			    what);
		}
	}
	if (rank != 0)
		return err_set(e, ERR_INPUT, "%s: the placement has %d ranks, not 8",
		    what, 8 - rank);
	if (file != 8)
		return err_set(e, ERR_INPUT, "%s: rank 1 has %d squares, not 8", what, file);
	return 0;
}

static int
read_castling(struct chess_pos *p, struct field f, const char *what, struct err *e)
{
	static const char order[] = "KQkq";
	size_t at = 0;

	p->castle = 0;
	if (f.n == 1 && f.s[0] == '-')
		return 0;
	for (size_t i = 0; i < f.n; i++) {
		while (at < 4 && order[at] != f.s[i])
			at++;
		if (at == 4)
			return err_set(e, ERR_INPUT,
			    "%s: castling rights must be \"-\" or some of KQkq in that order", what);
		p->castle |= (uint8_t)(1u << at++);
	}
	if (f.n == 0)
		return err_set(e, ERR_INPUT, "%s: empty castling field", what);
	return 0;
}

/* The en passant field's square, as text only; its sense is checked later. */
static int
read_ep(struct chess_pos *p, struct field f, const char *what, struct err *e)
{
	int want = p->side == CHESS_WHITE ? '6' : '3';

	p->ep = CHESS_NO_EP;
	if (f.n == 1 && f.s[0] == '-')
		return 0;
	if (f.n != 2 || f.s[0] < 'a' || f.s[0] > 'h' || (f.s[1] != '3' && f.s[1] != '6'))
		return err_set(e, ERR_INPUT,
		    "%s: the en passant field must be \"-\" or a square on rank 3 or 6", what);
	if (f.s[1] != want)
		return err_set(e, ERR_INPUT, "%s: en passant square %.2s with %s to move",
		    what, f.s,
		    p->side == CHESS_WHITE ? "white" : "black");
	p->ep = (uint8_t)((f.s[1] - '1') * 16 + (f.s[0] - 'a'));
	return 0;
}

/* Plain decimal, no sign, no leading zero, lo..hi. */
static int
read_count(struct field f, unsigned long lo, unsigned long hi, unsigned long *out)
{
	unsigned long v = 0;

	if (f.n == 0 || f.n > 10 || (f.n > 1 && f.s[0] == '0'))
		return -1;
	for (size_t i = 0; i < f.n; i++) {
		if (f.s[i] < '0' || f.s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(f.s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int
count_pieces(struct chess_pos *p, const char *what, struct err *e)
{
	int kings[2] = { 0, 0 }, pawns[2] = { 0, 0 }, all[2] = { 0, 0 };

	for (int x = 0; x < 128; x++) {
		int piece = p->sq[x], c = CHESS_COLOR_OF(piece);

		if (!ONBOARD(x) || piece == 0)
			continue;
		all[c]++;
		if (CHESS_TYPE_OF(piece) == CHESS_KING) {
			kings[c]++;
			p->king[c] = (uint8_t)x;
		} else if (CHESS_TYPE_OF(piece) == CHESS_PAWN) {
			pawns[c]++;
			if (RANK88(x) == 0 || RANK88(x) == 7)
				return err_set(e, ERR_INPUT, "%s: a pawn on %c%d",
				    what, 'a' + FILE88(x), RANK88(x) + 1);
		}
	}
	for (int c = 0; c < 2; c++) {
		const char *name = c == CHESS_WHITE ? "white" : "black";

		if (kings[c] != 1)
			return err_set(e, ERR_INPUT, "%s: %s has %d kings", what, name, kings[c]);
		if (pawns[c] > 8)
			return err_set(e, ERR_INPUT, "%s: %s has %d pawns", what, name, pawns[c]);
		if (all[c] > 16)
			return err_set(e, ERR_INPUT, "%s: %s has %d pieces", what, name, all[c]);
	}
	return 0;
}

static int
check_castling(const struct chess_pos *p, const char *what, struct err *e)
{
	static const struct {
		int right, king, rook, color;
		char letter;
	} need[4] = {
		{ CHESS_CASTLE_WK, SQ_E1, SQ_H1, CHESS_WHITE, 'K' },
		{ CHESS_CASTLE_WQ, SQ_E1, SQ_A1, CHESS_WHITE, 'Q' },
		{ CHESS_CASTLE_BK, SQ_E8, SQ_H8, CHESS_BLACK, 'k' },
		{ CHESS_CASTLE_BQ, SQ_E8, SQ_A8, CHESS_BLACK, 'q' },
	};

	for (int i = 0; i < 4; i++) {
		if (!(p->castle & need[i].right))
			continue;
		if (p->sq[need[i].king] != CHESS_PIECE(need[i].color, CHESS_KING) ||
		    p->sq[need[i].rook] != CHESS_PIECE(need[i].color, CHESS_ROOK))
			return err_set(e, ERR_INPUT,
			    "%s: castling right %c without king and rook at home", what,
			    need[i].letter);
	}
	return 0;
}

/* The pawn that passed must stand in front of the square, and the square
 * and the one it came from must be empty. */
static int
check_ep(const struct chess_pos *p, const char *what, struct err *e)
{
	int ep = p->ep, ahead = p->side == CHESS_WHITE ? -16 : 16;

	if (ep == CHESS_NO_EP)
		return 0;
	if (p->sq[ep + ahead] != CHESS_PIECE(!p->side, CHESS_PAWN) || p->sq[ep] != 0 ||
	    p->sq[ep - ahead] != 0)
		return err_set(e, ERR_INPUT,
		    "%s: en passant square %c%d without a pawn that just passed it",
		    what, 'a' + FILE88(ep), RANK88(ep) + 1);
	return 0;
}

static int
read_fields(struct chess_pos *p, const struct field *f, const char *what, struct err *e)
{
	memset(p, 0, sizeof *p);
	if (read_placement(p, f[0], what, e) < 0)
		return -1;
	if (f[1].n != 1 || (f[1].s[0] != 'w' && f[1].s[0] != 'b'))
		return err_set(e, ERR_INPUT, "%s: the side to move must be w or b", what);
	p->side = f[1].s[0] == 'w' ? CHESS_WHITE : CHESS_BLACK;
	if (read_castling(p, f[2], what, e) < 0 || read_ep(p, f[3], what, e) < 0)
		return -1;
	if (count_pieces(p, what, e) < 0 || check_castling(p, what, e) < 0 ||
	    check_ep(p, what, e) < 0)
		return -1;
	if (chess_attacked(p, p->king[!p->side], p->side))
		return err_set(e, ERR_INPUT, "%s: the side not to move is in check", what);
	chess_ep_fix(p);
	return 0;
}

int
chess_fen_read(struct chess_pos *pos, const char *fen, struct err *e)
{
	struct field f[MAX_FIELDS];
	unsigned long half, full;
	int n = split(fen, f);

	if (n > MAX_FIELDS)
		return err_set(e, ERR_INPUT, "fen: expected 6 fields, found more than %d",
		    MAX_FIELDS);
	if (n != 6)
		return err_set(e, ERR_INPUT,
		    "fen: expected 6 fields separated by single spaces, found %d", n);
	if (read_fields(pos, f, "fen", e) < 0)
		return -1;
	if (read_count(f[4], 0, UINT16_MAX, &half) < 0)
		return err_set(e, ERR_INPUT,
		    "fen: the half-move clock must be a number from 0 to 65535");
	if (read_count(f[5], 1, CHESS_FULLMOVE_MAX, &full) < 0)
		return err_set(e, ERR_INPUT,
		    "fen: the full-move number must be a number from 1 to %u",
		    CHESS_FULLMOVE_MAX);
	pos->halfmove = (uint16_t)half;
	pos->fullmove = (uint32_t)full;
	return 0;
}

int
chess_epd_read(struct chess_pos *pos, const char *epd, struct err *e)
{
	struct field f[MAX_FIELDS];
	int n = split(epd, f);

	if (n > MAX_FIELDS)
		return err_set(e, ERR_INPUT, "epd: expected 4 fields, found more than %d",
		    MAX_FIELDS);
	if (n != 4)
		return err_set(e, ERR_INPUT,
		    "epd: expected 4 fields separated by single spaces, found %d", n);
	if (read_fields(pos, f, "epd", e) < 0)
		return -1;
	pos->halfmove = 0;
	pos->fullmove = 1;
	return 0;
}

static char *
write_placement(const struct chess_pos *p, char *o)
{
	for (int rank = 7; rank >= 0; rank--) {
		int empty = 0;

		for (int file = 0; file < 8; file++) {
			int piece = p->sq[rank * 16 + file];

			if (piece == 0) {
				empty++;
				continue;
			}
			if (empty > 0)
				*o++ = (char)('0' + empty);
			empty = 0;
			*o++ = piece_letters[piece & 15];
		}
		if (empty > 0)
			*o++ = (char)('0' + empty);
		if (rank > 0)
			*o++ = '/';
	}
	return o;
}

static char *
write_number(char *o, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*o++ = tmp[--n];
	return o;
}

void
chess_fen_write(const struct chess_pos *pos, char out[CHESS_FEN_MAX])
{
	char *o = write_placement(pos, out);

	*o++ = ' ';
	*o++ = pos->side == CHESS_WHITE ? 'w' : 'b';
	*o++ = ' ';
	if (pos->castle == 0)
		*o++ = '-';
	for (int i = 0; i < 4; i++) {
		if (pos->castle & (1 << i))
			*o++ = "KQkq"[i];
	}
	*o++ = ' ';
	if (pos->ep == CHESS_NO_EP) {
		*o++ = '-';
	} else {
		*o++ = (char)('a' + FILE88(pos->ep));
		*o++ = (char)('1' + RANK88(pos->ep));
	}
	*o++ = ' ';
	o = write_number(o, pos->halfmove);
	*o++ = ' ';
	o = write_number(o, pos->fullmove);
	*o = '\0';
}
