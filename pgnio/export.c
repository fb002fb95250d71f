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

/* A tree's canonical bytes as a tag's value. */
static int
tag_json(struct chess_pgn_game *g, const char *name, const cJSON *v, struct buf *scratch,
    struct err *e)
{
	buf_reset(scratch);
	if (canon_write(v, scratch, e) < 0)
		return -1;
	return tag_set(g, name, scratch->p) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* ---- a record as a game ---- */

static const char *const known_top[] = { "game_id", "family", "model", "condition", "color",
	"anchor", "opening", "block", "status", "result", "termination", "plies", "started_at",
	"ended_at", "tokens", "wall_s", "worker_hours", "requests", "moves", "pgn_tags", NULL };
static const char *const known_model[] = { "requested", "returned", NULL };
static const char *const known_anchor[] = { "engine", "elo", "limiter", "time_s", "nodes",
	"binary_sha256", NULL };

static int
known(const char *const *list, const char *key)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, key) == 0)
			return 1;
	return 0;
}

/* obj's members not in list, into extra (copies); key names a sub-object. */
static int
add_unknown(cJSON *extra, const cJSON *obj, const char *const *list, const char *key)
{
	const cJSON *v;
	cJSON *to = extra;

	cJSON_ArrayForEach (v, obj) {
		if (known(list, v->string))
			continue;
		if (key != NULL && to == extra &&
		    (to = cJSON_AddObjectToObject(extra, key)) == NULL)
			return -1;
		if (!cJSON_AddItemToObject(to, v->string, cJSON_Duplicate(v, 1)))
			return -1;
	}
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

/* The ledger's fields as tags: the players, the anchor, times, plies and
 * termination in the tags cutechess-cli writes, the rest in Cohort* tags. */
static int
record_tags(const cJSON *rec, struct chess_pgn_game *g, struct buf *scratch, struct err *e)
{
	const cJSON *model = json_get(rec, "model"), *anchor = json_get(rec, "anchor"), *v;
	const char *color = str(rec, "color"), *res = str(rec, "result"), *s;
	int black = color != NULL && strcmp(color, "black") == 0;
	const char *mside = black ? "Black" : "White", *aside = black ? "White" : "Black";
	char name[32];
	int rc = 0;

	if (res != NULL)
		g->result = strcmp(res, "draw") == 0   ? CHESS_RESULT_DRAW :
		    (strcmp(res, "win") == 0) != black ? CHESS_RESULT_WHITE :
		                                         CHESS_RESULT_BLACK;
	if ((s = str(model, "returned")) != NULL)
		rc |= tag_set(g, mside, s);
	if ((s = str(anchor, "engine")) != NULL)
		rc |= tag_set(g, aside, s);
	if ((v = num(anchor, "elo")) != NULL)
		snprintf(name, sizeof name, "%sElo", aside),
		    rc |= tag_number(g, name, v->valuedouble);
	if ((v = num(anchor, "time_s")) != NULL) {
		char tc[48];
		canon_number(v->valuedouble, tc);
		strcat(tc, "/move");
		snprintf(name, sizeof name, "%sTimeControl", aside);
		rc |= tag_set(g, name, tc);
	}
	if ((s = str(rec, "started_at")) != NULL)
		rc |= tag_set(g, "GameStartTime", s);
	if ((s = str(rec, "ended_at")) != NULL)
		rc |= tag_set(g, "GameEndTime", s);
	if ((v = num(rec, "plies")) != NULL)
		rc |= tag_number(g, "PlyCount", v->valuedouble);
	if ((s = str(rec, "termination")) != NULL && pgnio_termination_pgn(s) != NULL)
		rc |= tag_set(g, "Termination", pgnio_termination_pgn(s));
	if ((s = str(rec, "game_id")) != NULL)
		rc |= tag_set(g, TAG_GAME_ID, s);
	if ((s = str(rec, "family")) != NULL)
		rc |= tag_set(g, TAG_FAMILY, s);
	if ((s = str(rec, "condition")) != NULL)
		rc |= tag_set(g, TAG_CONDITION, s);
	if ((v = num(rec, "block")) != NULL)
		rc |= tag_number(g, TAG_BLOCK, v->valuedouble);
	if (color != NULL)
		rc |= tag_set(g, TAG_COLOR, color);
	if ((s = str(model, "requested")) != NULL &&
	    (str(model, "returned") == NULL || strcmp(s, str(model, "returned")) != 0))
		rc |= tag_set(g, TAG_REQUESTED, s);
	if ((s = str(rec, "opening")) != NULL)
		rc |= tag_set(g, TAG_OPENING, s);
	if ((s = str(rec, "termination")) != NULL)
		rc |= tag_set(g, TAG_TERMINATION, s);
	if ((s = str(anchor, "limiter")) != NULL)
		rc |= tag_set(g, TAG_LIMITER, s);
	if ((v = num(anchor, "nodes")) != NULL)
		rc |= tag_number(g, TAG_NODES, v->valuedouble);
	if ((s = str(anchor, "binary_sha256")) != NULL)
		rc |= tag_set(g, TAG_SHA, s);
	if (rc)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((v = json_get(rec, "tokens")) != NULL && tag_json(g, TAG_TOKENS, v, scratch, e) < 0)
		return -1;
	if (((v = num(rec, "wall_s")) != NULL && tag_number(g, TAG_WALL, v->valuedouble) < 0) ||
	    ((v = num(rec, "worker_hours")) != NULL &&
	        tag_number(g, TAG_WORKER, v->valuedouble) < 0))
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((v = json_get(rec, "requests")) != NULL && tag_json(g, TAG_REQUESTS, v, scratch, e) < 0)
		return -1;
	return 0;
}

/* The PGN's own tags the import kept, as they were; one whose name a tag
 * above has taken goes in TAG_EXTRA as {"pgn_tags": {...}}, with the
 * fields no tag above holds (and the anchor's and model's other members),
 * so that the built-in map reads every one back where it was. */
static int
other_tags(const cJSON *rec, struct chess_pgn_game *g, struct buf *scratch, struct err *e)
{
	cJSON *extra = cJSON_CreateObject(), *clash = NULL;
	const cJSON *v;
	int rc = 0;

	if (extra == NULL || add_unknown(extra, rec, known_top, NULL) < 0 ||
	    add_unknown(extra, json_get(rec, "model"), known_model, "model") < 0 ||
	    add_unknown(extra, json_get(rec, "anchor"), known_anchor, "anchor") < 0)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach (v, json_get(rec, "pgn_tags")) {
		if (rc < 0)
			break;
		if (!cJSON_IsString(v)) {
			rc = err_set(e, ERR_INPUT, "\"pgn_tags\": \"%.40s\": expected a string",
			    v->string);
			break;
		}
		if (strcmp(v->string, "FEN") == 0)
			continue; /* the writer's, from the start position */
		if (chess_pgn_tag(g, v->string) == NULL) {
			if (tag_set(g, v->string, v->valuestring) < 0)
				rc = err_set(e, ERR_NOMEM, "out of memory");
			continue;
		}
		if ((clash == NULL &&
		        (clash = cJSON_AddObjectToObject(extra, "pgn_tags")) == NULL) ||
		    !json_add_string(clash, v->string, v->valuestring))
			rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	if (rc == 0 && extra->child != NULL)
		rc = tag_json(g, TAG_EXTRA, extra, scratch, e);
	cJSON_Delete(extra);
	return rc;
}

static int
record_game(const cJSON *rec, struct chess_pgn_game *g, struct buf *scratch, struct err *e)
{
	game_clear(g);
	start_of(rec, &g->start);
	g->end = g->start;
	if (moves_of(rec, g, e) < 0 || record_tags(rec, g, scratch, e) < 0 ||
	    other_tags(rec, g, scratch, e) < 0)
		return -1;
	return 0;
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
export_one(struct cas *c, const cJSON *entry, size_t i, struct chess_pgn_game *g,
    struct buf *scratch, struct buf *out, struct err *e)
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
	rc = record_game(rec, g, scratch, e) < 0 || chess_pgn_write(out, g, e) < 0;
	cJSON_Delete(rec);
	return rc ? err_prefix(e, "game \"%.80s\"", gid) : 0;
}

int
pgnio_export_pgn(const char *freeze_path, const char *store_dir, struct buf *out, struct err *e)
{
	struct chess_pgn_game g = CHESS_PGN_GAME_INIT;
	struct buf scratch = BUF_INIT;
	struct cas *c = NULL;
	const cJSON *games, *entry;
	const char *kind;
	char *store = NULL;
	cJSON *doc;
	size_t i = 0;
	int rc = -1;

	if ((doc = json_parse_file(freeze_path, e)) == NULL)
		return -1;
	kind = str(doc, "kind");
	if (kind == NULL || strcmp(kind, "cohort.freeze/1") != 0) {
		err_set(e, ERR_INPUT, "%s: \"kind\": expected \"cohort.freeze/1\"",
		    io_name(freeze_path));
		goto done;
	}
	if (json_get_array(doc, "games", 1, &games, e) < 0) {
		err_prefix(e, "%s", io_name(freeze_path));
		goto done;
	}
	if (store_dir == NULL && (store = default_store(freeze_path)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (cas_open(store_dir ? store_dir : store, 0, &c, e) < 0)
		goto done;
	cJSON_ArrayForEach (entry, games) {
		if (export_one(c, entry, i++, &g, &scratch, out, e) < 0) {
			err_prefix(e, "%s", io_name(freeze_path));
			goto done;
		}
	}
	rc = 0;
done:
	game_clear(&g);
	chess_pgn_game_release(&g);
	cas_free(c);
	free(store);
	buf_release(&scratch);
	cJSON_Delete(doc);
	return rc;
}

/* ---- blocks for Ordo ---- */

/* The name of a block's rated unit and of its anchor. */
static void
ordo_names(const struct blocks_block *b, char *model, size_t nm, char *anchor, size_t na)
{
	char elo[32];

	canon_number(b->anchor, elo);
	if (b->family[0] != '\0')
		snprintf(model, nm, "%s/%s", b->family, b->condition);
	else
		snprintf(model, nm, "%s", b->condition);
	snprintf(anchor, na, "anchor-%s", elo);
}

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

static int
ordo_anchor(struct buf *anchors, const char *name, double elo, struct buf *seen)
{
	char line[160], v[32];

	canon_number(elo, v);
	snprintf(line, sizeof line, "\"%s\",%s\n", name, v);
	/* seen holds the lines written, so each anchor comes once */
	for (const char *p = seen->p; p != NULL && *p != '\0'; p = strchr(p, '\n') + 1)
		if (strncmp(p, line, strlen(line)) == 0)
			return 0;
	return buf_adds(seen, line) < 0 || buf_adds(anchors, line) < 0 ? -1 : 0;
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
		ordo_names(k, model, sizeof model, anchor, sizeof anchor);
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
