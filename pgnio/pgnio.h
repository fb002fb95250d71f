/* pgnio.h: chess games in PGN into ledger records and back, and W-D-L
 * blocks as a PGN of results that Ordo reads.
 *
 * Import (`cohort import pgn`): every game of every file is read with the
 * chess core (chess/pgn.h), so every move is checked; its tags become a
 * ledger record through a tag map (cohort.pgn-map/1, map.c and
 * cohort-import(1)): which player is the model, where the family,
 * condition, block, game id and the anchor come from.  The built-in map
 * reads the tags cutechess-cli and fastchess write (White, Black,
 * WhiteElo, BlackElo, TimeControl, Termination, PlyCount, GameStartTime,
 * GameEndTime, FEN/SetUp) and the Cohort* tags the exporter writes; a map
 * file replaces it key by key.  Tags the map does not read are kept in the
 * record under "pgn_tags", and the moves as a "moves" array of UCI
 * strings.
 *
 * Export (`cohort export pgn`): the games a freeze includes, from its
 * store, in the freeze's order, as export-format PGN that the built-in
 * map reads back into the same records.  Every tag holds a plain value
 * (no quote, backslash or JSON), so that any PGN reader takes it; what no
 * tag can hold (requests, the record's other fields) is one line of JSON
 * in a ';' comment before the moves.  With the players named by condition
 * ("luna/top5" against "anchor-1320"), a rating program such as Ordo
 * rates the conditions and anchors.  `cohort export blocks
 * --format ordo`: one result-only game per game of every block, players
 * named "<family>/<condition>" and "anchor-<elo>".
 *
 * Ownership: a struct pgnio_map is the caller's (pgnio_map_free, which
 * takes NULL); outputs are appended to the caller's buffers.  Nothing here
 * prints: refused games go to the caller's callback, one message each.
 */
#ifndef COHORT_PGNIO_H
#define COHORT_PGNIO_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

struct pgnio_map;

/* The map to import with: the built-in map, with each key of the map file
 * at path (NULL: none) in place of its own.  Errors name the file and the
 * key: `map.json: "anchor.elox": unknown key`. */
int pgnio_map_open(const char *path, struct pgnio_map **out, struct err *e);
/* The same from the bytes of a map file named name (for the fuzz target). */
int pgnio_map_parse(const char *p, size_t n, const char *name, struct pgnio_map **out,
    struct err *e);
void pgnio_map_free(struct pgnio_map *m);
/* Check a map document given as a tree (a bundle's item, `cohort verify
 * map.json`): 0 and *keys, the number of keys it sets over the built-in
 * map; -1 with e saying what is wrong, as pgnio_map_open would. */
int pgnio_map_check(const cJSON *doc, const char *name, size_t *keys, struct err *e);

/* Called once for each game refused, with its message
 * ("games.pgn:12: game 3, move 17... Nxe5: illegal in this position"). */
typedef void (*pgnio_refused_fn)(void *ctx, const char *msg);

struct pgnio_import_opts {
	const char *const *files; /* PGN files; "-" is standard input */
	size_t nfiles;
	const struct pgnio_map *map;
	pgnio_refused_fn refused;
	void *ctx;
};

/* Append one canonical ledger record per game, each followed by a line
 * feed, to out, in the order of the files and of their games; returns the
 * number of records.  Every game is read even after one is refused; then
 * -1 is returned, e saying how many were refused (ERR_INPUT), and out
 * holds nothing the caller should write.  A file that cannot be read is
 * an error at once. */
long pgnio_import(const struct pgnio_import_opts *o, struct buf *out, struct err *e);

struct pgnio_export_opts {
	const char *freeze; /* the freeze's path */
	const char *store;  /* its object store; NULL: "store" beside the freeze */
	int by_condition;   /* White and Black name the condition and the anchor */
};

/* Append the PGN of every game the freeze includes, read from the store,
 * in the freeze's order.  With by_condition and anchors not NULL, Ordo's
 * file of the anchors is appended to anchors too (as pgnio_export_ordo
 * writes it).  A record that is not in the store, does not hash to its
 * identity, or whose moves are not legal is an input error naming its
 * game_id. */
int pgnio_export_pgn(const struct pgnio_export_opts *o, struct buf *out, struct buf *anchors,
    struct err *e);

/* Append a PGN of results for Ordo made from the blocks of the freeze or
 * blocks document at path (protocol/blocks.h): for each block in order, its
 * wins, draws and losses, one game each.  When anchors is not NULL, Ordo's
 * multi-anchor file ("anchor-1320",1320 a line, each anchor once, in order
 * of first use) is appended to it. */
int pgnio_export_ordo(const char *path, struct buf *pgn, struct buf *anchors, struct err *e);

#endif
