/* engine.h: a UCI chess engine run as a child process.
 *
 * engine_new starts the program (no shell), speaks the UCI handshake and
 * keeps the engine's name and declared options; engine_search sends one
 * position and one limit and reads the engine's analysis up to its
 * bestmove.  The driver knows the protocol, not chess: it checks the
 * syntax of moves, never their legality.  No threads and no global state;
 * SIGPIPE is held off per write (see engine/proc.c), never ignored for the
 * whole process.
 *
 * Ownership: a struct engine owns its process.  engine_free sends `quit`,
 * gives the engine ENGINE_QUIT_GRACE_S to exit, then kills its process
 * group and reaps it, so no process or zombie outlives the handle.  Strings
 * and options returned by the engine_* getters belong to the engine and
 * live until engine_free.  A struct engine_result owns its lines and their
 * moves; engine_result_release frees them.
 *
 * Errors: functions return 0 (or a pointer) on success and -1 (or NULL)
 * with e filled.  A refused argument (an undeclared option, a value out of
 * range, a malformed FEN or move, an empty limit) sends nothing and leaves
 * the engine as it was.  Every other error (a timeout, the engine dying or
 * breaking the protocol, a line longer than ENGINE_LINE_MAX) ends the
 * engine's process on the spot, because its output can no longer be
 * trusted to match our questions: the handle then answers every call with
 * that first error, and only engine_free is left to call.
 */
#ifndef COHORT_ENGINE_H
#define COHORT_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/err.h"

#define ENGINE_SEARCH_TIMEOUT_S 60.0 /* default limit on one search */
#define ENGINE_READY_TIMEOUT_S 10.0  /* default for the handshake and isready */
#define ENGINE_STOP_GRACE_S 1.0      /* wait for bestmove after `stop` (at most) */
#define ENGINE_QUIT_GRACE_S 1.0      /* wait for exit after `quit` */
#define ENGINE_LINE_MAX 65536        /* longest line read, without its newline */
#define ENGINE_OPTIONS_MAX 1024      /* options an engine may declare */
#define ENGINE_MULTIPV_MAX 1024      /* highest multipv index read */
#define ENGINE_FEN_MAX 256           /* longest FEN sent */

struct engine;

struct engine_opts {
	const char *const *argv_extra; /* arguments after the program's name,
	                                  NULL-terminated; NULL for none */
	double timeout_s;              /* one search; 0 for ENGINE_SEARCH_TIMEOUT_S */
	double ready_timeout_s;        /* handshake, isready; 0 for ENGINE_READY_TIMEOUT_S */
};

enum engine_opt_type {
	ENGINE_OPT_CHECK,
	ENGINE_OPT_SPIN,
	ENGINE_OPT_COMBO,
	ENGINE_OPT_BUTTON,
	ENGINE_OPT_STRING
};

/* One `option name N type T ...` line of the handshake. */
struct engine_option {
	char *name;                /* as declared (matched without case) */
	enum engine_opt_type type;
	char *def;                 /* default, NULL when none was given */
	long long min, max;        /* spin only */
	char **vars;               /* combo values, nvars of them */
	size_t nvars;
};

/* How a search ends; at least one field must be set. */
struct engine_limit {
	uint64_t nodes;       /* go nodes N; 0 for none */
	int depth;            /* go depth D; 0 for none */
	uint64_t movetime_ms; /* go movetime T; 0 for none */
};

enum { ENGINE_EXACT = 0, ENGINE_UPPER = 1, ENGINE_LOWER = 2 };

/* One principal variation, from an `info` line. */
struct engine_info {
	int multipv;              /* 1.. (1 when the engine gave none) */
	int depth, seldepth;      /* 0 when not given */
	int has_cp, cp;           /* score cp, from the side to move */
	int has_mate, mate;       /* score mate: moves, negative when mated */
	int bound;                /* ENGINE_EXACT, ENGINE_UPPER or ENGINE_LOWER */
	uint64_t nodes, nps, time_ms;
	char **pv;                /* npv moves in UCI notation ("e7e8q") */
	size_t npv;
};

/* A search's outcome.  lines[i] is multipv i + 1: the last info line
 * before bestmove of that index that has a score and a pv, among those of
 * the highest depth.  An index the engine never reported has npv 0. */
struct engine_result {
	struct engine_info *lines;
	size_t nlines;
	char bestmove[8]; /* "" when the engine had no move ("(none)", "0000") */
	char ponder[8];   /* "" when none */
	uint64_t nodes;   /* the highest nodes count of any info line, 0 if none */
	uint64_t time_ms; /* the highest time of any info line, 0 if none */
};

#define ENGINE_RESULT_INIT { NULL, 0, "", "", 0, 0 }

/* Start the engine at path (searched in PATH when it has no slash) with
 * opts (may be NULL), and finish the UCI handshake.  A program that prints
 * no uciok within the ready timeout, or exits first, is refused with the
 * first lines it printed. */
struct engine *engine_new(const char *path, const struct engine_opts *opts, struct err *e);
/* Quit (or kill) and reap the engine, free the handle.  NULL does nothing. */
void engine_free(struct engine *g);

/* The id name and id author lines ("" when the engine sent none). */
const char *engine_name(const struct engine *g);
const char *engine_author(const struct engine *g);
/* The program run: absolute, symbolic links resolved, for hashing. */
const char *engine_binary_path(const struct engine *g);
/* The process's id, -1 once it has ended. */
pid_t engine_pid(const struct engine *g);

size_t engine_option_count(const struct engine *g);
const struct engine_option *engine_option_at(const struct engine *g, size_t i);
/* The option declared as name (ASCII case ignored), NULL when none. */
const struct engine_option *engine_option_find(const struct engine *g, const char *name);

/* Limit on later searches, in seconds (> 0). */
void engine_set_timeout(struct engine *g, double seconds);

/* setoption name N value V.  Refused unless the engine declared N; a
 * spin's value must be an integer within min..max, a check's true or
 * false, a combo's one of its vars, a button's NULL or "".  The option's
 * declared spelling is sent.  Does not wait: call engine_isready. */
int engine_setoption(struct engine *g, const char *name, const char *value, struct err *e);
/* isready, then wait for readyok (lines in between are ignored). */
int engine_isready(struct engine *g, struct err *e);
/* ucinewgame, then isready. */
int engine_newgame(struct engine *g, struct err *e);

/* Search fen (NULL for the start position) within lim, restricted to the
 * n searchmoves when n > 0, and fill *out (ENGINE_RESULT_INIT or an earlier
 * result, which is released first).  A bestmove outside the searchmoves is
 * an error.  When the search outlasts the timeout: `stop`, a short wait
 * for bestmove, then the engine is killed and the error says so. */
int engine_search(struct engine *g, const char *fen, const struct engine_limit *lim,
    const char *const *searchmoves, size_t n, struct engine_result *out, struct err *e);

void engine_result_release(struct engine_result *r);

#endif
