/* export.c: a freeze's games as PGN (`cohort export pgn`), and W-D-L
 * blocks as a PGN of results for Ordo (`cohort export blocks --format
 * ordo`).  The tags written are those the built-in map reads back
 * (internal.h); cohort-export(1) lists them. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../chess/pgn.h"
#include "../common/hash.h"
#include "../common/io.h"
#include "../json/json.h"
#include "../protocol/blocks.h"
#include "../store/cas.h"

/* ---- building a game for the writer ---- */

/* Set tag name to value, in place when the game has it already. */
static int
tag_set(struct chess_pgn_game *g, const char *name, const char *value)
{
	char *v = strdup(value), *n;

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < g->ntags; i++)
		if (strcmp(g->tags[i].name, name) == 0) {
			free(g->tags[i].value);
			g->tags[i].value = v;
			return 0;
		}
	if (g->ntags == g->cap_tags) {
		size_t cap = g->cap_tags ? 2 * g->cap_tags : 32;
		struct chess_pgn_tag *t = realloc(g->tags, cap * sizeof *t);
		if (t == NULL) {
			free(v);
			return -1;
		}
		g->tags = t;
		g->cap_tags = cap;
	}
	if ((n = strdup(name)) == NULL) {
		free(v);
		return -1;
	}
	g->tags[g->ntags].name = n;
	g->tags[g->ntags].value = v;
	g->ntags++;
	return 0;
}

/* A game with no tags, moves or result, from the usual position. */
static void
game_clear(struct chess_pgn_game *g)
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

static int
tag_number(struct chess_pgn_game *g, const char *name, double x)
{
	char s[32];

	canon_number(x, s);
	return tag_set(g, name, s);
}

/* ---- a record as a game ---- */

static const char *const known_top[] = { "game_id", "family", "model", "condition", "color",
	"anchor", "opening", "block", "status", "result", "termination", "plies", "started_at",
	"ended_at", "tokens", "wall_s", "worker_hours", "requests", "moves", "pgn_tags", NULL };
static const char *const known_model[] = { "requested", "returned", NULL };
static const char *const known_anchor[] = { "engine", "elo", "limiter", "time_s", "nodes",
	"binary_sha256", NULL };
static const char *const known_tokens[] = { "input", "output", "reasoning", "cached", NULL };

static int
known(const char *const *list, const char *key)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, key) == 0)
			return 1;
	return 0;
}

static const char *
str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *
num(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? v : NULL;
}

/* Where the game starts: the FEN the import kept, else an opening that
 * is a FEN, else the usual position. */
static void
start_of(const cJSON *rec, struct chess_pos *start)
{
	const char *fen = str(json_get(rec, "pgn_tags"), "FEN"), *op = str(rec, "opening");
	struct err e = ERR_INIT;

	if (fen != NULL && chess_fen_read(start, fen, &e) == 0)
		return;
	if (op != NULL && chess_fen_read(start, op, &e) == 0)
		return;
	chess_start(start);
}

