/* positions.c: the positions `candidates build` analyses, read from JSON
 * Lines or EPD (candbuild.h). */
#include "candbuild.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/lines.h"
#include "../json/json.h"
#include "../protocol/candidates.h"

const char *
candbuild_phase_of(const struct chess_pos *pos)
{
	static const int worth[7] = { 0, 0, 3, 3, 5, 9, 0 };
	int npm = 0;

	for (int sq = 0; sq < 64; sq++)
		npm += worth[CHESS_TYPE_OF(chess_piece_at(pos, sq))];
	if (npm <= 26)
		return "endgame";
	if (npm >= 58 && pos->fullmove <= 15)
		return "opening";
	return "middlegame";
}

/* The word of words that s spells, or NULL. */
static const char *
word_of(const char *s, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return words[i];
	return NULL;
}

static int
set_word(const char **slot, const char *field, const char *s, const char *const *words,
    struct err *e)
{
	if ((*slot = word_of(s, words, 3)) == NULL)
		return err_set(e, ERR_INPUT, "\"%s\": expected %s, %s or %s, found \"%.40s\"", field,
		    words[0], words[1], words[2], s);
	return 0;
}

static struct candbuild_pos *
add_pos(struct candbuild_positions *ps, struct err *e)
{
	if (ps->n == CANDBUILD_MAX_POSITIONS) {
		err_set(e, ERR_INPUT, "more than %d positions", CANDBUILD_MAX_POSITIONS);
		return NULL;
	}
	if (ps->n == ps->cap) {
		size_t nc = ps->cap ? 2 * ps->cap : 64;
		struct candbuild_pos *t = realloc(ps->p, nc * sizeof *t);
		if (t == NULL) {
			err_set(e, ERR_NOMEM, "out of memory");
			return NULL;
		}
		ps->p = t;
		ps->cap = nc;
	}
	memset(&ps->p[ps->n], 0, sizeof ps->p[ps->n]);
	return &ps->p[ps->n++];
}

/* The position's board is read: the FEN written canonically, the side to
 * move checked against to_move, the defaults filled in. */
