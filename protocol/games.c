/* games.c: a freeze manifest's "games" held flat, for readers that need of each
 * included game no more than its identity, family, condition and game_id
 * (the archive verifier, the reviewer's page).  Built as a tree, a
 * million-game freeze is ten million nodes and two gigabytes of fresh
 * memory; held here it is a few tens of megabytes. */
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "games.h"

enum { F_FAMILY, F_CONDITION, F_GAME_ID, F_ID };
static const char *const fields[] = { "family", "condition", "game_id", "id" };

void
freeze_games_release(struct freeze_games *g)
{
	free(g->g);
	buf_release(&g->text);
	*g = (struct freeze_games)FREEZE_GAMES_INIT;
}

/* s[0..n) kept in the text (after a NUL, so that offset 0 means none):
 * its offset, or 0 when out of memory (*bad set).  A family or condition
 * the same as the last game's shares its bytes. */
static uint32_t
keep(struct freeze_games *g, int f, const char *s, size_t n)
{
	size_t at;

	if (f != F_GAME_ID && g->last[f] != 0 && strlen(g->text.p + g->last[f]) == n &&
	    memcmp(g->text.p + g->last[f], s, n) == 0)
		return g->last[f];
	if (g->text.len == 0 && buf_add(&g->text, "", 1) < 0)
		return 0;
	at = g->text.len;
	if (at > UINT32_MAX - n - 1 || buf_add(&g->text, s, n) < 0 ||
	    buf_add(&g->text, "", 1) < 0)
		return 0;
	if (f != F_GAME_ID)
		g->last[f] = (uint32_t)at;
	return (uint32_t)at;
}

int
freeze_games_tok(void *arg, const struct json_tok *t, int depth, struct err *e)
{
	struct freeze_games *g = arg;
	struct freeze_game *x;

	if (depth == 1) {
		if (t->type == JSON_OBJECT_END || t->type == JSON_ARRAY_END)
			return 0;
		/* an element: an object's fields follow; anything else has none */
		if (g->n == g->cap && mem_grow((void **)&g->g, &g->cap, g->n + 1, sizeof *g->g) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		memset(&g->g[g->n++], 0, sizeof *g->g);
		g->want = -1;
		return 0;
	}
	if (depth != 2)
		return 0;
	if (t->type == JSON_KEY) {
		g->want = -1;
		for (int f = 0; f < 4; f++)
			if (strlen(fields[f]) == t->len && memcmp(fields[f], t->s, t->len) == 0)
				g->want = f;
		return 0;
	}
	x = &g->g[g->n - 1];
	if (g->want < 0 || t->type != JSON_STRING) {
		g->want = -1;
		return 0;
	}
	if (g->want == F_ID) {
		char text[HASH_ID_LEN + 1];
		if (t->len == HASH_ID_LEN) {
			memcpy(text, t->s, HASH_ID_LEN);
			text[HASH_ID_LEN] = '\0';
			x->has_id = hash_id_parse(text, x->id) == 0;
		}
	} else if ((x->at[g->want] = keep(g, g->want, t->s, t->len)) == 0) {
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	g->want = -1;
	return 0;
}

const char *
freeze_game_str(const struct freeze_games *g, size_t i, const char *field)
{
	for (int f = 0; f < 3; f++)
		if (strcmp(field, fields[f]) == 0)
			return g->g[i].at[f] ? g->text.p + g->g[i].at[f] : NULL;
	return NULL;
}

int
freeze_games_has(const struct freeze_games *g, const char *id)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->g[i].at[F_GAME_ID] && strcmp(g->text.p + g->g[i].at[F_GAME_ID], id) == 0)
			return 1;
	return 0;
}

void
freeze_games_free(struct freeze_games *g)
{
	if (g != NULL)
		freeze_games_release(g);
	free(g);
}

cJSON *
freeze_games_parse(const char *p, size_t n, const char *name, struct freeze_games **games,
    struct err *e)
{
	struct freeze_games *g = malloc(sizeof *g);
	const struct json_skip skip = { { NULL, "games" }, freeze_games_tok, g, 0, NULL, NULL };
	const cJSON *k;
	cJSON *doc;

	*games = NULL;
	if (g == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	*g = (struct freeze_games)FREEZE_GAMES_INIT;
	doc = json_parse_skip(p, n, name, &skip, e);
	k = json_get(doc, "kind");
	if (doc != NULL && cJSON_IsString(k) && strcmp(k->valuestring, "cohort.freeze/1") == 0 &&
	    cJSON_IsArray(json_get(doc, "games"))) {
		*games = g;
		return doc;
	}
	freeze_games_free(g);
	/* refused, or no array skipped: as the whole parse gives it */
	if (doc == NULL || !cJSON_IsArray(json_get(doc, "games")))
		return doc;
	cJSON_Delete(doc);
	return json_parse(p, n, name, 1, e);
}