/* The record's moves, each legal in turn. */
static int
moves_of(const cJSON *rec, struct chess_pgn_game *g, struct err *e)
{
	const cJSON *mv = json_get(rec, "moves"), *it;
	const cJSON *plies = num(rec, "plies");
	struct chess_pos p = g->start;
	size_t n = 0;

	if (mv == NULL)
		return 0;
	if (!cJSON_IsArray(mv))
		return err_set(e, ERR_INPUT, "\"moves\": expected an array of UCI moves");
	n = (size_t)cJSON_GetArraySize(mv);
	if (n > CHESS_PGN_MAX_PLIES)
		return err_set(e, ERR_INPUT, "\"moves\": more than %d", CHESS_PGN_MAX_PLIES);
	if (plies != NULL && plies->valuedouble != (double)n)
		return err_set(e, ERR_INPUT, "\"plies\" is %.0f, but \"moves\" holds %zu",
		    plies->valuedouble, n);
	if (n > g->cap_moves) {
		struct chess_move *m = realloc(g->moves, n * sizeof *m);
		if (m == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		g->moves = m;
		g->cap_moves = n;
	}
	cJSON_ArrayForEach (it, mv) {
		struct chess_move m;
		if (!cJSON_IsString(it))
			return err_set(e, ERR_INPUT, "\"moves\"[%zu]: expected a UCI move",
			    g->nmoves);
		if (chess_uci_read(&p, it->valuestring, &m, e) < 0)
			return err_prefix(e, "\"moves\"[%zu]", g->nmoves);
		chess_play(&p, m);
		g->moves[g->nmoves++] = m;
	}
	g->end = p;
	return 0;
}

/* A record on its way to a game: the game, and the note's object of the
 * fields no tag holds. */
struct rg {
	const cJSON *rec;
	struct chess_pgn_game *g;
	cJSON *note;
	int nomem;
};

/* A copy of v in the note as key, or as the member key of its object
 * head when head is not NULL. */
static void
note_put(struct rg *x, const char *head, const char *key, const cJSON *v)
{
	cJSON *to = x->note;

	if (head != NULL && (to = cJSON_GetObjectItemCaseSensitive(x->note, head)) == NULL &&
	    (to = cJSON_AddObjectToObject(x->note, head)) == NULL) {
		x->nomem = 1;
		return;
	}
	if (!cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1)))
		x->nomem = 1;
}

/* The same for a field's path: "anchor.elo" or "wall_s". */
static void
note_path(struct rg *x, const char *path, const cJSON *v)
{
	const char *dot = strchr(path, '.');
	char head[32];

	if (dot == NULL) {
		note_put(x, NULL, path, v);
		return;
	}
	snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
	note_put(x, head, dot + 1, v);
}

/* The record's value at path ("anchor.elo"), or NULL. */
static const cJSON *
at(const cJSON *rec, const char *path)
{
	const char *dot = strchr(path, '.');
	char head[32];

	if (dot == NULL)
		return cJSON_GetObjectItemCaseSensitive(rec, path);
	snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
	return cJSON_GetObjectItemCaseSensitive(json_get(rec, head), dot + 1);
}

/* The field at path as tag name when a tag can hold it (with suffix after
 * its text), else in the note; nothing when the record lacks it. */
static void
field(struct rg *x, const char *path, const char *name, enum pgnio_type t, const char *suffix)
{
	const cJSON *v = at(x->rec, path);
	char text[300];

	if (v == NULL)
		return;
	if (!pgnio_tag_text(v, t, text, sizeof text - 8)) {
		note_path(x, path, v);
		return;
	}
	strcat(text, suffix);
	if (tag_set(x->g, name, text) < 0)
		x->nomem = 1;
}

/* tokens as four tags when it is an object of those numbers, else in the
 * note whole. */
static void
tokens(struct rg *x)
{
	static const char *const tag[] = { TAG_TOKENS_INPUT, TAG_TOKENS_OUTPUT,
		TAG_TOKENS_REASONING, TAG_TOKENS_CACHED };
	const cJSON *t = json_get(x->rec, "tokens"), *v;
	char text[40];
	int fits = cJSON_IsObject(t) && t->child != NULL;

	if (t == NULL)
		return;
	cJSON_ArrayForEach (v, t)
		fits = fits && known(known_tokens, v->string) &&
		    pgnio_tag_text(v, T_NUMBER, text, sizeof text);
	if (!fits) {
		note_put(x, NULL, "tokens", t);
		return;
	}
	for (int i = 0; i < 4; i++)
		if ((v = json_get(t, known_tokens[i])) != NULL &&
		    (!pgnio_tag_text(v, T_NUMBER, text, sizeof text) ||
		        tag_set(x->g, tag[i], text) < 0))
			x->nomem = 1;
}

