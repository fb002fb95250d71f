/* freeze_games.c: a freeze's "games" held flat (protocol/games.c) against
 * the tree: on manifests of every odd element (no object, fields missing,
 * of other types, nested, escaped, an identity too short or not hex, keys
 * that only begin like the fields), each element's family, condition,
 * game_id and identity as the tree gives them, and the rest of the tree
 * the whole tree's bytes with "games" emptied.  Also: a "games" array that
 * is not top-level, or a "games" that is no array, is built as usual;
 * and text that does not read is refused the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games_agree.h"

#define ID "sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static const char *const docs[] = {
	"{\"kind\":\"cohort.freeze/1\",\"games\":[]}",
	"{\"kind\":\"cohort.freeze/1\",\"games\":[{\"family\":\"f\",\"game_id\":\"g\"},2]}",
	"{\"kind\":\"cohort.freeze/1\",\"games\":{\"family\":\"f\"}}",
	"{\"kind\":\"cohort.fit/1\",\"games\":[{\"family\":\"f\"}]}",
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
	"[{\"games\":[1]}]",
	"{\"games\":[{\"id\":1,\"id\":2}]}",
	"{\"games\":[{\"family\":\"\xff\"}]}",
	"{\"games\":[{\"family\":\"a\"}",
	"{\"games\":[1],\"games\":[2]}",
	"{\"games\":[1],\"x\":1,\"games\":{}}",
};

static int
one(const char *doc)
{
	int bad = games_agree(doc, strlen(doc));

	if (bad)
		printf("# %s: %d differences\n", doc, bad);
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