static int
finish_pos(struct candbuild_pos *p, const char *to_move, struct err *e)
{
	struct chess_move ms[CHESS_MAX_MOVES];

	if (p->id == NULL || p->id[0] == '\0')
		return err_set(e, ERR_INPUT, "\"position_id\": empty");
	if (chess_moves(&p->pos, ms) == 0)
		return err_set(e, ERR_INPUT, "\"fen\": the side to move has no legal move (%s)",
		    chess_in_check(&p->pos) ? "checkmate" : "stalemate");
	if (to_move != NULL && strcmp(to_move, p->pos.side ? "black" : "white") != 0)
		return err_set(e, ERR_INPUT, "\"stratum\": \"to_move\": the FEN has %s to move",
		    p->pos.side ? "black" : "white");
	chess_fen_write(&p->pos, p->fen);
	if (p->split == NULL)
		p->split = cand_split_names[CAND_EXPLORE];
	if (p->opening == NULL && (p->opening = strdup(p->id)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (p->phase == NULL)
		p->phase = candbuild_phase_of(&p->pos);
	if (p->kind == NULL)
		p->kind = cand_kind_names[CAND_QUIET];
	return 0;
}

/* ---- JSON Lines ---- */

static int
dup_string(const cJSON *o, const char *key, int required, char **out, struct err *e)
{
	const char *s;
	int rc = json_get_string(o, key, required, &s, e);

	if (rc != 0)
		return rc;
	if ((*out = strdup(s)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
json_word(const cJSON *o, const char *key, const char **slot, const char *const *words,
    struct err *e)
{
	const char *s;
	int rc = json_get_string(o, key, 0, &s, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	return set_word(slot, key, s, words, e);
}

static int
only_keys(const cJSON *o, const char *const *keys, struct err *e)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, o) {
		int known = 0;
		for (const char *const *w = keys; *w != NULL; w++)
			known |= strcmp(k->string, *w) == 0;
		if (!known)
			return err_set(e, ERR_INPUT, "\"%.60s\": unknown field", k->string);
	}
	return 0;
}

static int
json_pos(const cJSON *o, struct candbuild_pos *p, struct err *e)
{
	static const char *const top[] = { "position_id", "fen", "split", "opening", "stratum",
		NULL };
	static const char *const strat[] = { "phase", "kind", "to_move", NULL };
	const char *fen, *to_move = NULL;
	const cJSON *st;
	int rc;

	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "expected a position object");
	if (only_keys(o, top, e) < 0 || dup_string(o, "position_id", 1, &p->id, e) < 0 ||
	    json_get_string(o, "fen", 1, &fen, e) < 0)
		return -1;
	if (chess_fen_read(&p->pos, fen, e) < 0)
		return err_prefix(e, "\"fen\"");
	if (json_word(o, "split", &p->split, cand_split_names, e) < 0 ||
	    dup_string(o, "opening", 0, &p->opening, e) < 0)
		return -1;
	if ((rc = json_get_object(o, "stratum", 0, &st, e)) < 0)
		return -1;
	if (rc == 0 && (only_keys(st, strat, e) < 0 ||
	                   json_word(st, "phase", &p->phase, cand_phase_names, e) < 0 ||
	                   json_word(st, "kind", &p->kind, cand_kind_names, e) < 0 ||
	                   json_get_string(st, "to_move", 0, &to_move, e) < 0))
		return err_prefix(e, "\"stratum\"");
	return finish_pos(p, to_move, e);
}

/* ---- EPD ---- */

/* One EPD operation at *s: the opcode into op, its operands joined by one
 * space into val (a quoted operand without its quotes), *s past its ';'.
 * 1 when one was read, 0 at the end of the line. */
static int
epd_op(const char **s, char *op, size_t nop, struct buf *val, struct err *e)
{
	const char *p = *s;
	size_t n = 0;

	buf_reset(val);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\r')
		return 0;
	if (!isalpha((unsigned char)*p))
		return err_set(e, ERR_INPUT, "EPD: expected an opcode at \"%.20s\"", p);
	while (isalnum((unsigned char)*p) || *p == '_') {
		if (n + 1 == nop)
			return err_set(e, ERR_INPUT, "EPD: opcode longer than %zu bytes", nop - 2);
		op[n++] = *p++;
	}
	op[n] = '\0';
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';')
			break;
		if (*p == '\0' || *p == '\r')
			return err_set(e, ERR_INPUT, "EPD: operation %s: no ';' at its end", op);
		if (val->len > 0 && buf_addc(val, ' ') < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (*p == '"') {
			const char *q = strchr(p + 1, '"');
			if (q == NULL)
				return err_set(e, ERR_INPUT, "EPD: operation %s: a string without its end",
				    op);
			if (buf_add(val, p + 1, (size_t)(q - p - 1)) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
			p = q + 1;
		} else {
			size_t k = strcspn(p, " \t;\r");
			if (buf_add(val, p, k) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
			p += k;
		}
	}
	*s = p + 1;
	if (val->p == NULL && buf_adds(val, "") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 1;
}

static int
epd_counter(const char *op, const char *v, long lo, long hi, long *out, struct err *e)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || *out < lo || *out > hi)
		return err_set(e, ERR_INPUT, "EPD: %s: expected a number from %ld to %ld, found \"%.20s\"",
		    op, lo, hi, v);
	return 0;
}

static int
replace(char **slot, const char *v, struct err *e)
{
	free(*slot);
	if ((*slot = strdup(v)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* One EPD operation taken into p; hmvc and fmvn into the counters. */
static int
epd_take(struct candbuild_pos *p, const char *op, const char *v, char **eco, long *hmvc,
    long *fmvn, int *seen_opening, struct err *e)
{
	if (strcmp(op, "id") == 0)
		return p->id ? err_set(e, ERR_INPUT, "EPD: id given twice") : replace(&p->id, v, e);
	if (strcmp(op, "hmvc") == 0)
		return epd_counter(op, v, 0, 65535, hmvc, e);
	if (strcmp(op, "fmvn") == 0)
		return epd_counter(op, v, 1, 999999999, fmvn, e);
	if (strcmp(op, "split") == 0)
		return set_word(&p->split, "split", v, cand_split_names, e);
	if (strcmp(op, "phase") == 0)
		return set_word(&p->phase, "phase", v, cand_phase_names, e);
	if (strcmp(op, "kind") == 0)
		return set_word(&p->kind, "kind", v, cand_kind_names, e);
	if (strcmp(op, "opening") == 0) {
		*seen_opening = 1;
		return replace(&p->opening, v, e);
	}
	if (strcmp(op, "eco") == 0)
		return replace(eco, v, e);
	return 0; /* bm, am, ce, c0 ... : not ours */
}

static int
epd_pos(const char *text, struct candbuild_pos *p, struct err *e)
{
	char fields[4][96], op[32], fen[512];
	const char *s = text;
	struct buf val = BUF_INIT;
	char *eco = NULL;
	long hmvc = 0, fmvn = 1;
	int rc, seen_opening = 0;

	for (int i = 0; i < 4; i++) {
		size_t k = strcspn(s, " \t\r");
		if (k == 0 || k >= sizeof fields[i]) {
			return err_set(e, ERR_INPUT, "EPD: expected four fields (placement, side, castling, "
			                             "en passant) before the operations");
		}
		memcpy(fields[i], s, k);
		fields[i][k] = '\0';
		s += k;
		if (i < 3 && *s != ' ')
			return err_set(e, ERR_INPUT, "EPD: expected four fields (placement, side, castling, "
			                             "en passant) before the operations");
		s += *s == ' ';
	}
	while ((rc = epd_op(&s, op, sizeof op, &val, e)) == 1)
		if (epd_take(p, op, val.p, &eco, &hmvc, &fmvn, &seen_opening, e) < 0) {
			rc = -1;
			break;
		}
	buf_release(&val);
	if (rc == 0 && p->id == NULL)
		rc = err_set(e, ERR_INPUT, "EPD: no id operation (the position_id)");
	if (rc == 0 && !seen_opening && eco != NULL) {
		p->opening = eco;
		eco = NULL;
	}
	free(eco);
	if (rc < 0)
		return -1;
	snprintf(fen, sizeof fen, "%s %s %s %s %ld %ld", fields[0], fields[1], fields[2], fields[3],
	    hmvc, fmvn);
	if (chess_fen_read(&p->pos, fen, e) < 0)
		return err_prefix(e, "EPD");
	return finish_pos(p, NULL, e);
}

/* ---- the file ---- */

static int
by_id(const void *a, const void *b)
{
	const struct candbuild_pos *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int
skip_line(const char *t, size_t n)
{
	size_t i = 0;

	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r'))
		i++;
	return i == n || t[i] == '#';
}

static int
read_lines(struct lines *l, struct candbuild_positions *ps, struct buf *epd, struct err *e)
{
	const char *text;
	size_t n;
	int rc, json = -1;

	while ((rc = lines_next(l, &text, &n, e)) == 1) {
		struct candbuild_pos *p;
		if (skip_line(text, n))
			continue;
		if (json < 0)
			json = text[strspn(text, " \t")] == '{';
		if ((p = add_pos(ps, e)) == NULL)
			return err_prefix(e, "%s:%ld", l->name, l->lineno);
		p->line = l->lineno;
		if (json) {
			cJSON *t = json_parse(text, n, l->name, l->lineno, e);
			if (t == NULL)
				return -1;
			rc = json_pos(t, p, e);
			cJSON_Delete(t);
		} else if (memchr(text, '\0', n) != NULL) {
			rc = err_set(e, ERR_INPUT, "EPD: a NUL byte");
		} else {
			buf_reset(epd);
			rc = buf_add(epd, text, n) < 0 || buf_addc(epd, '\0') < 0 ?
			    err_set(e, ERR_NOMEM, "out of memory") : epd_pos(epd->p, p, e);
		}
		if (rc < 0)
			return err_prefix(e, "%s:%ld", l->name, l->lineno);
	}
	return rc;
}

int
candbuild_positions_read(const char *path, struct candbuild_positions *ps, struct err *e)
{
	struct buf epd = BUF_INIT;
	struct lines l;
	int rc;

	candbuild_positions_release(ps);
	if (lines_open(&l, path, CANDBUILD_MAX_LINE, 0, e) < 0)
		return -1;
	rc = read_lines(&l, ps, &epd, e);
	buf_release(&epd);
	if (rc == 0 && ps->n == 0)
		rc = err_set(e, ERR_INPUT, "%s: no positions", l.name);
	if (rc == 0) {
		qsort(ps->p, ps->n, sizeof *ps->p, by_id);
		for (size_t i = 1; i < ps->n && rc == 0; i++)
			if (strcmp(ps->p[i - 1].id, ps->p[i].id) == 0)
				rc = err_set(e, ERR_INPUT, "%s:%ld: \"position_id\": \"%.60s\" given twice "
				    "(first on line %ld)", l.name, ps->p[i].line, ps->p[i].id, ps->p[i - 1].line);
	}
	lines_close(&l);
	if (rc < 0)
		candbuild_positions_release(ps);
	return rc < 0 ? -1 : 0;
}

void
candbuild_positions_release(struct candbuild_positions *ps)
{
	if (ps == NULL)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->p[i].id);
		free(ps->p[i].opening);
	}
	free(ps->p);
	memset(ps, 0, sizeof *ps);
}
