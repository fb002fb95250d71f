/* candidates.h: the cached engine candidates of paired positions
 * (cohort.candidates/1), read once for every command that uses them:
 * freeze (to check decisions), paired, candidates verify, fingerprint.
 *
 * The manifest is JSON Lines: line 1 the header, then one position a line
 * in position_id order (byte order, strictly increasing).  Its identity is
 * "sha256:" + the SHA-256 of every line's canonical bytes, each followed
 * by a line feed; a manifest cohort writes is exactly those bytes, so
 * sha256sum of the file equals it.
 *
 * What the reader refuses (exit 2, `FILE:LINE: "field": what`): a header
 * that is not a cohort.candidates/1 with engine {name, binary_sha256,
 * options, nodes, multipv}; a position whose FEN does not read; a split,
 * phase or kind outside the contract's words; "to_move" other than the
 * FEN's side; a candidate that is not a legal move, given twice, or with
 * neither or both of "cp" and "mate"; more candidates than multipv; an
 * "evals" move that is not legal or is also a candidate.  What it leaves
 * to `candidates verify` (findings, exit 1): principal variations, SAN
 * text, the order of the scores.
 *
 * Ownership: struct candidates owns its trees and arrays (cand_release);
 * every string and struct handed out lives until then.
 */
#ifndef COHORT_CANDIDATES_H
#define COHORT_CANDIDATES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../chess/chess.h"
#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"

/* A manifest is read whole: a position's line is a few kilobytes, so a
 * gigabyte holds hundreds of thousands of positions. */
#define CAND_MAX_BYTES ((size_t)1 << 30)

enum cand_split { CAND_EXPLORE, CAND_CONFIRM, CAND_HELDOUT };
enum cand_phase { CAND_OPENING, CAND_MIDDLEGAME, CAND_ENDGAME };
enum cand_kind { CAND_TACTICAL, CAND_AMBIGUOUS, CAND_QUIET };
enum cand_bound { CAND_EXACT = 0, CAND_UPPER, CAND_LOWER };

/* Value of a mate in n in centipawns: 100000 - 100n (mated in n: its
 * negative), wherever values are compared. */
#define CAND_MATE_CP 100000
#define CAND_MATE_STEP 100

/* A scored move: a candidate or an evals entry. */
struct cand_move {
	struct chess_move m;
	char uci[CHESS_UCI_MAX];
	int mate;          /* the score is a mate count */
	long score;        /* centipawns, or moves to mate (negative: mated) */
	enum cand_bound bound;
	const cJSON *pv;   /* the principal variation as given, or NULL */
	const cJSON *san;  /* the SAN as given, or NULL */
};

struct cand_position {
	const char *id;
	long line;                  /* its line in the manifest */
	struct chess_pos pos;
	const char *fen;
	enum cand_split split;
	const char *opening;
	enum cand_phase phase;
	enum cand_kind kind;
	size_t ncand;               /* candidates, best first as the engine gave them */
	struct cand_move *cand;
	size_t neval;               /* other legal moves searched alone */
	struct cand_move *evals;
	int nlegal;                 /* the position's legal moves, generated once */
	struct chess_move *legal;   /* for every decision read against it */
	uint64_t *legal_uci;        /* their UCI texts, packed (cand_legal_move) */
	const cJSON *json;          /* the line's tree */
};

struct candidates {
	char id[HASH_ID_LEN + 1];
	const char *path;
	const cJSON *head;          /* the header line */
	const char *name;
	const cJSON *engine;        /* the header's engine object */
	long multipv, nodes;
	size_t n;
	struct cand_position *p;    /* in position_id order */
	cJSON **trees;              /* the header's and each position's tree */
	size_t ntrees;
	char file_id[HASH_ID_LEN + 1]; /* "sha256:" + the SHA-256 of the bytes as
	                             * read (what sha256sum prints of the file):
	                             * id itself when they are the canonical lines */
};

#define CANDIDATES_INIT { { 0 }, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, 0, { 0 } }

/* Read path ("-": standard input).  On failure c is left released. */
int cand_read(const char *path, struct candidates *c, struct err *e);
/* The same from bytes (a stored manifest), named name in messages. */
int cand_read_bytes(const char *p, size_t n, const char *name, struct candidates *c,
    struct err *e);
/* c's file_id where it differs from its identity (a manifest another
 * tool wrote), else NULL. */
const char *cand_file_id(const struct candidates *c);
/* The manifest's canonical bytes (its identity's), appended to out. */
int cand_canonical(const struct candidates *c, struct buf *out, struct err *e);
void cand_release(struct candidates *c);

/* The legal move of p whose UCI text is text: 0, or -1 when none.  The
 * texts chess_uci_among takes for p's legal moves, looked up among the
 * position's own, made once (a million decisions' moves are read). */
int cand_legal_move(const struct cand_position *p, const char *text, struct chess_move *m);

/* The position of an id, or NULL (binary search). */
const struct cand_position *cand_find(const struct candidates *c, const char *position_id);

/* A move's value in centipawns (a mate as CAND_MATE_CP - CAND_MATE_STEP n). */
long cand_value(const struct cand_move *m);

/* Where a move stands in p: its candidate index (0 best) with *rank set,
 * or among evals (*rank -1), returning the scored move; NULL when neither
 * scored it. */
const struct cand_move *cand_score_of(const struct cand_position *p, struct chess_move m,
    int *rank);

extern const char *const cand_split_names[3];
extern const char *const cand_phase_names[3];
extern const char *const cand_kind_names[3];

#endif
