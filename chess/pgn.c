/* pgn.c: the PGN reader: tags, then movetext replayed move by move. */
#include "pgn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/utf8.h"

#define TOKEN_MAX 32 /* longest movetext token taken: SAN needs at most 12 */

/* ---- bytes and lines ---- */

static int
peek(const struct chess_pgn_reader *r)
{
	return r->off < r->len ? (unsigned char)r->p[r->off] : -1;
}

static void
step(struct chess_pgn_reader *r)
{
	if (r->p[r->off] == '\n')
		r->line++;
	r->off++;
}

static int
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void
skip_line(struct chess_pgn_reader *r)
{
	while (peek(r) >= 0 && peek(r) != '\n')
		step(r);
}

/* White space, and lines starting with % (the PGN escape). */
static void
skip_space(struct chess_pgn_reader *r)
{
	for (;;) {
		int c = peek(r);

		if (is_space(c))
			step(r);
		else if (c == '%' && (r->off == 0 || r->p[r->off - 1] == '\n'))
			skip_line(r);
		else
			return;
	}
}

/* ---- messages ---- */

static int
fail(const struct chess_pgn_reader *r, unsigned long line, struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
fail(const struct chess_pgn_reader *r, unsigned long line, struct err *e, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(e, ERR_INPUT, "%s:%lu: game %lu: %s", r->name, line, r->games, msg);
}

/* A move's error, whose reason ("Nxe5: illegal ...") is already in e. */
static int
fail_move(const struct chess_pgn_reader *r, unsigned long line, const struct chess_pos *pos,
    struct err *e)
{
	char why[sizeof e->msg];

	memcpy(why, e->msg, sizeof why);
	why[sizeof why - 1] = '\0';
	return err_set(e, ERR_INPUT, "%s:%lu: game %lu, move %lu%s %.700s", r->name, line, r->games,
	    (unsigned long)pos->fullmove, pos->side == CHESS_WHITE ? "." : "...", why);
}

/* A tag value fit for a message: control bytes as '?', at most 64 bytes. */
static void
shown_value(const char *v, char out[72])
{
	size_t i;

	for (i = 0; i < 64 && v[i] != '\0'; i++)
		out[i] = (unsigned char)v[i] < ' ' || v[i] == 0x7f ? '?' : v[i];
	out[i] = '\0';
}

/* ---- comments and variations ---- */

static int
skip_comment(struct chess_pgn_reader *r, struct err *e)
{
	unsigned long line = r->line;

	step(r);
	while (peek(r) >= 0 && peek(r) != '}')
		step(r);
	if (peek(r) < 0)
		return fail(r, line, e, "a comment opened here is not closed");
	step(r);
	return 0;
}

static int
skip_variation(struct chess_pgn_reader *r, struct err *e)
{
	unsigned long line = r->line;
	int depth = 0;

	do {
		int c = peek(r);

		if (c < 0)
			return fail(r, line, e, "a variation opened here is not closed");
		if (c == '{') {
			if (skip_comment(r, e) < 0)
				return -1;
			continue;
		}
		if (c == ';') {
			skip_line(r);
			continue;
		}
		if (c == '(' && ++depth > CHESS_PGN_MAX_DEPTH)
			return fail(r, r->line, e, "variations nested more than %d deep",
			    CHESS_PGN_MAX_DEPTH);
		if (c == ')')
			depth--;
		step(r);
	} while (depth > 0);
	return 0;
}

/* ---- tags ---- */

static int
is_symbol(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("_+#=:-", c) != NULL);
}

static void
skip_blanks(struct chess_pgn_reader *r)
{
	while (peek(r) == ' ' || peek(r) == '\t')
		step(r);
}

static int
read_name(struct chess_pgn_reader *r, char name[CHESS_PGN_NAME_MAX + 1], struct err *e)
{
	size_t n = 0;

	while (is_symbol(peek(r))) {
		if (n == CHESS_PGN_NAME_MAX)
			return fail(r, r->line, e, "a tag name longer than %d bytes",
			    CHESS_PGN_NAME_MAX);
		name[n++] = (char)peek(r);
		step(r);
	}
	name[n] = '\0';
	if (n == 0)
		return fail(r, r->line, e, "a tag without a name");
	return 0;
}