/* The names Ordo rates: a rated unit "FAMILY/CONDITION" (the condition
 * alone without a family) and its anchor "anchor-ELO". */
static void
unit_names(const char *family, const char *condition, double elo, char *unit, size_t nu,
    char *anchor, size_t na)
{
	char v[32];

	canon_number(elo, v);
	if (family != NULL && family[0] != '\0')
		snprintf(unit, nu, "%s/%s", family, condition);
	else
		snprintf(unit, nu, "%s", condition);
	snprintf(anchor, na, "anchor-%s", v);
}

/* Ordo's line for an anchor ("anchor-1320",1320) onto anchors, once:
 * seen holds the lines written. */
static int
ordo_anchor(struct buf *anchors, const char *name, double elo, struct buf *seen)
{
	char line[160], v[32];

	canon_number(elo, v);
	snprintf(line, sizeof line, "\"%s\",%s\n", name, v);
	for (const char *p = seen->p; p != NULL && *p != '\0'; p = strchr(p, '\n') + 1)
		if (strncmp(p, line, strlen(line)) == 0)
			return 0;
	return buf_adds(seen, line) < 0 || buf_adds(anchors, line) < 0 ? -1 : 0;
}

/* The players: the model's name and the anchor's engine as White and Black
 * by the model's colour; or, by_condition, the names Ordo rates
 * (unit_names), the two names in CohortModel and CohortAnchorEngine, and
 * the anchor onto anchors (when not NULL). */
static int
players(struct rg *x, int by_condition, struct buf *anchors, struct buf *seen, struct err *e)
{
	const char *color = str(x->rec, "color"),
	           *returned = str(json_get(x->rec, "model"), "returned");
	const char *requested = str(json_get(x->rec, "model"), "requested");
	int black = color != NULL && strcmp(color, "black") == 0;
	const char *mside = black ? "Black" : "White", *aside = black ? "White" : "Black";
	char name[32], text[300];

	if (by_condition) {
		const cJSON *elo = num(json_get(x->rec, "anchor"), "elo");
		char unit[600], anchor[64];
		if (str(x->rec, "condition") == NULL || elo == NULL)
			return err_set(e, ERR_INPUT,
			    "--players condition: the record has no \"condition\" or \"anchor.elo\"");
		unit_names(str(x->rec, "family"), str(x->rec, "condition"), elo->valuedouble, unit,
		    sizeof unit, anchor, sizeof anchor);
		if (tag_set(x->g, mside, unit) < 0 || tag_set(x->g, aside, anchor) < 0 ||
		    (anchors != NULL && ordo_anchor(anchors, anchor, elo->valuedouble, seen) < 0))
			x->nomem = 1;
		field(x, "model.returned", TAG_MODEL, T_STRING, "");
		field(x, "anchor.engine", TAG_ENGINE, T_STRING, "");
	} else {
		field(x, "model.returned", mside, T_STRING, "");
		field(x, "anchor.engine", aside, T_STRING, "");
	}
	/* the requested name, unless it is the returned one, which a tag holds */
	if (requested == NULL || returned == NULL || strcmp(requested, returned) != 0 ||
	    !pgnio_tag_text(at(x->rec, "model.returned"), T_STRING, text, sizeof text))
		field(x, "model.requested", TAG_REQUESTED, T_STRING, "");
	snprintf(name, sizeof name, "%sElo", aside);
	field(x, "anchor.elo", name, T_NUMBER, "");
	snprintf(name, sizeof name, "%sTimeControl", aside);
	field(x, "anchor.time_s", name, T_PERMOVE, "/move");
	return 0;
}

/* The members of the record's object key (the record itself when key is
 * NULL) not in list, into the note. */
static void
unknown(struct rg *x, const char *key, const char *const *list)
{
	const cJSON *obj = key ? json_get(x->rec, key) : x->rec, *v;

	if (key != NULL && !cJSON_IsObject(obj)) {
		if (obj != NULL)
			note_put(x, NULL, key, obj);
		return;
	}
	cJSON_ArrayForEach (v, obj)
		if (!known(list, v->string))
			note_put(x, key, v->string, v);
}

