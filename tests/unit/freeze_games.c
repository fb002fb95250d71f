/* freeze_games.c: a freeze's "games" held flat (protocol/games.c) against
 * the tree: on manifests of every odd element (no object, fields missing,
 * of other types, nested, escaped, an identity too short or not hex, keys
 * that only begin like the fields), each element's family, condition,
 * game_id and identity as the tree gives them, and the rest of the tree
 * the whole tree's bytes with "games" emptied.  Also: a "games" array that
 * is not top-level, or a "games" that is no array, is built as usual. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json/json.h"
#include "../../protocol/games.h"

#define ID "sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static const char *const docs[] = {
	"{\"kind\":\"cohort.freeze/1\",\"games\":[]}",
	"{\"games\":[{\"id\":\"" ID "\",\"family\":\"luna\",\"condition\":\"none\",\"game_id\":\"g1\"},"
	"{\"condition\":\"none\",\"family\":\"luna\",\"id\":\"" ID "\",\"game_id\":\"g2\"},"
	"{\"condition\":\"top2\",\"family\":\"sol\",\"id\":\"sha256:00\",\"game_id\":\"g3\"}],\"x\":1}",
	"{\"a\":{\"games\":[1,2]},\"games\":[1,\"s\",null,true,[\"family\",\"x\"],{},"
	"{\"family\":1,\"condition\":{\"family\":\"in\"},\"game_id\":[\"g\"],\"id\":7},"
	"{\"familyx\":\"a\",\"famil\":\"b\",\"condition\":\"c\\u00e9\\n\\\"q\",\"game_id\":\"\\u0000z\"},"
	"{\"id\":\"sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeefg\"},"
	"{\"id\":\"SHA256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\","
	"\"family\":\"\",\"condition\":\"\"}],\"z\":[]}",
	"{\"games\":{\"family\":\"obj\"},\"b\":[{\"games\":[{\"family\":\"deep\"}]}]}",
	"{\"kind\":\"x\"}",
};

static const char *
tree_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The differences between the flat reading of doc and its tree. */
static int
one(const char *doc)
{
	struct freeze_games g = FREEZE_GAMES_INIT;
	const struct json_skip skip = { { NULL, "games" }, freeze_games_tok, &g, 0, NULL, NULL };
	struct err e = ERR_INIT;
	cJSON *full = json_parse(doc, strlen(doc), "doc", 1, &e);
	cJSON *part = json_parse_skip(doc, strlen(doc), "doc", &skip, &e);
	cJSON *games, *x;
	struct buf a = BUF_INIT, b = BUF_INIT;
	size_t k = 0;
	int bad = 0;

	if (full == NULL || part == NULL) {
		printf("# %s: does not read\n", doc);
		return 1;
	}
	games = cJSON_GetObjectItemCaseSensitive(full, "games");
	if (cJSON_IsArray(games)) {
		cJSON_ArrayForEach(x, games) {
			const char *f[] = { "family", "condition", "game_id" };
			const cJSON *id = cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, "id") : NULL;
			uint8_t d[HASH_LEN];
			int has = cJSON_IsString(id) && hash_id_parse(id->valuestring, d) == 0;
			if (k >= g.n) {
				bad++;
				break;
			}
			for (int j = 0; j < 3; j++)
				bad += !same_str(tree_str(x, f[j]), freeze_game_str(&g, k, f[j]));
			bad += has != g.g[k].has_id || (has && memcmp(d, g.g[k].id, HASH_LEN) != 0);
			k++;
		}
		bad += k != g.n;
		/* the rest: the whole tree with its games emptied */
		cJSON_ReplaceItemInObjectCaseSensitive(full, "games", cJSON_CreateArray());
	} else {
		bad += g.n != 0;
	}
	if (canon_write(full, &a, &e) < 0 || canon_write(part, &b, &e) < 0 || a.len != b.len ||
	    memcmp(a.p, b.p, a.len) != 0)
		bad++;
	if (bad)
		printf("# %s: %d differences\n", doc, bad);
	buf_release(&a);
	buf_release(&b);
	cJSON_Delete(full);
	cJSON_Delete(part);
	freeze_games_release(&g);
	return bad;
}

int
main(void)
{
	int bad = 0;
	size_t n = sizeof docs / sizeof docs[0];

	for (size_t i = 0; i < n; i++)
		bad += one(docs[i]);
	printf("%s a freeze's games held flat are the tree's, element by element (%zu manifests)\n",
	    bad ? "not ok" : "ok", n);
	return bad != 0;
}
