/* candbuild.h: building a cohort.candidates/1 manifest with a real UCI
 * engine: the positions read (JSON Lines or EPD), each analysed in a
 * fresh game with a fixed node count, the MultiPV lines and optionally
 * every other legal move scored alone, the whole written as canonical
 * JSON Lines whose sha256sum is the manifest's identity.
 *
 * The engine session (candbuild_session_*) is shared with
 * `candidates verify` (candcheck.h), which analyses a manifest's positions
 * again with the same calls and compares the lines byte for byte.
 *
 * Ownership: a struct candbuild_positions owns its entries and their
 * strings (candbuild_positions_release); a session owns its engine
 * process (candbuild_session_free quits and reaps it, NULL-safe); trees
 * handed out belong to the caller (cJSON_Delete).  Everything passed in
 * is borrowed.  Errors: -1 (or NULL) with e set; input and engine errors
 * are ERR_INPUT or ERR_IO (exit 2).
 */
#ifndef COHORT_CANDBUILD_H
#define COHORT_CANDBUILD_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../chess/chess.h"
#include "../common/buf.h"
#include "../common/err.h"

#define CANDBUILD_MULTIPV 10         /* default --multipv */
#define CANDBUILD_MULTIPV_MAX 256    /* the manifest reader's limit */
#define CANDBUILD_NODES_MAX 1000000000000ULL
#define CANDBUILD_MAX_LINE ((size_t)1 << 20) /* longest positions line */
#define CANDBUILD_MAX_POSITIONS 1000000

/* One position to analyse, with what the manifest line says about it. */
struct candbuild_pos {
	char *id;                /* position_id */
	long line;               /* its line in the positions file */
	struct chess_pos pos;
	char fen[CHESS_FEN_MAX]; /* sent to the engine and written */
	const char *split;       /* a word of cand_split_names */
	char *opening;
	const char *phase;       /* a word of cand_phase_names */
	const char *kind;        /* a word of cand_kind_names */
};

struct candbuild_positions {
	struct candbuild_pos *p; /* in position_id order once read */
	size_t n, cap;
};

#define CANDBUILD_POSITIONS_INIT { NULL, 0, 0 }

/* Read a positions file (path "-": standard input): JSON Lines when its
 * first line that is neither blank nor a '#' comment starts with '{',
 * else EPD; see cohort-candidates(1) for the fields, the EPD opcodes and
 * the defaults.  The positions come back sorted by position_id.  Refused,
 * naming FILE:LINE: a FEN that does not read, a position with no legal
 * move, an unknown field or word, a position_id given twice (naming the
 * first line too), more than CANDBUILD_MAX_POSITIONS positions. */
int candbuild_positions_read(const char *path, struct candbuild_positions *ps, struct err *e);
void candbuild_positions_release(struct candbuild_positions *ps);

/* The default phase of a position: endgame when the non-pawn material of
 * both sides together (knight and bishop 3, rook 5, queen 9; 62 at the
 * start) is at most 26; opening when it is at least 58 and the full-move
 * number at most 15; middlegame otherwise. */
const char *candbuild_phase_of(const struct chess_pos *pos);

/* One engine option to send: NAME and VALUE as text. */
struct candbuild_option {
	const char *name;
	const char *value;
};

struct candbuild_setup {
	const char *engine;                  /* path, or a name looked up in PATH */
	uint64_t nodes;                      /* go nodes N */
	int multipv;                         /* setoption MultiPV K */
	const struct candbuild_option *opts; /* sent in this order */
	size_t nopts;
	int defaults;      /* also send Threads 1 and Hash 16 when the engine
	                      declares them and opts does not name them */
	double timeout_s;  /* one search; 0 for ENGINE_SEARCH_TIMEOUT_S */
};

struct candbuild_session;

/* Start the engine, send every option (refusing MultiPV among opts: it
 * is the setup's multipv; and buttons, which set nothing), MultiPV, then
 * isready; hash the resolved binary.  NULL with e set when the engine
 * cannot be started, is not UCI, or refuses an option. */
struct candbuild_session *candbuild_session_start(const struct candbuild_setup *s, struct err *e);
void candbuild_session_free(struct candbuild_session *s);

/* The binary's SHA-256 in lowercase hex, and its `id name`. */
const char *candbuild_session_digest(const struct candbuild_session *s);
const char *candbuild_session_name(const struct candbuild_session *s);

/* The header line's tree: kind, name, engine {name, binary_sha256,
 * options as sent (spins as integers, checks as booleans, others as
 * strings, under the engine's spelling), nodes, multipv}. */
cJSON *candbuild_session_header(const struct candbuild_session *s, const char *name, struct err *e);

/* Analyse p: ucinewgame, isready, position fen, go nodes N; the MultiPV
 * lines as candidates; with evals, every other legal move searched alone
 * (ucinewgame first each time) in UCI text order.  Every PV move and
 * bestmove is checked for legality.  The position line's tree, or NULL
 * with e set ("position ID: ..." then the engine's words). */
cJSON *candbuild_session_line(struct candbuild_session *s, const struct candbuild_pos *p, int evals,
    struct err *e);

struct candbuild_opts {
	const char *positions;   /* positions file, "-" for standard input */
	const char *name;        /* the header's name; NULL: the positions file's
	                            base name without its extension */
	struct candbuild_setup setup;
	int evals;
	const char *out;         /* output path; NULL or "-": standard output */
	/* called after each position when set: positions done, total */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};

/* The whole command: read the positions, open the output, analyse every
 * position, write the manifest's canonical lines (atomically to a file),
 * check that what was written reads back (cand_read) with the identity of
 * the bytes, and only then put it in place.  On any error nothing is
 * left at out and the engine is gone. */
int candbuild_run(const struct candbuild_opts *o, struct err *e);

#endif
