/* games_agree.h: a freeze's "games" held flat (protocol/games.c) against
 * the tree, for the unit test (freeze_games.c) and the fuzz target
 * (fuzz_json.c).  The text p[0..n) read whole and read with its top-level
 * "games" array skipped into freeze_games: both refused with the same
 * message, or each element's family, condition, game_id and identity as
 * the tree gives them and the rest the whole tree's canonical bytes with
 * "games" emptied.  freeze_games_parse gives a freeze's tree without its
 * games (and as many held flat), anything else's whole tree. */
#include <string.h>

#include "../../common/buf.h"
#include "../../json/json.h"
#include "../../protocol/games.h"

static const char *
games_tree_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
games_same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The flat entries against the tree's games: the differences. */
static int
games_elements(const cJSON *games, const struct freeze_games *g)
{
	static const char *const f[] = { "family", "condition", "game_id" };
	const cJSON *x;
	size_t k = 0;
	int bad = 0;

	cJSON_ArrayForEach(x, games) {
		const cJSON *id = cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, "id") : NULL;
		uint8_t d[HASH_LEN];
		int has = cJSON_IsString(id) && hash_id_parse(id->valuestring, d) == 0;
		if (k >= g->n)
			return bad + 1;
		for (int j = 0; j < 3; j++)
			bad += !games_same_str(games_tree_str(x, f[j]), freeze_game_str(g, k, f[j]));
		bad += has != g->g[k].has_id || (has && memcmp(d, g->g[k].id, HASH_LEN) != 0);
		k++;
	}
	return bad + (k != g->n);
}

/* freeze_games_parse of p[0..n) against the whole tree full (whole: its
 * canonical bytes) and the tree part read with the games skipped into g:
 * the differences. */
static int
games_parse_agree(const char *p, size_t n, const cJSON *full, const struct buf *whole,
    const cJSON *part, const struct freeze_games *g)
{
	struct freeze_games *gp;
	struct err e = ERR_INIT;
	cJSON *t = freeze_games_parse(p, n, "doc", &gp, &e);
	struct buf b = BUF_INIT, c = BUF_INIT;
	int bad = (t == NULL) != (full == NULL);

	if (t != NULL && full != NULL) {
		bad += canon_write(t, &b, &e) < 0;
		if (gp != NULL)
			bad += gp->n != g->n || canon_write(part, &c, &e) < 0 || b.len != c.len ||
			    memcmp(b.p, c.p, b.len) != 0;
		else
			bad += b.len != whole->len || (b.len && memcmp(b.p, whole->p, b.len) != 0);
	}
	buf_release(&b);
	buf_release(&c);
	cJSON_Delete(t);
	freeze_games_free(gp);
	return bad;
}

/* The differences between the two readings of p[0..n) (0: they agree). */
static int
games_agree(const char *p, size_t n)
{
	struct freeze_games g = FREEZE_GAMES_INIT;
	const struct json_skip skip = { { NULL, "games" }, freeze_games_tok, &g, 0, NULL, NULL };
	struct err ef = ERR_INIT, ep = ERR_INIT;
	cJSON *full = json_parse(p, n, "doc", 1, &ef), *part = json_parse_skip(p, n, "doc", &skip, &ep);
	cJSON *games = cJSON_GetObjectItemCaseSensitive(full, "games");
	struct buf a = BUF_INIT, b = BUF_INIT, w = BUF_INIT;
	int bad = 0;

	if (full != NULL && canon_write(full, &w, &ef) < 0)
		bad++;
	bad += games_parse_agree(p, n, full, &w, part, &g);
	if (full == NULL || part == NULL) {
		bad = (full == NULL) != (part == NULL) || strcmp(ef.msg, ep.msg) != 0;
	} else {
		if (cJSON_IsArray(games) && cJSON_IsObject(full)) {
			bad += games_elements(games, &g);
			cJSON_ReplaceItemInObjectCaseSensitive(full, "games", cJSON_CreateArray());
		} else {
			bad += g.n != 0;
		}
		if (canon_write(full, &a, &ef) != canon_write(part, &b, &ep) || a.len != b.len ||
		    (a.len && memcmp(a.p, b.p, a.len) != 0))
			bad++;
	}
	buf_release(&a);
	buf_release(&b);
	buf_release(&w);
	cJSON_Delete(full);
	cJSON_Delete(part);
	freeze_games_release(&g);
	return bad;
}
