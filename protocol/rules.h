/* rules.h: the limits every reader of the protocol's numbers applies, so
 * a spec, a blocks document and a command-line option accept the same
 * values.
 */
#ifndef COHORT_RULES_H
#define COHORT_RULES_H

#include "../common/err.h"

/* An anchor (an opponent's configured Elo) lies within this many Elo of 0. */
#define RULES_MAX_ANCHOR 100000.0
/* A colour penalty lies within this many Elo of 0. */
#define RULES_MAX_PENALTY 1000.0
/* Wins, draws or losses of one block. */
#define RULES_MAX_COUNT 1000000000LL

/* 0 when p is a penalty within RULES_MAX_PENALTY; else -1 with e set
 * (code, and "WHAT: expected a number from -1000 to 1000"). */
int rules_penalty_check(double p, enum err_code code, const char *what, struct err *e);
/* The same for an anchor. */
int rules_anchor_check(double a, enum err_code code, const char *what, struct err *e);

#endif
