/* pgnwrite.c: export-format PGN (PGN standard, section 8.1). */
#include "pgn.h"

#include <stdio.h>
#include <string.h>

#define COLUMNS 79

static const char *const roster[7] = { "Event", "Site", "Date", "Round", "White", "Black",
	"Result" };
static const char symbol[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+#=:-";

static int
in_roster(const char *name)
{
	for (int i = 0; i < 7; i++) {
		if (strcmp(name, roster[i]) == 0)
			return 1;
	}
	return 0;
}

static int
check_tag(const char *name, const char *value, struct err *e)
{
	size_t n = strlen(name);

	if (n == 0 || n > CHESS_PGN_NAME_MAX || strspn(name, symbol) != n)
		return err_set(e, ERR_INPUT, "pgn: tag name \"%.64s\" is not a PGN symbol", name);
	if (strlen(value) > CHESS_PGN_VALUE_MAX || strpbrk(value, "\r\n") != NULL)
		return err_set(e, ERR_INPUT,
		    "pgn: tag %s: a value must be one line of at most %d bytes", name,
		    CHESS_PGN_VALUE_MAX);
	return 0;
}

static int
put_tag(struct buf *o, const char *name, const char *value)
{
	if (buf_printf(o, "[%s \"", name) < 0)
		return -1;
	for (const char *s = value; *s != '\0'; s++) {
		if ((*s == '"' || *s == '\\') && buf_addc(o, '\\') < 0)
			return -1;
		if (buf_addc(o, *s) < 0)
			return -1;
	}
	return buf_adds(o, "\"]\n");
}

/* SetUp and FEN when the game does not start from the usual position and
 * its tags do not say where it starts; a FEN tag given must agree. */
static int
put_setup(struct buf *o, const struct chess_pgn_game *g, struct err *e)
{
	struct chess_pos start, given;
	const char *fen = chess_pgn_tag(g, "FEN");
	char text[CHESS_FEN_MAX];

	chess_start(&start);
	if (fen != NULL) {
		if (chess_fen_read(&given, fen, e) < 0 ||
		    memcmp(&given, &g->start, sizeof given) != 0)
			return err_set(e, ERR_INPUT,
			    "pgn: the FEN tag does not give the game's start position");
		return 0;
	}
	if (memcmp(&start, &g->start, sizeof start) == 0)
		return 0;
	chess_fen_write(&g->start, text);
	if (put_tag(o, "SetUp", "1") < 0 || put_tag(o, "FEN", text) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
write_tags(struct buf *o, const struct chess_pgn_game *g, struct err *e)
{
	for (int i = 0; i < 7; i++) {
		const char *v = chess_pgn_tag(g, roster[i]);

		if (i == 6)
			v = chess_result_text(g->result);
		else if (v == NULL)
			v = i == 2 ? "????.??.??" : "?";
		if (check_tag(roster[i], v, e) < 0)
			return -1;
		if (put_tag(o, roster[i], v) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (put_setup(o, g, e) < 0)
		return -1;
	for (size_t i = 0; i < g->ntags; i++) {
		if (in_roster(g->tags[i].name))
			continue;
		if (check_tag(g->tags[i].name, g->tags[i].value, e) < 0)
			return -1;
		if (put_tag(o, g->tags[i].name, g->tags[i].value) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

struct line {
	struct buf *o;
	size_t col; /* characters on the current line */
};

static int
put_word(struct line *l, const char *w)
{
	size_t n = strlen(w);

	if (l->col > 0 && l->col + 1 + n > COLUMNS) {
		if (buf_addc(l->o, '\n') < 0)
			return -1;
		l->col = 0;
	} else if (l->col > 0) {
		if (buf_addc(l->o, ' ') < 0)
			return -1;
		l->col++;
	}
	l->col += n;
	return buf_add(l->o, w, n);
}

static int
legal_here(const struct chess_pos *pos, struct chess_move m)
{
	return chess_move_is_null(m) ? !chess_in_check(pos) : chess_is_legal(pos, m);
}

static int
write_moves(struct line *l, const struct chess_pgn_game *g, struct err *e)
{
	struct chess_pos pos = g->start;
	char word[32];

	for (size_t i = 0; i < g->nmoves; i++) {
		if (!legal_here(&pos, g->moves[i])) {
			chess_uci_write(g->moves[i], word);
			return err_set(e, ERR_INPUT,
			    "pgn: move %zu (%s) is illegal in its position", i + 1, word);
		}
		if (pos.side == CHESS_WHITE || i == 0) {
			snprintf(word, sizeof word, "%lu%s", (unsigned long)pos.fullmove,
			    pos.side == CHESS_WHITE ? "." : "...");
			if (put_word(l, word) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
		}
		chess_san_write(&pos, g->moves[i], word);
		if (put_word(l, word) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		chess_play(&pos, g->moves[i]);
	}
	return 0;
}

/* The note, a ';' comment a line (a last line without its line feed
 * too).  A line the reader would not give back as it is (one starting
 * with a blank, which the reader drops, or ending with a CR) is refused. */
static int
write_note(struct buf *o, const struct chess_pgn_game *g, struct err *e)
{
	const char *p = g->note, *end = g->note ? g->note + g->note_len : NULL;

	while (p != NULL && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0 && (p[0] == ' ' || p[0] == '\t' || p[n - 1] == '\r'))
			return err_set(e, ERR_INPUT,
			    "pgn: a note's line must not start with a blank or end with a CR");
		if (buf_adds(o, "; ") < 0 || buf_add(o, p, n) < 0 || buf_addc(o, '\n') < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		p += n + (nl != NULL);
	}
	return 0;
}

int
chess_pgn_write(struct buf *out, const struct chess_pgn_game *g, struct err *e)
{
	struct line l = { out, 0 };

	if (write_tags(out, g, e) < 0)
		return -1;
	if (buf_addc(out, '\n') < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (write_note(out, g, e) < 0)
		return -1;
	if (write_moves(&l, g, e) < 0)
		return -1;
	if (put_word(&l, chess_result_text(g->result)) < 0 || buf_adds(out, "\n\n") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}