/* The PGN's own tags the import kept, as they were where no tag above has
 * taken the name and the name and value are plain; the others in the
 * note's "pgn_tags", so that the built-in map reads every one back where
 * it was. */
static int
kept_tags(struct rg *x, struct err *e)
{
	const cJSON *v;
	char text[300];

	cJSON_ArrayForEach (v, json_get(x->rec, "pgn_tags")) {
		if (!cJSON_IsString(v))
			return err_set(e, ERR_INPUT, "\"pgn_tags\": \"%.40s\": expected a string",
			    v->string);
		if (strcmp(v->string, "FEN") == 0)
			continue; /* the writer's, from the start position */
		if (chess_pgn_tag(x->g, v->string) == NULL && pgnio_tag_name_plain(v->string) &&
		    pgnio_tag_text(v, T_STRING, text, sizeof text)) {
			if (tag_set(x->g, v->string, text) < 0)
				x->nomem = 1;
			continue;
		}
		note_put(x, "pgn_tags", v->string, v);
	}
	return 0;
}

/* The record's fields as tags: the players, the anchor, times, plies and
 * termination in the tags cutechess-cli writes, the rest in Cohort* tags;
 * what no tag can hold in the note. */
static int
record_tags(struct rg *x, int by_condition, struct buf *anchors, struct buf *seen, struct err *e)
{
	const char *res = str(x->rec, "result"), *color = str(x->rec, "color"), *s;
	int black = color != NULL && strcmp(color, "black") == 0;
	const cJSON *v;

	if (res != NULL)
		x->g->result = strcmp(res, "draw") == 0 ? CHESS_RESULT_DRAW :
		    (strcmp(res, "win") == 0) != black  ? CHESS_RESULT_WHITE :
		                                          CHESS_RESULT_BLACK;
	if (players(x, by_condition, anchors, seen, e) < 0)
		return -1;
	field(x, "started_at", "GameStartTime", T_TIME, "");
	field(x, "ended_at", "GameEndTime", T_TIME, "");
	if ((v = num(x->rec, "plies")) != NULL)
		field(x, "plies", "PlyCount", T_COUNT, "");
	if ((s = str(x->rec, "termination")) != NULL && pgnio_termination_pgn(s) != NULL &&
	    tag_set(x->g, "Termination", pgnio_termination_pgn(s)) < 0)
		x->nomem = 1;
	field(x, "game_id", TAG_GAME_ID, T_STRING, "");
	field(x, "family", TAG_FAMILY, T_STRING, "");
	field(x, "condition", TAG_CONDITION, T_STRING, "");
	field(x, "block", TAG_BLOCK, T_BLOCK, "");
	field(x, "color", TAG_COLOR, T_COLOR, "");
	field(x, "opening", TAG_OPENING, T_STRING, "");
	field(x, "termination", TAG_TERMINATION, T_STRING, "");
	field(x, "anchor.limiter", TAG_LIMITER, T_STRING, "");
	field(x, "anchor.nodes", TAG_NODES, T_NUMBER, "");
	field(x, "anchor.binary_sha256", TAG_SHA, T_STRING, "");
	tokens(x);
	field(x, "wall_s", TAG_WALL, T_SECONDS, "");
	field(x, "worker_hours", TAG_WORKER, T_NUMBER, "");
	if ((v = json_get(x->rec, "requests")) != NULL)
		note_put(x, NULL, "requests", v);
	unknown(x, NULL, known_top);
	unknown(x, "model", known_model);
	unknown(x, "anchor", known_anchor);
	return kept_tags(x, e);
}

