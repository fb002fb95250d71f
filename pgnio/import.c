/* import.c: PGN games into ledger records (`cohort import pgn`).
 *
 * Each game is read and its moves checked by the chess core; then the
 * map's sources give the record's fields, the game itself gives its colour,
 * status, result, plies, moves and (where the rules decide it) its
 * termination, and the tags no source read are kept under "pgn_tags".
 * cohort-import(1) states the rules. */
#include "internal.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../chess/pgn.h"
#include "../common/io.h"
#include "../json/json.h"

/* Games so far of one (family, condition), for {"every": N} blocks. */
struct tally {
	char *key; /* family, NUL, condition */
	size_t len;
	long games;
};

/* A game id, where it came from, for the check that ids are unique. */
struct seen {
	char *id;
	const char *file; /* borrowed from the options */
	unsigned long line, game;
	size_t order;     /* the game's place in the input, to sort stably */
};

struct imp {
	const struct pgnio_import_opts *o;
	const struct pgnio_map *map;
	const char *file;               /* the file as named, for messages */
	char base[256];                 /* its name without folders and ".pgn": {file} */
	const struct chess_pgn_game *g; /* the game being read */
	char fen[CHESS_FEN_MAX];        /* its start, canonical: the FEN tag's value */
	int black;                      /* the model plays Black */
	unsigned char *used;            /* per tag of g: a source read it */
	size_t cap_used;
	char note[200];                 /* why the last field had no value */
	char why[F_N][200];             /* why each field of this game had none */
	char extra_from[300];           /* where its extra fields came from */
	const char *family, *condition; /* this game's, for blocks by count */
	struct tally *tally;
	size_t ntally, cap_tally;
	struct seen *seen;
	size_t nseen, cap_seen;
	long refused;
};

/* Fail with the game's place in front: "FILE:LINE: game N: ...". */
static int
game_fail(const struct imp *x, struct err *e, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(e, ERR_INPUT, "%s:%lu: game %lu: %s", x->file, x->g->line, x->g->number,
	    msg);
}

static void
note(struct imp *x, const char *fmt, ...)
{
	size_t n = strlen(x->note);
	va_list ap;

	if (n + 4 >= sizeof x->note)
		return;
	if (n > 0) {
		memcpy(x->note + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(x->note + n, sizeof x->note - n, fmt, ap);
	va_end(ap);
}

/* name with {model} and {anchor} as White or Black. */
static void
expand(const struct imp *x, const char *name, char *out, size_t n)
{
	size_t k = 0;

	while (*name != '\0' && k + 6 < n) {
		const char *w = NULL;
		if (strncmp(name, "{model}", 7) == 0)
			w = x->black ? "Black" : "White", name += 7;
		else if (strncmp(name, "{anchor}", 8) == 0)
			w = x->black ? "White" : "Black", name += 8;
		if (w != NULL) {
			memcpy(out + k, w, 5);
			k += 5;
		} else
			out[k++] = *name++;
	}
	out[k] = '\0';
}

/* A tag's value for a source, marking it read; NULL when it is absent or
 * unknown.  The FEN tag's value is the canonical FEN of the start. */
static const char *
tag_get(struct imp *x, const char *name, enum pgnio_type type)
{
	for (size_t i = 0; i < x->g->ntags; i++) {
		if (strcmp(x->g->tags[i].name, name) != 0)
			continue;
		if (pgnio_absent(x->g->tags[i].value, type))
			return NULL;
		x->used[i] = 1;
		return strcmp(name, "FEN") == 0 ? x->fen : x->g->tags[i].value;
	}
	return NULL;
}

/* A tag's value without marking it read (a pattern takes a part of it,
 * and the whole is kept), or NULL when it is absent or unknown. */
static const char *
tag_peek(const struct imp *x, const char *name, enum pgnio_type type)
{
	const char *v = chess_pgn_tag(x->g, name);

	return v == NULL || pgnio_absent(v, type) ? NULL : v;
}

/* A whole number's text. */
static int
whole(const char *v, double lo, double *x)
{
	if (pgnio_number(v, x) < 0)
		return -1;
	return *x >= lo && *x <= 9007199254740991.0 && *x == floor(*x) ? 0 : -1;
}

/* "H:MM:SS[.frac]" (GameDuration) in seconds: H at most 9 digits, MM
 * and SS two each, below 60. */
static int
duration(const char *v, double *x)
{
	const char *p = v;
	double h = 0, m, sec;

	while (isdigit((unsigned char)*p) && p - v < 9)
		h = 10 * h + (*p++ - '0');
	if (p == v || p[0] != ':' || !isdigit((unsigned char)p[1]) ||
	    !isdigit((unsigned char)p[2]) || p[3] != ':' || !isdigit((unsigned char)p[4]) ||
	    !isdigit((unsigned char)p[5]))
		return -1;
	m = (p[1] - '0') * 10 + (p[2] - '0');
	sec = (p[4] - '0') * 10 + (p[5] - '0');
	p += 6;
	if (*p == '.') {
		double unit = 0.1;
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p) && unit > 1e-10; p++, unit /= 10)
			sec += (*p - '0') * unit;
	}
	if (*p != '\0' || m > 59 || sec >= 60)
		return -1;
	*x = json_round(h * 3600 + m * 60 + sec, 1e-3);
	return 0;
}

