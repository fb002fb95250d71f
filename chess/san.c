/* san.c: move text: UCI (e2e4) and SAN (Nf3, exd8=Q+, O-O), both ways. */
#include "core.h"

#include <string.h>

#define TEXT_SHOWN 24 /* bytes of a bad move text quoted in a message */

static const char type_letters[] = "  NBRQK";

/* text for a message: at most TEXT_SHOWN bytes, unprintable ones as '?' */
static void
shown(const char *text, char out[TEXT_SHOWN + 4])
{
	size_t i;

	for (i = 0; i < TEXT_SHOWN && text[i] != '\0'; i++)
		out[i] = text[i] > ' ' && text[i] < 0x7f ? text[i] : '?';
	if (text[i] != '\0') {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
}

static int
is_castling(const struct chess_pos *p, struct chess_move m)
{
	int from = SQ88(m.from), to = SQ88(m.to);

	return CHESS_TYPE_OF(p->sq[from]) == CHESS_KING && (to == from + 2 || to == from - 2);
}

void
chess_uci_write(struct chess_move m, char out[CHESS_UCI_MAX])
{
	if (chess_move_is_null(m)) {
		memcpy(out, "0000", 5);
		return;
	}
	out[0] = (char)('a' + CHESS_FILE(m.from & 63));
	out[1] = (char)('1' + CHESS_RANK(m.from & 63));
	out[2] = (char)('a' + CHESS_FILE(m.to & 63));
	out[3] = (char)('1' + CHESS_RANK(m.to & 63));
	out[4] = m.promo >= CHESS_KNIGHT && m.promo <= CHESS_QUEEN ? "  nbrq"[m.promo] : '\0';
	out[5] = '\0';
}

/* The move from, to, promo (promo 0: none) of list[0..n) into *m; when
 * only a promotion matches, *wants_promo is set. */
static int
find_move(const struct chess_move *list, int n, int from, int to, int promo,
    struct chess_move *m, int *wants_promo)
{
	*wants_promo = 0;
	for (int i = 0; i < n; i++) {
		if (list[i].from != from || list[i].to != to)
			continue;
		if (list[i].promo == promo) {
			*m = list[i];
			return 1;
		}
		if (promo == CHESS_NONE)
			*wants_promo = 1;
	}
	return 0;
}

static int
square_at(const char *s)
{
	if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
		return -1;
	return CHESS_SQ(s[0] - 'a', s[1] - '1');
}

int
chess_uci_read(const struct chess_pos *pos, const char *text, struct chess_move *m, struct err *e)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(pos, list);

	return chess_uci_among(list, n, text, m, e);
}

int
chess_uci_among(const struct chess_move *list, int nlist, const char *text,
    struct chess_move *m, struct err *e)
{
	char show[TEXT_SHOWN + 4];
	size_t n = strlen(text);
	int from, to, promo = CHESS_NONE, wants;
	const char *pl, *why;

	/* the text shown only in a message: a million decisions' moves are
	 * read here */
	if (n < 4 || n > 5 || (from = square_at(text)) < 0 || (to = square_at(text + 2)) < 0) {
		why = "not a move in UCI form (like e2e4 or e7e8q)";
	} else if (n == 5 && (pl = strchr("nbrq", text[4])) == NULL) {
		why = "the promotion must be one of n b r q";
	} else {
		if (n == 5)
			promo = CHESS_KNIGHT + (int)(pl - "nbrq");
		if (find_move(list, nlist, from, to, promo, m, &wants))
			return 0;
		why = wants ? "a promotion needs its piece (like e7e8q)" : "illegal in this position";
	}
	shown(text, show);
	return err_set(e, ERR_INPUT, "%s: %s", show, why);
}

/* How m's piece must be told apart from others of its kind that can also
 * reach m.to: 0 not at all, 1 by file, 2 by rank, 3 by both. */