/* The quoted value after the name, escapes undone, into v. */
static int
read_value(struct chess_pgn_reader *r, const char *name, struct buf *v, struct err *e)
{
	if (peek(r) != '"')
		return fail(r, r->line, e, "tag %s: expected a quoted value", name);
	step(r);
	for (;;) {
		int c = peek(r);

		if (c < 0 || c == '\n' || c == '\r')
			return fail(r, r->line, e, "tag %s: the value is not closed on its line",
			    name);
		if (c == '\0')
			return fail(r, r->line, e, "tag %s: a NUL byte in the value", name);
		step(r);
		if (c == '"')
			return 0;
		if (c == '\\' && (peek(r) == '"' || peek(r) == '\\')) {
			c = peek(r);
			step(r);
		}
		if (v->len == CHESS_PGN_VALUE_MAX)
			return fail(r, r->line, e, "tag %s: a value longer than %d bytes",
			    name, CHESS_PGN_VALUE_MAX);
		if (buf_addc(v, (char)c) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
}

static int
add_tag(struct chess_pgn_reader *r, struct chess_pgn_game *g, const char *name, struct buf *v,
    unsigned long line, struct err *e)
{
	struct chess_pgn_tag *t;

	if (chess_pgn_tag(g, name) != NULL)
		return fail(r, line, e, "tag %s appears twice", name);
	if (g->ntags == CHESS_PGN_MAX_TAGS)
		return fail(r, line, e, "more than %d tags", CHESS_PGN_MAX_TAGS);
	if (g->ntags == g->cap_tags) {
		size_t cap = g->cap_tags ? 2 * g->cap_tags : 32;

		if ((t = realloc(g->tags, cap * sizeof *t)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		g->tags = t;
		g->cap_tags = cap;
	}
	if (v->p == NULL && buf_addc(v, '\0') < 0) /* an empty value still needs its bytes */
		return err_set(e, ERR_NOMEM, "out of memory");
	t = &g->tags[g->ntags];
	if ((t->name = strdup(name)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	t->value = v->p; /* the tag owns the bytes now */
	*v = (struct buf)BUF_INIT;
	g->ntags++;
	return 0;
}

static int
read_tag(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	char name[CHESS_PGN_NAME_MAX + 1];
	struct buf v = BUF_INIT;
	unsigned long line = r->line;
	int rc = -1;

	step(r); /* [ */
	skip_blanks(r);
	if (read_name(r, name, e) < 0)
		goto out;
	skip_blanks(r);
	if (read_value(r, name, &v, e) < 0)
		goto out;
	skip_blanks(r);
	if (peek(r) != ']') {
		fail(r, r->line, e, "tag %s: expected ] after the value", name);
		goto out;
	}
	step(r);
	if (!utf8_valid((const unsigned char *)(v.p ? v.p : ""), v.len)) {
		fail(r, line, e, "tag %s: the value is not UTF-8", name);
		goto out;
	}
	rc = add_tag(r, g, name, &v, line, e);
out:
	buf_release(&v);
	return rc;
}

/* ---- the start position ---- */

static int
is_standard(const char *variant)
{
	static const char *const names[] = { "standard", "normal", "chess", "from position" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcasecmp(variant, names[i]) == 0)
			return 1;
	}
	return 0;
}

static int
is_960(const char *variant)
{
	static const char *const names[] = { "chess960", "chess 960", "960", "fischerandom",
		"fischerrandom", "fischer random", "chess960 (fischer random)" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcasecmp(variant, names[i]) == 0)
			return 1;
	}
	return 0;
}

/* g->start from the tags: 0, CHESS_PGN_UNSUPPORTED, or -1. */
static int
setup(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	const char *variant = chess_pgn_tag(g, "Variant");
	const char *fen = chess_pgn_tag(g, "FEN"), *set = chess_pgn_tag(g, "SetUp");
	char show[72];

	if (variant != NULL && !is_standard(variant)) {
		shown_value(variant, show);
		fail(r, g->line, e, "variant \"%s\"%s is not supported",
		    show, is_960(variant) ? " (Chess960)" : "");
		return CHESS_PGN_UNSUPPORTED;
	}
	if (set != NULL && strcmp(set, "0") != 0 && strcmp(set, "1") != 0)
		return fail(r, g->line, e, "tag SetUp must be \"0\" or \"1\"");
	if (fen == NULL) {
		if (set != NULL && strcmp(set, "1") == 0)
			return fail(r, g->line, e, "tag SetUp is \"1\" but there is no FEN tag");
		chess_start(&g->start);
		return 0;
	}
	if (set != NULL && strcmp(set, "0") == 0)
		return fail(r, g->line, e, "a FEN tag with SetUp \"0\"");
	if (chess_fen_read(&g->start, fen, e) < 0) {
		char why[sizeof e->msg];

		memcpy(why, e->msg, sizeof why);
		return fail(r, g->line, e, "tag FEN: %.700s", why);
	}
	return 0;
}

/* ---- movetext ---- */

static int
is_token_byte(int c)
{
	return c > ' ' && c != 0x7f && strchr("{}();[]$\"", c) == NULL;
}

/* The token at r into t (NUL-terminated); 0, or -1 when it is too long. */
static int
read_token(struct chess_pgn_reader *r, char t[TOKEN_MAX + 1])
{
	size_t n = 0;
	int rc = 0;

	while (is_token_byte(peek(r))) {
		if (n < TOKEN_MAX)
			t[n++] = (char)peek(r);
		else
			rc = -1;
		step(r);
	}
	t[n] = '\0';
	return rc;
}

static int
result_of(const char *t)
{
	if (strcmp(t, "1-0") == 0)
		return CHESS_RESULT_WHITE;
	if (strcmp(t, "0-1") == 0)
		return CHESS_RESULT_BLACK;
	if (strcmp(t, "1/2-1/2") == 0)
		return CHESS_RESULT_DRAW;
	if (strcmp(t, "*") == 0)
		return CHESS_RESULT_UNKNOWN;
	return -1;
}

/* Past a move number at t ("12.", "12...", "12", "..."), or t itself. */
static const char *
past_number(const char *t)
{
	const char *s = t;

	while (*s >= '0' && *s <= '9')
		s++;
	if (*s != '.' && (*s != '\0' || s == t))
		return t;
	while (*s == '.')
		s++;
	return s;
}

static int
push_move(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct chess_move m,
    unsigned long line, struct err *e)
{
	if (g->nmoves == CHESS_PGN_MAX_PLIES)
		return fail(r, line, e, "more than %d moves", CHESS_PGN_MAX_PLIES);
	if (g->nmoves == g->cap_moves) {
		size_t cap = g->cap_moves ? 2 * g->cap_moves : 256;
		struct chess_move *p = realloc(g->moves, cap * sizeof *p);

		if (p == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		g->moves = p;
		g->cap_moves = cap;
	}
	g->moves[g->nmoves++] = m;
	return 0;
}

static int
looks_uci(const char *t)
{
	size_t n = strlen(t);

	return (n == 4 || n == 5) && t[0] >= 'a' && t[0] <= 'h' && t[1] >= '1' && t[1] <= '8' &&
	    t[2] >= 'a' && t[2] <= 'h' && t[3] >= '1' && t[3] <= '8';
}

/* Read move text t in pos: SAN, else UCI, else a null move. */
static int
read_move(const struct chess_pos *pos, const char *t, struct chess_move *m, struct err *e)
{
	struct err uci = ERR_INIT;

	if (!strcmp(t, "--") || !strcmp(t, "Z0") || !strcmp(t, "0000")) {
		*m = (struct chess_move){ 0, 0, CHESS_NONE };
		if (chess_in_check(pos))
			return err_set(e, ERR_INPUT, "%s: a null move while in check", t);
		return 0;
	}
	if (chess_san_read(pos, t, m, e) == 0)
		return 0;
	if (looks_uci(t) && chess_uci_read(pos, t, m, &uci) == 0)
		return 0;
	return -1;
}

/* One movetext token at r: 1 at the result, 0 otherwise, -1 on error. */
static int
read_word(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct chess_pos *pos,
    struct err *e)
{
	char t[TOKEN_MAX + 1];
	unsigned long line = r->line;
	const char *s;
	struct chess_move m;
	int res;

	if (read_token(r, t) < 0)
		return fail(r, line, e, "a word longer than %d bytes in the movetext", TOKEN_MAX);
	if ((res = result_of(t)) >= 0) {
		g->result = (enum chess_result)res;
		return 1;
	}
	s = strcmp(t, "0000") == 0 ? t : past_number(t);
	if (*s == '\0' || strspn(s, "!?") == strlen(s))
		return 0; /* a move number, or a glyph standing alone */
	if (read_move(pos, s, &m, e) < 0)
		return fail_move(r, line, pos, e);
	if (push_move(r, g, m, line, e) < 0)
		return -1;
	g->nulls += chess_move_is_null(m);
	chess_play(pos, m);
	return 0;
}

static int
read_nag(struct chess_pgn_reader *r, struct err *e)
{
	int digits = 0;

	step(r);
	while (peek(r) >= '0' && peek(r) <= '9' && digits <= 3) {
		step(r);
		digits++;
	}
	if (digits == 0 || digits > 3)
		return fail(r, r->line, e, "a NAG must be $ and one to three digits");
	return 0;
}

/* A ';' comment before the first move: its text onto the game's note. */
static int
keep_note(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	size_t start, n;
	char *p;

	step(r);
	while (peek(r) == ' ' || peek(r) == '\t')
		step(r);
	start = r->off;
	skip_line(r);
	n = r->off - start;
	if (n > 0 && r->p[start + n - 1] == '\r')
		n--;
	if (g->note_len + n + 1 > CHESS_PGN_NOTE_MAX)
		return fail(r, r->line, e, "the comments before the first move pass %d bytes",
		    CHESS_PGN_NOTE_MAX);
	if ((p = realloc(g->note, g->note_len + n + 2)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	memcpy(p + g->note_len, r->p + start, n);
	g->note_len += n;
	p[g->note_len++] = '\n';
	p[g->note_len] = '\0';
	g->note = p;
	return 0;
}

/* The movetext, up to and including its result. */
static int
read_movetext(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	struct chess_pos pos = g->start;
	int c, rc = 0;

	for (;;) {
		skip_space(r);
		c = peek(r);
		if (c < 0 || c == '[')
			return fail(r, r->line, e, "the movetext ends without a result");
		if (c == '{')
			rc = skip_comment(r, e);
		else if (c == ';' && g->nmoves == 0)
			rc = keep_note(r, g, e);
		else if (c == ';')
			skip_line(r);
		else if (c == '(')
			rc = skip_variation(r, e);
		else if (c == '$')
			rc = read_nag(r, e);
		else if (is_token_byte(c))
			rc = read_word(r, g, &pos, e);
		else if (c > ' ' && c < 0x7f)
			return fail(r, r->line, e, "unexpected '%c' in the movetext", c);
		else
			return fail(r, r->line, e, "unexpected byte 0x%02x in the movetext", c);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
	}
	g->end = pos;
	return 0;
}

/* After an error or for a variant game: on to the result at the top
 * level, the next game's tags, or the end.  Returns the result, or -1. */
static int
skip_movetext(struct chess_pgn_reader *r)
{
	char t[TOKEN_MAX + 1];
	int depth = 0, c, res;

	for (;;) {
		skip_space(r);
		c = peek(r);
		if (c < 0 || c == '[')
			return -1;
		if (c == '{') {
			while (peek(r) >= 0 && peek(r) != '}')
				step(r);
		} else if (c == ';') {
			skip_line(r);
		} else if (is_token_byte(c)) {
			read_token(r, t);
			if (depth == 0 && (res = result_of(t)) >= 0)
				return res;
			continue;
		} else if (c == '(' || c == ')') {
			depth += c == '(' ? 1 : depth > 0 ? -1 : 0;
		}
		if (peek(r) >= 0)
			step(r);
	}
}

/* The rest of a tag section whose tag was bad: to the end of this line,
 * then every line starting with [. */
static void
skip_tags(struct chess_pgn_reader *r)
{
	skip_line(r);
	for (;;) {
		skip_space(r);
		if (peek(r) != '[')
			return;
		skip_line(r);
	}
}

/* ---- games ---- */

void
chess_pgn_reader_init(struct chess_pgn_reader *r, const char *buf, size_t len, const char *name)
{
	r->p = buf;
	r->len = len;
	r->off = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	r->line = 1;
	r->name = name != NULL ? name : "pgn";
	r->games = 0;
}

static void
game_reset(struct chess_pgn_game *g)
{
	for (size_t i = 0; i < g->ntags; i++) {
		free(g->tags[i].name);
		free(g->tags[i].value);
	}
	g->ntags = 0;
	free(g->note);
	g->note = NULL;
	g->note_len = 0;
	g->nmoves = 0;
	g->nulls = 0;
	g->result = CHESS_RESULT_UNKNOWN;
	chess_start(&g->start);
	g->end = g->start;
}

void
chess_pgn_game_release(struct chess_pgn_game *g)
{
	if (g == NULL)
		return;
	game_reset(g);
	free(g->tags);
	free(g->moves);
	*g = (struct chess_pgn_game)CHESS_PGN_GAME_INIT;
}

const char *
chess_pgn_tag(const struct chess_pgn_game *g, const char *name)
{
	for (size_t i = 0; i < g->ntags; i++) {
		if (strcmp(g->tags[i].name, name) == 0)
			return g->tags[i].value;
	}
	return NULL;
}

const char *
chess_result_text(enum chess_result res)
{
	switch (res) {
	case CHESS_RESULT_WHITE: return "1-0";
	case CHESS_RESULT_BLACK: return "0-1";
	case CHESS_RESULT_DRAW: return "1/2-1/2";
	default: return "*";
	}
}

/* Comments and % lines between games belong to no game. */
static int
skip_between(struct chess_pgn_reader *r, struct err *e)
{
	for (;;) {
		unsigned long line;

		skip_space(r);
		if (peek(r) == ';') {
			skip_line(r);
			continue;
		}
		if (peek(r) != '{')
			return 0;
		line = r->line;
		while (peek(r) >= 0 && peek(r) != '}')
			step(r);
		if (peek(r) < 0)
			return err_set(e, ERR_INPUT, "%s:%lu: a comment opened here is not closed",
			    r->name, line);
		step(r);
	}
}

static int
check_result_tag(struct chess_pgn_reader *r, const struct chess_pgn_game *g, struct err *e)
{
	const char *tag = chess_pgn_tag(g, "Result");
	int res = tag != NULL ? result_of(tag) : -1;

	if (res >= 0 && res != (int)g->result)
		return fail(r, r->line, e, "the movetext ends with %s but the Result tag says %s",
		    chess_result_text(g->result), tag);
	return 0;
}

/* Tags, start position, movetext; CHESS_PGN_GAME, _UNSUPPORTED or -1. */
static int
read_game(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	int rc, res;

	while (peek(r) == '[') {
		if (read_tag(r, g, e) < 0) {
			skip_tags(r);
			skip_movetext(r);
			return -1;
		}
		skip_space(r);
	}
	if ((rc = setup(r, g, e)) != 0) {
		res = skip_movetext(r);
		g->result = res >= 0 ? (enum chess_result)res : CHESS_RESULT_UNKNOWN;
		return rc;
	}
	if (read_movetext(r, g, e) < 0) {
		skip_movetext(r);
		return -1;
	}
	return check_result_tag(r, g, e) < 0 ? -1 : CHESS_PGN_GAME;
}

int
chess_pgn_next(struct chess_pgn_reader *r, struct chess_pgn_game *g, struct err *e)
{
	struct err ignored = ERR_INIT;

	if (e == NULL) /* messages are built from e->msg along the way */
		e = &ignored;
	game_reset(g);
	if (skip_between(r, e) < 0) {
		r->off = r->len;
		return CHESS_PGN_ERROR;
	}
	if (peek(r) < 0)
		return CHESS_PGN_END;
	r->games++;
	g->number = r->games;
	g->line = r->line;
	return read_game(r, g, e);
}
