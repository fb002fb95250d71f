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

/* A confidence level lies in [RULES_LEVEL_MIN, RULES_LEVEL_MAX], where
 * the chi-square cut stays well above the rounding noise of a
 * log-likelihood (q >= 1.6e-6) and finite. */
#define RULES_LEVEL_MIN 0.001
#define RULES_LEVEL_MAX 0.999999

/* 0 when level is within those limits; else -1 with e set (code, and
 * "WHAT: expected a level from 0.001 to 0.999999"). */
int rules_level_check(double level, enum err_code code, const char *what, struct err *e);
/* A level given as text (an option): the whole text a finite number within
 * the limits; ERR_USAGE otherwise, naming what. */
int rules_level_parse(const char *text, const char *what, double *out, struct err *e);
/* The whole text a finite number: 0, or -1. */
int rules_number(const char *text, double *out);

/* 0 when p is a penalty within RULES_MAX_PENALTY; else -1 with e set
 * (code, and "WHAT: expected a number from -1000 to 1000"). */
int rules_penalty_check(double p, enum err_code code, const char *what, struct err *e);
/* The same for an anchor. */
int rules_anchor_check(double a, enum err_code code, const char *what, struct err *e);

#endif