/* The note: NOTE_WORD and the canonical JSON of its object, one line. */
static int
note_write(struct rg *x, struct buf *scratch, struct err *e)
{
	if (x->note->child == NULL)
		return 0;
	buf_reset(scratch);
	if (buf_adds(scratch, NOTE_WORD " ") < 0 || canon_write(x->note, scratch, e) < 0 ||
	    buf_addc(scratch, '\n') < 0)
		return e->code != ERR_OK ? -1 : err_set(e, ERR_NOMEM, "out of memory");
	if ((x->g->note = malloc(scratch->len + 1)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	memcpy(x->g->note, scratch->p, scratch->len + 1);
	x->g->note_len = scratch->len;
	return 0;
}

/* What one export needs: its options, a game to fill, scratch space,
 * the anchors file and the lines in it so far. */
struct ex {
	const struct pgnio_export_opts *o;
	struct chess_pgn_game g;
	struct buf scratch, *anchors, seen;
};

static int
record_game(const cJSON *rec, struct ex *ex, struct err *e)
{
	struct chess_pgn_game *g = &ex->g;
	struct buf *scratch = &ex->scratch;
	struct rg x = { rec, g, cJSON_CreateObject(), 0 };
	int rc = -1;

	game_clear(g);
	if (x.note == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	start_of(rec, &g->start);
	g->end = g->start;
	if (moves_of(rec, g, e) < 0 ||
	    record_tags(&x, ex->o->by_condition, ex->anchors, &ex->seen, e) < 0)
		goto done;
	if (x.nomem) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = note_write(&x, scratch, e);
done:
	cJSON_Delete(x.note);
	return rc;
}

/* The store a freeze names by default: "store" beside it. */
static char *
default_store(const char *freeze)
{
	const char *slash = freeze && strcmp(freeze, "-") != 0 ? strrchr(freeze, '/') : NULL;
	size_t n = slash ? (size_t)(slash - freeze) + 1 : 0;
	char *s = malloc(n + 6);

	if (s != NULL) {
		memcpy(s, freeze, n);
		memcpy(s + n, "store", 6);
	}
	return s;
}

/* One included game of the freeze: its record from the store, as PGN. */
static int
export_one(struct cas *c, const cJSON *entry, size_t i, struct ex *ex, struct buf *out,
    struct err *e)
{
	const char *gid = str(entry, "game_id"), *id = str(entry, "id"), *p;
	uint8_t d[HASH_LEN], got[HASH_LEN];
	size_t n;
	cJSON *rec;
	int rc;

	if (gid == NULL || id == NULL || hash_id_parse(id, d) < 0)
		return err_set(e, ERR_INPUT, "\"games\"[%zu]: expected \"game_id\" and \"id\"", i);
	if ((rc = cas_get(c, d, &p, &n, e)) < 0)
		return -1;
	if (rc == 1)
		return err_set(e, ERR_INPUT, "game \"%.80s\": its record %s is not in the store",
		    gid, id);
	hash_bytes(p, n, got);
	if (hash_cmp(d, got) != 0)
		return err_set(e, ERR_INPUT,
		    "game \"%.80s\": the stored record does not hash to "
		    "its identity (cohort verify says more)",
		    gid);
	if ((rec = json_parse(p, n, "stored record", 1, e)) == NULL)
		return err_prefix(e, "game \"%.80s\"", gid);
	rc = record_game(rec, ex, e) < 0 || chess_pgn_write(out, &ex->g, e) < 0;
	cJSON_Delete(rec);
	return rc ? err_prefix(e, "game \"%.80s\"", gid) : 0;
}

int
pgnio_export_pgn(const struct pgnio_export_opts *o, struct buf *out, struct buf *anchors,
    struct err *e)
{
	struct ex ex = { .o = o,
		.g = CHESS_PGN_GAME_INIT,
		.scratch = BUF_INIT,
		.anchors = anchors,
		.seen = BUF_INIT };
	struct cas *c = NULL;
	const cJSON *games, *entry;
	const char *kind, *freeze = o->freeze;
	char *store = NULL;
	cJSON *doc;
	size_t i = 0;
	int rc = -1;

	if ((doc = json_parse_file(freeze, e)) == NULL)
		return -1;
	kind = str(doc, "kind");
	if (kind == NULL || strcmp(kind, "cohort.freeze/1") != 0) {
		err_set(e, ERR_INPUT, "%s: \"kind\": expected \"cohort.freeze/1\"",
		    io_name(freeze));
		goto done;
	}
	if (json_get_array(doc, "games", 1, &games, e) < 0) {
		err_prefix(e, "%s", io_name(freeze));
		goto done;
	}
	if (o->store == NULL && (store = default_store(freeze)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (cas_open(o->store ? o->store : store, 0, &c, e) < 0)
		goto done;
	cJSON_ArrayForEach (entry, games) {
		if (export_one(c, entry, i++, &ex, out, e) < 0) {
			err_prefix(e, "%s", io_name(freeze));
			goto done;
		}
	}
	rc = 0;
done:
	game_clear(&ex.g);
	chess_pgn_game_release(&ex.g);
	cas_free(c);
	free(store);
	buf_release(&ex.scratch);
	buf_release(&ex.seen);
	cJSON_Delete(doc);
	return rc;
}

/* ---- blocks for Ordo ---- */

/* One result-only game between a block's unit and its anchor. */
static int
ordo_game(struct chess_pgn_game *g, const struct blocks_block *b, const char *model,
    const char *anchor, long k, int outcome, struct buf *pgn, struct err *e)
{
	const char *white = b->black ? anchor : model, *black = b->black ? model : anchor;
	char round[48];
	int rc = 0;

	game_clear(g);
	snprintf(round, sizeof round, "%ld.%ld", b->block, k);
	rc |= tag_set(g, "Event", "cohort blocks");
	rc |= tag_set(g, "Round", round);
	rc |= tag_set(g, "White", white);
	rc |= tag_set(g, "Black", black);
	rc |= tag_number(g, b->black ? "WhiteElo" : "BlackElo", b->anchor);
	if (rc)
		return err_set(e, ERR_NOMEM, "out of memory");
	/* outcome: 0 the unit wins, 1 a draw, 2 it loses */
	g->result = outcome == 1       ? CHESS_RESULT_DRAW :
	    (outcome == 0) != b->black ? CHESS_RESULT_WHITE :
	                                 CHESS_RESULT_BLACK;
	return chess_pgn_write(pgn, g, e);
}

int
pgnio_export_ordo(const char *path, struct buf *pgn, struct buf *anchors, struct err *e)
{
	struct blocks b = BLOCKS_INIT;
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct buf seen = BUF_INIT;
	cJSON *doc;
	int rc = 0;

	if ((doc = json_parse_file(path, e)) == NULL)
		return -1;
	if (blocks_read(doc, io_name(path), &b, e) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	if (b.n == 0)
		rc = err_set(e, ERR_INPUT, "%s: no blocks", io_name(path));
	for (size_t i = 0; i < b.n && rc == 0; i++) {
		const struct blocks_block *k = &b.b[i];
		char model[600], anchor[64];
		long n = 0;
		unit_names(k->family, k->condition, k->anchor, model, sizeof model, anchor,
		    sizeof anchor);
		if (anchors != NULL && ordo_anchor(anchors, anchor, k->anchor, &seen) < 0)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		for (long long j = 0; j < k->w + k->d + k->l && rc == 0; j++)
			rc = ordo_game(&g, k, model, anchor, ++n,
			    j < k->w            ? 0 :
			        j < k->w + k->d ? 1 :
			                          2,
			    pgn, e);
	}
	game_clear(&g);
	chess_pgn_game_release(&g);
	buf_release(&seen);
	blocks_release(&b);
	cJSON_Delete(doc);
	return rc < 0 ? -1 : 0;
}