/* A time per move ("N" or "N/move", seconds): 0 and *out (NULL out of
 * memory); 1, noted, when it is not one. */
static int
tag_permove(struct imp *x, const char *tag, const char *v, cJSON **out)
{
	char text[96];
	double d;
	const char *slash = strchr(v, '/');

	if (slash != NULL && strcmp(slash, "/move") == 0 &&
	    (size_t)(slash - v) < sizeof text) {
		memcpy(text, v, (size_t)(slash - v));
		text[slash - v] = '\0';
		v = text;
	}
	if (pgnio_number(v, &d) < 0 || !(d > 0)) {
		note(x, "%s \"%.30s\" is not a time per move", tag, v);
		return 1;
	}
	*out = cJSON_CreateNumber(d);
	return 0;
}

/* A tag holding JSON: an object (T_OBJECT) or an array of strings. */
static int
tag_json(struct imp *x, const char *tag, const char *v, enum pgnio_type t, cJSON **out,
    struct err *e)
{
	struct err je = ERR_INIT;
	const cJSON *it;
	cJSON *j = json_parse(v, strlen(v), tag, 1, &je);
	int ok = j != NULL && (t == T_OBJECT ? cJSON_IsObject(j) : cJSON_IsArray(j));

	if (ok && t == T_ARRAY)
		cJSON_ArrayForEach (it, j)
			ok = ok && cJSON_IsString(it);
	if (!ok) {
		cJSON_Delete(j);
		return game_fail(x, e, "tag %s: expected a JSON %s%s%s", tag,
		    t == T_OBJECT ? "object" : "array of strings", je.msg[0] ? ": " : "",
		    je.msg);
	}
	*out = j;
	return 0;
}

/* A tag's text as a value of type t: 0 and *out; 1 when the text is a
 * value this field cannot take but that is no error (a time control that
 * is not a time per move); -1 with e set. */
static int
convert(struct imp *x, const char *tag, const char *v, enum pgnio_type t, cJSON **out,
    struct err *e)
{
	char text[96];
	double d;

