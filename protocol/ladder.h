/* ladder.h: the adaptive ladder policy of a cohort spec, and its replay.
 *
 * One code path decides, for a condition's blocks in order, what the policy
 * says next: `freeze` uses it for each condition's state, `ladder next`
 * prints it, and `ladder simulate` runs it.  No allocation except in
 * ladder_replay, whose result ladder_state_release frees.
 *
 * Rules (decided where the spec leaves a case open; see docs/design.md):
 * - Block 1 is played at `start`.  A complete block (games >= block_games)
 *   scores S = (w + d/2) / games.
 * - The first `promote` row with S >= threshold moves up by its step,
 *   capped at `max`.  A promoting score at `max` itself stops the ladder
 *   (rule "ceiling"): there is no stronger anchor to climb to.
 * - Else S < stop_below stops (rule "stop_below").
 * - Else the block is middling: it is repeated at the same anchor while
 *   fewer than max_repeats repeats have been played there; a repeat is
 *   judged on its own block's score; once they are spent, the ladder stops
 *   (rule "repeats_exhausted").
 * - A block with fewer than block_games games is unfinished: the
 *   condition is active and the next anchor is the same one.
 * - A block played at an anchor the policy did not choose, a block after a
 *   stop, a block after an unfinished one, or a block with more games than
 *   block_games (scored on all of them) is a protocol deviation; the
 *   replay then carries on from the anchor actually played.
 */
#ifndef COHORT_LADDER_H
#define COHORT_LADDER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"

#define LADDER_MAX_PROMOTE 16

struct ladder_policy {
	int block_games;                        /* games in a full block */
	double start;                           /* first anchor */
	double max;                             /* highest anchor */
	size_t npromote;                        /* rows in promote */
	double promote_at[LADDER_MAX_PROMOTE];   /* score thresholds, as given */
	double promote_by[LADDER_MAX_PROMOTE];   /* anchor steps */
	double stop_below;                      /* stop when S < this */
	int max_repeats;                        /* repeats of a middling block */
};

/* One block of a condition, in ladder order. */
struct ladder_block {
	double anchor;
	int w, d, l; /* terminal games only */
};

enum ladder_rule {
	LADDER_START,          /* no block yet: play at start */
	LADDER_PROMOTE,        /* a promote row fired */
	LADDER_REPEAT,         /* middling: repeat at the same anchor */
	LADDER_STOP_BELOW,     /* S < stop_below */
	LADDER_REPEATS_SPENT,  /* middling with no repeat left */
	LADDER_CEILING,        /* promoting score at max */
	LADDER_UNFINISHED      /* last block has fewer than block_games games */
};

struct ladder_deviation {
	size_t block;    /* 1-based index in the condition */
	double anchor;   /* anchor played */
	double expected; /* anchor the policy chose (NAN after a stop) */
	const char *why; /* static text */
};

struct ladder_state {
	int stopped;            /* the stopping rule fired: condition terminal */
	double next;            /* next anchor (undefined when stopped) */
	enum ladder_rule rule;  /* the rule that fired last */
	double score;           /* last block's score (NAN with no block) */
	size_t ndev;
	struct ladder_deviation *dev; /* owned */
};

#define LADDER_STATE_INIT { 0, 0, LADDER_START, 0, 0, NULL }

/* Read the "ladder" object of a cohort.spec/1.  Errors name the field. */
int ladder_policy_read(const cJSON *ladder, struct ladder_policy *p, struct err *e);

/* Score of a block: (w + d/2) / games; NAN for an empty block. */
double ladder_score(const struct ladder_block *b);

/* Decide what follows one complete block at anchor, given how many repeats
 * were already played at that anchor.  Returns the rule and sets *next. */
enum ladder_rule ladder_step(const struct ladder_policy *p, double anchor, double score,
    int repeats_here, double *next);

/* Replay the policy over n blocks in order.  out must be LADDER_STATE_INIT
 * or released. */
int ladder_replay(const struct ladder_policy *p, const struct ladder_block *b, size_t n,
    struct ladder_state *out, struct err *e);
void ladder_state_release(struct ladder_state *s);

/* "promote", "repeat", "stop_below", ... */
const char *ladder_rule_name(enum ladder_rule r);

#endif