static int
ambiguity(const struct chess_pos *p, struct chess_move m)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(p, list), type = p->sq[SQ88(m.from)];
	int others = 0, same_file = 0, same_rank = 0;

	for (int i = 0; i < n; i++) {
		if (list[i].to != m.to || list[i].from == m.from ||
		    p->sq[SQ88(list[i].from)] != type)
			continue;
		others = 1;
		same_file |= CHESS_FILE(list[i].from) == CHESS_FILE(m.from);
		same_rank |= CHESS_RANK(list[i].from) == CHESS_RANK(m.from);
	}
	if (!others)
		return 0;
	if (!same_file)
		return 1;
	return same_rank ? 3 : 2;
}

static char *
write_square(char *o, int sq)
{
	*o++ = (char)('a' + CHESS_FILE(sq));
	*o++ = (char)('1' + CHESS_RANK(sq));
	return o;
}

/* The SAN of m without its check mark. */
static char *
write_body(const struct chess_pos *p, struct chess_move m, char *o)
{
	int piece = p->sq[SQ88(m.from)], type = CHESS_TYPE_OF(piece);
	int capture = p->sq[SQ88(m.to)] != 0;

	if (is_castling(p, m))
		return stpcpy(o, m.to > m.from ? "O-O" : "O-O-O");
	if (type == CHESS_PAWN) {
		if (CHESS_FILE(m.from) != CHESS_FILE(m.to)) {
			*o++ = (char)('a' + CHESS_FILE(m.from));
			*o++ = 'x';
		}
		o = write_square(o, m.to);
		if (m.promo != CHESS_NONE) {
			*o++ = '=';
			*o++ = type_letters[m.promo];
		}
		return o;
	}
	*o++ = type_letters[type];
	switch (ambiguity(p, m)) {
	case 1: *o++ = (char)('a' + CHESS_FILE(m.from)); break;
	case 2: *o++ = (char)('1' + CHESS_RANK(m.from)); break;
	case 3: o = write_square(o, m.from); break;
	default: break;
	}
	if (capture)
		*o++ = 'x';
	return write_square(o, m.to);
}

void
chess_san_write(const struct chess_pos *pos, struct chess_move m, char out[CHESS_SAN_MAX])
{
	struct chess_pos after = *pos;
	char *o;

	if (chess_move_is_null(m)) {
		memcpy(out, "--", 3);
		return;
	}
	o = write_body(pos, m, out);
	chess_play(&after, m);
	if (chess_in_check(&after))
		*o++ = chess_has_move(&after) ? '+' : '#';
	*o = '\0';
}

/* What a SAN text says about the move it names. */
struct san {
	int type;          /* piece type moving */
	int castle;        /* 1 king's side, 2 queen's side, 0 no castling */
	int file, rank;    /* disambiguation, -1 when not given */
	int to;            /* destination 0..63 */
	int promo;         /* promotion type or CHESS_NONE */
};

/* Parse text[0..n) (suffixes already cut) into *s; -1 when it is no SAN. */
static int
san_parse(const char *t, size_t n, struct san *s)
{
	const char *pl;
	size_t i = 0;

	memset(s, 0, sizeof *s);
	s->file = s->rank = -1;
	s->type = CHESS_PAWN;
	if ((n == 3 && (!memcmp(t, "O-O", 3) || !memcmp(t, "0-0", 3))) ||
	    (n == 5 && (!memcmp(t, "O-O-O", 5) || !memcmp(t, "0-0-0", 5)))) {
		s->castle = n == 3 ? 1 : 2;
		s->type = CHESS_KING;
		return 0;
	}
	if (n > 0 && (pl = strchr("NBRQK", t[0])) != NULL) {
		s->type = CHESS_KNIGHT + (int)(pl - "NBRQK");
		i = 1;
	}
	if (n >= 2 && (pl = strchr("NBRQKnbrqk", t[n - 1])) != NULL && t[n - 1] != '\0') {
		s->promo = CHESS_KNIGHT + (int)(pl - "NBRQKnbrqk") % 5;
		n -= 1 + (t[n - 2] == '=');
	}
	if (n < i + 2 || (s->to = square_at(t + n - 2)) < 0)
		return -1;
	n -= 2;
	if (n > i && (t[n - 1] == 'x' || t[n - 1] == '-'))
		n--;
	if (i < n && t[i] >= 'a' && t[i] <= 'h')
		s->file = t[i++] - 'a';
	if (i < n && t[i] >= '1' && t[i] <= '8')
		s->rank = t[i++] - '1';
	return i == n ? 0 : -1;
}