	*out = NULL;
	switch (t) {
	case T_STRING:
		*out = cJSON_CreateString(v);
		break;
	case T_COLOR:
		if (strcmp(v, "white") == 0 || strcmp(v, "White") == 0)
			*out = cJSON_CreateString("white");
		else if (strcmp(v, "black") == 0 || strcmp(v, "Black") == 0)
			*out = cJSON_CreateString("black");
		else
			return game_fail(x, e, "tag %s: expected white or black, found \"%.40s\"",
			    tag, v);
		break;
	case T_TIME:
		if (pgnio_time_text(v, text, sizeof text, e) < 0)
			return game_fail(x, e, "tag %s: %s", tag, e->msg);
		*out = cJSON_CreateString(text);
		break;
	case T_NUMBER:
		if (pgnio_number(v, &d) < 0)
			return game_fail(x, e, "tag %s: expected a number, found \"%.40s\"", tag,
			    v);
		*out = cJSON_CreateNumber(d);
		break;
	case T_BLOCK:
	case T_COUNT:
		if (whole(v, t == T_BLOCK ? 1 : 0, &d) < 0)
			return game_fail(x, e, "tag %s: expected a whole number%s, found \"%.40s\"",
			    tag, t == T_BLOCK ? " from 1" : "", v);
		*out = cJSON_CreateNumber(d);
		break;
	case T_PERMOVE:
		if (tag_permove(x, tag, v, out) > 0)
			return 1;
		break;
	case T_SECONDS:
		if (pgnio_number(v, &d) < 0 && duration(v, &d) < 0)
			return game_fail(x, e,
			    "tag %s: expected seconds or H:MM:SS, found \"%.40s\"", tag, v);
		if (d < 0)
			return game_fail(x, e, "tag %s: expected seconds, found \"%.40s\"", tag, v);
		*out = cJSON_CreateNumber(d);
		break;
	case T_OBJECT:
	case T_ARRAY:
		return tag_json(x, tag, v, t, out, e);
	}
	if (*out == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* {file}, {game} and {tag:NAME}: 0 and *out, 1 when a tag is absent. */
static int
format(struct imp *x, const char *f, cJSON **out, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	*out = NULL;
	while (*f != '\0' && rc == 0) {
		const char *end;
		if (*f != '{') {
			if (buf_addc(&b, *f++) < 0)
				rc = -1;
			continue;
		}
		end = strchr(f, '}');
		if (strncmp(f, "{file}", 6) == 0)
			rc = buf_adds(&b, x->base);
		else if (strncmp(f, "{game}", 6) == 0)
			rc = buf_printf(&b, "%lu", x->g->number);
		else {
			char name[300];
			const char *v;
			snprintf(name, sizeof name, "%.*s", (int)(end - f - 5), f + 5);
			if ((v = tag_get(x, name, T_STRING)) == NULL) {
				note(x, "tag %s is absent", name);
				rc = 1;
			} else
				rc = buf_adds(&b, v);
		}
		f = end + 1;
	}
	if (rc == 0 && (*out = cJSON_CreateString(b.p ? b.p : "")) == NULL)
		rc = -1;
	buf_release(&b);
	if (rc < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return rc;
}

/* The player a glob names: 0 and *out ("white" or "black"), 1 when
 * neither does. */
static int
by_name(struct imp *x, const char *glob, cJSON **out, struct err *e)
{
	/* (the names are read, not taken: a field that takes one reads it) */
	const char *w = tag_peek(x, "White", T_STRING), *b = tag_peek(x, "Black", T_STRING);
	int mw = w != NULL && fnmatch(glob, w, 0) == 0, mb = b != NULL && fnmatch(glob, b, 0) == 0;

	*out = NULL;
	if (mw && mb)
		return game_fail(x, e,
		    "both players match \"%.60s\" (\"%.60s\" and \"%.60s\"): which "
		    "is the model?",
		    glob, w, b);
	if (!mw && !mb) {
		note(x, "neither player matches \"%.60s\"", glob);
		return 1;
	}
	if ((*out = cJSON_CreateString(mw ? "white" : "black")) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The next game's block of its (family, condition), N games a block. */
static int
by_count(struct imp *x, long every, cJSON **out, struct err *e)
{
	size_t nf = strlen(x->family), nc = strlen(x->condition), len = nf + 1 + nc;
	struct tally *t = NULL;

	for (size_t i = 0; i < x->ntally && t == NULL; i++)
		if (x->tally[i].len == len && memcmp(x->tally[i].key, x->family, nf + 1) == 0 &&
		    memcmp(x->tally[i].key + nf + 1, x->condition, nc) == 0)
			t = &x->tally[i];
	if (t == NULL) {
		if (x->ntally == x->cap_tally) {
			size_t cap = x->cap_tally ? 2 * x->cap_tally : 16;
			struct tally *p = realloc(x->tally, cap * sizeof *p);
			if (p == NULL)
				return err_set(e, ERR_NOMEM, "out of memory");
			x->tally = p;
			x->cap_tally = cap;
		}
		t = &x->tally[x->ntally];
		if ((t->key = malloc(len)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		memcpy(t->key, x->family, nf + 1);
		memcpy(t->key + nf + 1, x->condition, nc);
		t->len = len;
		t->games = 0;
		x->ntally++;
	}
	if ((*out = cJSON_CreateNumber((double)(t->games++ / every + 1))) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The part of a tag's value the source's pattern matches, as a value of
 * type t: 0 and *out, 1 (noted) when the tag is absent or does not
 * match. */
static int
tag_match(struct imp *x, const char *name, const struct pgnio_src *s, enum pgnio_type t,
    cJSON **out, struct err *e)
{
	const char *v = tag_peek(x, name, T_STRING);
	regmatch_t m[10];
	char part[CHESS_PGN_NAME_MAX + 1];
	char *big = NULL;
	size_t n;
	int rc;

	if (v == NULL) {
		note(x, "tag %s is absent", name);
		return 1;
	}
	if (s->group >= 10 || regexec(s->re, v, 10, m, 0) != 0 || m[s->group].rm_so < 0) {
		note(x, "tag %s \"%.40s\" does not match its pattern", name, v);
		return 1;
	}
	n = (size_t)(m[s->group].rm_eo - m[s->group].rm_so);
	if (n >= sizeof part && (big = malloc(n + 1)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	memcpy(big ? big : part, v + m[s->group].rm_so, n);
	(big ? big : part)[n] = '\0';
	if (pgnio_absent(big ? big : part, t)) {
		note(x, "tag %s: the part its pattern matches is empty", name);
		rc = 1;
	} else
		rc = convert(x, name, big ? big : part, t, out, e);
	free(big);
	return rc;
}

/* The JSON object after word on a line of the game's note: 0 and *out,
 * 1 (noted) when no line has the word. */
static int
note_json(struct imp *x, const char *word, cJSON **out, struct err *e)
{
	size_t w = strlen(word);
	struct err je = ERR_INIT;

	for (const char *p = x->g->note; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > w && strncmp(p, word, w) == 0 && p[w] == ' ') {
			cJSON *j = json_parse(p + w + 1, len - w - 1, word, 1, &je);
			if (j == NULL || !cJSON_IsObject(j)) {
				cJSON_Delete(j);
				return game_fail(x, e,
				    "the comment \"; %s\": expected a JSON object%s%s", word,
				    je.msg[0] ? ": " : "", je.msg);
			}
			*out = j;
			return 0;
		}
		p += len + (nl != NULL);
	}
	note(x, "no comment \"; %s\"", word);
	return 1;
}

/* Field f's value from the first of its sources that gives one: 0 and
 * *out (the caller's), 1 when none does (x->note says why), -1 on error. */
static int
field_get(struct imp *x, int f, cJSON **out, struct err *e)
{
	enum pgnio_type t = pgnio_fields[f].type;
	char name[320];
	int rc;

	*out = NULL;
	x->note[0] = '\0';
	for (size_t i = 0; i < x->map->nsrc[f]; i++) {
		const struct pgnio_src *s = &x->map->src[f][i];
		const char *v;

		switch (s->kind) {
		case SRC_TAG:
			expand(x, s->text, name, sizeof name);
			if (s->re != NULL) {
				rc = tag_match(x, name, s, t, out, e);
				break;
			}
			if ((v = tag_get(x, name, t)) == NULL) {
				note(x, "tag %s is absent", name);
				continue;
			}
			rc = convert(x, name, v, t, out, e);
			if (rc == 0 && f == F_EXTRA)
				snprintf(x->extra_from, sizeof x->extra_from, "tag %.280s", name);
			break;
		case SRC_NOTE:
			rc = note_json(x, s->text, out, e);
			if (rc == 0)
				snprintf(x->extra_from, sizeof x->extra_from,
				    "the comment \"; %s\"", s->text);
			break;
		case SRC_VALUE:
			if (t == T_COLOR) {
				const char *c = s->value->valuestring;
				*out = cJSON_CreateString(
				    c[0] == 'w' || c[0] == 'W' ? "white" : "black");
			} else
				*out = cJSON_Duplicate(s->value, 1);
			rc = *out == NULL ? err_set(e, ERR_NOMEM, "out of memory") : 0;
			break;
		case SRC_FORMAT:
			rc = format(x, s->text, out, e);
			break;
		case SRC_NAME:
			rc = by_name(x, s->text, out, e);
			break;
		case SRC_EVERY:
			if (x->family == NULL || x->condition == NULL) {
				note(x, "blocks by count need the family and condition");
				rc = 1;
			} else
				rc = by_count(x, s->every, out, e);
			break;
		default:
			rc = 1;
		}
		if (rc != 1)
			return rc;
	}
	if (x->map->nsrc[f] == 0)
		note(x, "the map gives it no source");
	return 1;
}

/* Equal positions for repetition: board, side, castling, en passant. */
static int
same_place(const struct chess_pos *a, const struct chess_pos *b)
{
	return memcmp(a->sq, b->sq, sizeof a->sq) == 0 && a->side == b->side &&
	    a->castle == b->castle && a->ep == b->ep;
}

/* What the final position decides: the termination it shows (or NULL),
 * and a refusal when the result contradicts it. */
static int
rules(struct imp *x, const char **term, struct err *e)
{
	const struct chess_pgn_game *g = x->g;
	enum chess_state st = chess_state(&g->end);
	enum chess_result mated =
	    g->end.side == CHESS_WHITE ? CHESS_RESULT_BLACK : CHESS_RESULT_WHITE;
	struct chess_pos p = g->start;
	int seen = 1;

	*term = NULL;
	if (g->nmoves == 0)
		return 0;
	seen += same_place(&p, &g->end);
	if (st == CHESS_CHECKMATE) {
		if (g->result != mated)
			return game_fail(x, e, "the game ends in checkmate, but its result is %s",
			    chess_result_text(g->result));
		*term = "checkmate";
		return 0;
	}
	if (st == CHESS_STALEMATE) {
		if (g->result != CHESS_RESULT_DRAW)
			return game_fail(x, e, "the game ends in stalemate, but its result is %s",
			    chess_result_text(g->result));
		*term = "stalemate";
		return 0;
	}
	if (g->result != CHESS_RESULT_DRAW)
		return 0;
	if (st == CHESS_INSUFFICIENT) {
		*term = "insufficient_material";
		return 0;
	}
	for (size_t i = 0; i + 1 < g->nmoves; i++) {
		chess_play(&p, g->moves[i]);
		seen += same_place(&p, &g->end);
	}
	if (seen >= 3)
		*term = "threefold_repetition";
	else if (g->end.halfmove >= 100)
		*term = "fifty_move_rule";
	return 0;
}

/* The record's value at path ("anchor.elo"), or NULL. */
static const cJSON *
path_get(const cJSON *rec, const char *path)
{
	const char *dot = strchr(path, '.');
	char head[32];

	if (dot == NULL)
		return cJSON_GetObjectItemCaseSensitive(rec, path);
	snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
	return cJSON_GetObjectItemCaseSensitive(json_get(rec, head), dot + 1);
}

/* Put v at the record path key ("anchor.elo"), taking it over; a path
 * set already is refused. */
static int
put(struct imp *x, cJSON *rec, const char *key, cJSON *v, struct err *e)
{
	const char *dot = strchr(key, '.'), *path = key;
	cJSON *obj = rec;

	if (path_get(rec, key) != NULL) {
		cJSON_Delete(v);
		return game_fail(x, e, "\"%s\" is set twice", path);
	}
	if (dot != NULL) {
		char head[32];
		snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
		obj = cJSON_GetObjectItemCaseSensitive(rec, head);
		if (obj == NULL && (obj = cJSON_AddObjectToObject(rec, head)) == NULL) {
			cJSON_Delete(v);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		key = dot + 1;
	}
	if (!cJSON_AddItemToObject(obj, key, v)) {
		cJSON_Delete(v);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* The extra fields, merged: top-level members, and the members of an
 * object member whose key is an object the record holds (anchor, model).
 * A field set twice is refused. */
static int
merge_extra(struct imp *x, cJSON *rec, cJSON *extra, struct err *e)
{
	cJSON *v;

	while ((v = extra->child) != NULL) {
		cJSON *have = cJSON_GetObjectItemCaseSensitive(rec, v->string);
		cJSON_DetachItemViaPointer(extra, v);
		if (have != NULL && cJSON_IsObject(have) && cJSON_IsObject(v)) {
			cJSON *w;
			while ((w = v->child) != NULL) {
				cJSON_DetachItemViaPointer(v, w);
				if (cJSON_GetObjectItemCaseSensitive(have, w->string) != NULL) {
					int rc = game_fail(x, e,
					    "\"extra\": \"%.40s\": \"%.40s\" is set "
					    "twice",
					    v->string, w->string);
					cJSON_Delete(w);
					cJSON_Delete(v);
					return rc;
				}
				cJSON_AddItemToObject(have, w->string, w);
			}
			cJSON_Delete(v);
		} else if (have != NULL) {
			int rc = game_fail(x, e, "\"extra\": \"%.40s\" is set twice", v->string);
			cJSON_Delete(v);
			return rc;
		} else
			cJSON_AddItemToObject(rec, v->string, v);
	}
	return 0;
}

/* The tags no source read, and that carry something, as "pgn_tags". */
static int
keep_tags(struct imp *x, cJSON *rec, int fen_used, struct err *e)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "pgn_tags"); /* extra's, if any */

	if (t != NULL && !cJSON_IsObject(t))
		return game_fail(x, e, "\"pgn_tags\": expected an object");
	for (size_t i = 0; i < x->g->ntags; i++) {
		const char *n = x->g->tags[i].name, *v = x->g->tags[i].value;
		if (x->used[i] || pgnio_absent(v, T_STRING) || strcmp(v, "????.??.??") == 0 ||
		    strcmp(n, "Result") == 0 || strcmp(n, "PlyCount") == 0 ||
		    strcmp(n, "SetUp") == 0 || (strcmp(n, "FEN") == 0 && fen_used))
			continue;
		if (t == NULL && (t = cJSON_AddObjectToObject(rec, "pgn_tags")) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (cJSON_GetObjectItemCaseSensitive(t, n) != NULL)
			return game_fail(x, e, "\"pgn_tags\": \"%.40s\" is set twice", n);
		if (!json_add_string(t, n, strcmp(n, "FEN") == 0 ? x->fen : v))
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* The game's own fields: colour, status, result, plies, moves. */
static int
game_fields(struct imp *x, cJSON *rec, struct err *e)
{
	const struct chess_pgn_game *g = x->g;
	static const char *const view[2][4] = {
		{ NULL, "win", "loss", "draw" }, /* the model plays White */
		{ NULL, "loss", "win", "draw" }, /* Black */
	};
	static const char *const own[] = { "color", "status", "result", "plies", "moves" };
	const char *pc = chess_pgn_tag(g, "PlyCount");
	double plies = (double)g->nmoves;

	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (json_get(rec, own[i]) != NULL)
			return game_fail(x, e, "\"%s\" is set twice: the game gives it", own[i]);

	if (pc != NULL && !pgnio_absent(pc, T_COUNT)) {
		double n;
		if (whole(pc, 0, &n) < 0)
			return game_fail(x, e,
			    "tag PlyCount: expected a whole number, found \"%.40s\"", pc);
		if (g->nmoves > 0 && n != plies)
			return game_fail(x, e,
			    "tag PlyCount is %.0f, but the movetext has %zu moves", n, g->nmoves);
		plies = n;
	}
	if (!json_add_string(rec, "color", x->black ? "black" : "white") ||
	    !json_add_string(rec, "status",
	        g->result == CHESS_RESULT_UNKNOWN ? "live" : "terminal") ||
	    (g->result != CHESS_RESULT_UNKNOWN &&
	        !json_add_string(rec, "result", view[x->black][g->result])) ||
	    !json_add_number(rec, "plies", plies))
		return err_set(e, ERR_NOMEM, "out of memory");
	if (g->nmoves > 0) {
		cJSON *mv = cJSON_AddArrayToObject(rec, "moves");
		char uci[CHESS_UCI_MAX];
		if (mv == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < g->nmoves; i++) {
			chess_uci_write(g->moves[i], uci);
			if (!cJSON_AddItemToArray(mv, cJSON_CreateString(uci)))
				return err_set(e, ERR_NOMEM, "out of memory");
		}
	}
	return 0;
}

/* The fields a record must have to freeze (the ledger contract); tokens
 * is one, whichever fields give it. */
static int
required(int f, int terminal)
{
	return f != F_LIMITER && f != F_SHA && f != F_TERMINATION && f != F_EXTRA &&
	    f != F_TIME_S && f != F_NODES && f != F_TOKENS_INPUT && f != F_TOKENS_OUTPUT &&
	    f != F_TOKENS_REASONING && f != F_TOKENS_CACHED && (f != F_ENDED || terminal);
}

/* A tag that gives field f, when extra gives it too: the name, or NULL. */
static const char *
tag_also(struct imp *x, int f, char *name, size_t n)
{
	for (size_t i = 0; i < x->map->nsrc[f]; i++) {
		const struct pgnio_src *s = &x->map->src[f][i];
		if (s->kind != SRC_TAG)
			continue;
		expand(x, s->text, name, n);
		if (tag_peek(x, name, pgnio_fields[f].type) != NULL)
			return name;
	}
	return NULL;
}

/* Every mapped field of the record, F_MODEL done: *extra first, then each
 * field it does not give (a tag that gives one it gives is refused);
 * x->why says why each that got no value got none. */
static int
map_fields(struct imp *x, cJSON *rec, cJSON **extra, struct err *e)
{
	char name[320];
	int rc;

	snprintf(x->extra_from, sizeof x->extra_from, "the map's \"extra\"");
	if ((rc = field_get(x, F_EXTRA, extra, e)) < 0)
		return -1;
	for (int f = F_GAME_ID; f < F_N; f++) {
		cJSON *v;
		x->why[f][0] = '\0';
		if (f == F_EXTRA)
			continue;
		if (*extra != NULL && path_get(*extra, pgnio_fields[f].key) != NULL) {
			if (tag_also(x, f, name, sizeof name) != NULL)
				return game_fail(x, e, "\"%s\" is set twice: by tag %s and by %s",
				    pgnio_fields[f].key, name, x->extra_from);
			continue;
		}
		if ((rc = field_get(x, f, &v, e)) < 0)
			return -1;
		if (rc == 1) {
			snprintf(x->why[f], sizeof x->why[f], "%s", x->note);
			continue;
		}
		if (f == F_FAMILY || f == F_CONDITION) {
			if (!cJSON_IsString(v)) {
				cJSON_Delete(v);
				return game_fail(x, e, "\"%s\": expected a string",
				    pgnio_fields[f].key);
			}
			*(f == F_FAMILY ? &x->family : &x->condition) = v->valuestring;
		}
		if (put(x, rec, pgnio_fields[f].key, v, e) < 0)
			return -1;
	}
	return 0;
}

/* The required fields the record, extra merged, still lacks, each with
 * why its sources gave nothing. */
static int
missing_fields(const struct imp *x, const cJSON *rec, struct buf *missing, struct err *e)
{
	int terminal = x->g->result != CHESS_RESULT_UNKNOWN;

	for (int f = F_GAME_ID; f < F_N; f++)
		if (required(f, terminal) && path_get(rec, pgnio_fields[f].key) == NULL &&
		    buf_printf(missing, "%s\"%s\" (%s)", missing->len ? ", " : "",
		        pgnio_fields[f].key, x->why[f]) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	if (path_get(rec, "anchor.time_s") == NULL && path_get(rec, "anchor.nodes") == NULL &&
	    buf_printf(missing, "%s\"anchor.time_s\" or \"anchor.nodes\" (%s)",
	        missing->len ? ", " : "", x->why[F_TIME_S]) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The Termination tag's word as the ledger writes it: lowercase, spaces
 * as underscores. */
static void
ledger_word(const char *t, char *word, size_t n)
{
	size_t k = 0;

	for (; t[k] != '\0' && k + 1 < n; k++)
		word[k] = t[k] == ' ' ? '_' : (char)tolower((unsigned char)t[k]);
	word[k] = '\0';
}

/* White and Black, when they name the rated units as `export pgn
 * --players condition` does ("luna/top5" and "anchor-1320") and the record
 * has those fields from other tags, say nothing more: they are read. */
static void
unit_names_read(struct imp *x, const cJSON *rec)
{
	const char *m = tag_peek(x, x->black ? "Black" : "White", T_STRING),
	           *a = tag_peek(x, x->black ? "White" : "Black", T_STRING);
	const cJSON *fam = json_get(rec, "family"), *cond = json_get(rec, "condition"),
	            *elo = path_get(rec, "anchor.elo");
	char unit[600], anchor[64], v[32];

	if (m == NULL || a == NULL || !cJSON_IsString(cond) || !cJSON_IsNumber(elo))
		return;
	if (cJSON_IsString(fam) && fam->valuestring[0] != '\0')
		snprintf(unit, sizeof unit, "%s/%s", fam->valuestring, cond->valuestring);
	else
		snprintf(unit, sizeof unit, "%s", cond->valuestring);
	canon_number(elo->valuedouble, v);
	snprintf(anchor, sizeof anchor, "anchor-%s", v);
	if (strcmp(m, unit) == 0 && strcmp(a, anchor) == 0) {
		tag_get(x, "White", T_STRING);
		tag_get(x, "Black", T_STRING);
	}
}

/* The termination: the map's, else the rules', else the Termination tag
 * in the ledger's spelling, else "unknown" for a finished game.  The tag
 * is kept in "pgn_tags" unless it says no more than the termination
 * (its word, or the PGN word for it). */
static int
termination(struct imp *x, cJSON *rec, const char *ruled, struct err *e)
{
	const char *tag = NULL, *t, *pgn;
	char word[128] = "";
	const cJSON *have = json_get(rec, "termination");

	for (size_t i = 0; i < x->g->ntags && tag == NULL; i++)
		if (strcmp(x->g->tags[i].name, "Termination") == 0 &&
		    !pgnio_absent(x->g->tags[i].value, T_STRING)) {
			tag = x->g->tags[i].value;
			ledger_word(tag, word, sizeof word);
		}
	if (have == NULL && x->g->result != CHESS_RESULT_UNKNOWN) {
		t = ruled ? ruled : tag ? word : "unknown";
		if ((have = json_add_string(rec, "termination", t)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (tag != NULL && cJSON_IsString(have) &&
	    (strcmp(have->valuestring, word) == 0 ||
	        ((pgn = pgnio_termination_pgn(have->valuestring)) != NULL && strcmp(pgn, tag) == 0)))
		tag_get(x, "Termination", T_STRING);
	return 0;
}

/* The game's record, or -1 with e saying why it is refused. */
static int
game_record(struct imp *x, cJSON **out, struct err *e)
{
	const struct chess_pgn_game *g = x->g;
	struct buf missing = BUF_INIT;
	cJSON *rec = NULL, *v = NULL, *extra = NULL;
	const cJSON *op;
	const char *ruled;
	int rc = -1, fen_used;

	*out = NULL;
	x->family = x->condition = NULL;
	if (g->ntags > x->cap_used) {
		unsigned char *p = realloc(x->used, g->ntags);
		if (p == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		x->used = p;
		x->cap_used = g->ntags;
	}
	if (g->ntags)
		memset(x->used, 0, g->ntags);
	chess_fen_write(&g->start, x->fen);
	if (g->nulls > 0)
		return game_fail(x, e, "%zu null move%s: not a game of chess", g->nulls,
		    g->nulls > 1 ? "s" : "");
	if ((rc = field_get(x, F_MODEL, &v, e)) != 0) {
		if (rc == 1)
			game_fail(x, e,
			    "which player is the model? (%s): give \"model\" in the map: "
			    "\"White\", \"Black\" or {\"name\": PATTERN}",
			    x->note);
		return -1;
	}
	x->black = strcmp(v->valuestring, "black") == 0;
	cJSON_Delete(v);
	rc = -1;
	if (rules(x, &ruled, e) < 0)
		return -1;
	if ((rec = cJSON_CreateObject()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (map_fields(x, rec, &extra, e) < 0 || (extra && merge_extra(x, rec, extra, e) < 0) ||
	    missing_fields(x, rec, &missing, e) < 0)
		goto done;
	if (missing.len > 0) {
		game_fail(x, e, "no value for %s", missing.p);
		goto done;
	}
	/* the FEN is read when it is the opening, whichever source said so */
	op = json_get(rec, "opening");
	fen_used = cJSON_IsString(op) && strcmp(op->valuestring, x->fen) == 0;
	for (size_t i = 0; i < g->ntags; i++)
		fen_used |= x->used[i] && strcmp(g->tags[i].name, "FEN") == 0;
	unit_names_read(x, rec);
	if (termination(x, rec, ruled, e) < 0 || game_fields(x, rec, e) < 0 ||
	    keep_tags(x, rec, fen_used, e) < 0)
		goto done;
	*out = rec;
	rec = NULL;
	rc = 0;
done:
	cJSON_Delete(extra);
	cJSON_Delete(rec);
	buf_release(&missing);
	return rc;
}

static void
refuse(struct imp *x, const struct err *e)
{
	x->refused++;
	if (x->o->refused != NULL)
		x->o->refused(x->o->ctx, e->msg);
}

static int
remember(struct imp *x, const char *id, struct err *e)
{
	if (x->nseen == x->cap_seen) {
		size_t cap = x->cap_seen ? 2 * x->cap_seen : 256;
		struct seen *p = realloc(x->seen, cap * sizeof *p);
		if (p == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		x->seen = p;
		x->cap_seen = cap;
	}
	if ((x->seen[x->nseen].id = strdup(id)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	x->seen[x->nseen].file = x->file;
	x->seen[x->nseen].line = x->g->line;
	x->seen[x->nseen].game = x->g->number;
	x->seen[x->nseen].order = x->nseen;
	x->nseen++;
	return 0;
}

static int
seen_cmp(const void *a, const void *b)
{
	const struct seen *p = a, *q = b;
	int c = strcmp(p->id, q->id);

	if (c != 0)
		return c;
	/* qsort moves the elements, so their addresses cannot keep the order */
	return p->order < q->order ? -1 : p->order > q->order;
}

/* Refuse every game whose id an earlier game has. */
static void
duplicates(struct imp *x)
{
	if (x->nseen < 2)
		return; /* and qsort may not be given a NULL array */
	qsort(x->seen, x->nseen, sizeof *x->seen, seen_cmp);
	for (size_t i = 1; i < x->nseen; i++) {
		struct err e = ERR_INIT;
		size_t k = i;
		if (strcmp(x->seen[i].id, x->seen[i - 1].id) != 0)
			continue;
		while (k > 0 && strcmp(x->seen[k - 1].id, x->seen[i].id) == 0)
			k--;
		err_set(&e, ERR_INPUT,
		    "%s:%lu: game %lu: \"game_id\": \"%.80s\" is also the id of "
		    "%s:%lu: game %lu",
		    x->seen[i].file, x->seen[i].line, x->seen[i].game, x->seen[i].id,
		    x->seen[k].file, x->seen[k].line, x->seen[k].game);
		refuse(x, &e);
	}
}

/* The file's name without its folders and a ".pgn" ending. */
static void
base_name(const char *path, char *out, size_t n)
{
	const char *s = strrchr(path, '/');
	size_t len;

	s = s ? s + 1 : path;
	len = strlen(s);
	if (len > 4 && strcmp(s + len - 4, ".pgn") == 0)
		len -= 4;
	snprintf(out, n, "%.*s", (int)len, s);
}

static int
import_file(struct imp *x, const char *path, struct buf *out, long *records, struct err *e)
{
	struct buf in = BUF_INIT, line = BUF_INIT;
	struct chess_pgn_reader r;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	int rc;

	if (io_read_all(path, &in, IO_MAX_DOCUMENT, e) < 0)
		return -1;
	x->file = io_name(path);
	base_name(strcmp(path, "-") == 0 ? "stdin" : path, x->base, sizeof x->base);
	x->g = &g;
	chess_pgn_reader_init(&r, in.p ? in.p : "", in.len, x->file);
	for (;;) {
		struct err ge = ERR_INIT;
		cJSON *rec = NULL;
		if ((rc = chess_pgn_next(&r, &g, &ge)) == CHESS_PGN_END)
			break;
		if (rc != CHESS_PGN_GAME) {
			refuse(x, &ge);
			continue;
		}
		if (game_record(x, &rec, &ge) < 0) {
			if (ge.code == ERR_NOMEM) {
				*e = ge;
				break;
			}
			refuse(x, &ge);
			continue;
		}
		buf_reset(&line);
		rc = canon_write(rec, &line, &ge) < 0 || buf_addc(&line, '\n') < 0 ||
		    buf_add(out, line.p, line.len) < 0 ||
		    remember(x, json_get(rec, "game_id")->valuestring, &ge) < 0;
		cJSON_Delete(rec);
		if (rc) {
			if (ge.code == ERR_NOMEM || ge.code == ERR_OK) {
				err_set(e, ERR_NOMEM, "out of memory");
				break;
			}
			refuse(x, &ge);
			continue;
		}
		(*records)++;
	}
	chess_pgn_game_release(&g);
	buf_release(&line);
	buf_release(&in);
	x->g = NULL;
	return e->code == ERR_OK ? 0 : -1;
}

long
pgnio_import(const struct pgnio_import_opts *o, struct buf *out, struct err *e)
{
	struct imp x = { .o = o, .map = o->map };
	long records = 0, rc = 0;

	for (size_t i = 0; i < o->nfiles && rc == 0; i++)
		if (import_file(&x, o->files[i], out, &records, e) < 0)
			rc = -1;
	if (rc == 0)
		duplicates(&x);
	if (rc == 0 && x.refused > 0)
		rc = err_set(e, ERR_INPUT, "%ld game%s refused, %ld read", x.refused,
		    x.refused > 1 ? "s" : "", records);
	for (size_t i = 0; i < x.nseen; i++)
		free(x.seen[i].id);
	for (size_t i = 0; i < x.ntally; i++)
		free(x.tally[i].key);
	free(x.seen);
	free(x.tally);
	free(x.used);
	return rc < 0 ? -1 : records;
}
