/* games.h: a freeze manifest's "games" held flat.
 *
 * Readers that need of each included game only its identity, family,
 * condition and game_id (the archive verifier, the reviewer's page) parse
 * the manifest with that array skipped (json_parse_skip, key
 * { NULL, "games" }, freeze_games_tok as its tok) and get here, for each
 * element in order, the strings "family", "condition" and "game_id" (NULL
 * where the element has no such string) and its "id" (has_id: a valid
 * identity).  The rest of the manifest stays a tree.
 */
#ifndef COHORT_PROTOCOL_GAMES_H
#define COHORT_PROTOCOL_GAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "../json/json.h"

struct freeze_game {
	uint8_t id[HASH_LEN];
	uint32_t at[3]; /* family, condition, game_id: offsets in text, 0 none */
	unsigned char has_id;
};
struct freeze_games {
	struct freeze_game *g;
	size_t n, cap;
	struct buf text;
	uint32_t last[2]; /* the last family and condition kept */
	int want;         /* the field whose value comes next, or -1 */
};
#define FREEZE_GAMES_INIT { NULL, 0, 0, BUF_INIT, { 0, 0 }, -1 }

/* json_skip's tok (arg: a struct freeze_games). */
int freeze_games_tok(void *arg, const struct json_tok *t, int depth, struct err *e);
/* Game i's "family", "condition" or "game_id", or NULL. */
const char *freeze_game_str(const struct freeze_games *g, size_t i, const char *field);
/* 1 when some game's game_id is id. */
int freeze_games_has(const struct freeze_games *g, const char *id);
void freeze_games_release(struct freeze_games *g);
/* The JSON document in p[0..n) (named name in errors), a freeze's games
 * held flat in a new *games, else *games NULL: a freeze manifest read
 * without the tree of its games, anything else as json_parse reads it (a
 * document of another kind whose top-level "games" array was skipped is
 * read again whole).  NULL with e set.  The readers of the publication
 * gate, the archive verifier and the reviewer's page. */
cJSON *freeze_games_parse(const char *p, size_t n, const char *name, struct freeze_games **games,
    struct err *e);
/* freeze_games_release, and g itself freed (g may be NULL). */
void freeze_games_free(struct freeze_games *g);

#endif