static int
san_fits(const struct chess_pos *p, const struct san *s, struct chess_move m)
{
	int piece = p->sq[SQ88(m.from)];

	if (CHESS_TYPE_OF(piece) != s->type || m.to != s->to || is_castling(p, m))
		return 0;
	if (s->file >= 0 ? CHESS_FILE(m.from) != s->file :
			   s->type == CHESS_PAWN && CHESS_FILE(m.from) != CHESS_FILE(m.to))
		return 0;
	return s->rank < 0 || CHESS_RANK(m.from) == s->rank;
}

static int
san_castle(const struct chess_pos *p, const struct san *s, struct chess_move *m, const char *show,
    struct err *e)
{
	int from = p->side == CHESS_WHITE ? CHESS_SQ(4, 0) : CHESS_SQ(4, 7);
	int to = s->castle == 1 ? from + 2 : from - 2, wants;
	struct chess_move list[CHESS_MAX_MOVES];

	if (CHESS_TYPE_OF(p->sq[SQ88(from)]) == CHESS_KING &&
	    find_move(list, chess_moves(p, list), from, to, CHESS_NONE, m, &wants))
		return 0;
	return err_set(e, ERR_INPUT, "%s: castling is not legal in this position", show);
}

/* Find the one legal move s names. */
static int
san_match(const struct chess_pos *p, const struct san *s, struct chess_move *m, const char *show,
    struct err *e)
{
	struct chess_move list[CHESS_MAX_MOVES];
	int n = chess_moves(p, list), found = -1, wants = 0;

	for (int i = 0; i < n; i++) {
		if (!san_fits(p, s, list[i]))
			continue;
		if (list[i].promo != s->promo) {
			wants |= s->promo == CHESS_NONE;
			continue;
		}
		if (found >= 0) {
			char a[CHESS_SAN_MAX], b[CHESS_SAN_MAX];

			chess_san_write(p, list[found], a);
			chess_san_write(p, list[i], b);
			return err_set(e, ERR_INPUT, "%s: ambiguous: %s or %s", show, a, b);
		}
		found = i;
	}
	if (found >= 0) {
		*m = list[found];
		return 0;
	}
	if (wants)
		return err_set(e, ERR_INPUT, "%s: a promotion needs its piece (like =Q)", show);
	return err_set(e, ERR_INPUT, "%s: illegal in this position", show);
}

int
chess_san_read(const struct chess_pos *pos, const char *text, struct chess_move *m, struct err *e)
{
	char show[TEXT_SHOWN + 4];
	size_t n = strlen(text);
	struct san s;

	shown(text, show);
	while (n > 0 && strchr("+#!?", text[n - 1]) != NULL)
		n--;
	if (n == 0 || n > 12 || san_parse(text, n, &s) < 0)
		return err_set(e, ERR_INPUT, "%s: not a move in SAN", show);
	if (s.castle)
		return san_castle(pos, &s, m, show, e);
	if (s.promo == CHESS_KING)
		return err_set(e, ERR_INPUT, "%s: a pawn cannot promote to a king", show);
	if (s.promo != CHESS_NONE && s.type != CHESS_PAWN)
		return err_set(e, ERR_INPUT, "%s: only a pawn promotes", show);
	if (s.type == CHESS_KING && s.file < 0 && s.rank < 0 &&
	    CHESS_SQ(4, pos->side == CHESS_WHITE ? 0 : 7) == SQ64(pos->king[pos->side]) &&
	    (s.to == SQ64(pos->king[pos->side]) + 2 || s.to == SQ64(pos->king[pos->side]) - 2))
		return err_set(e, ERR_INPUT, "%s: castling is written O-O or O-O-O", show);
	return san_match(pos, &s, m, show, e);
}
