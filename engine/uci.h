/* uci.h: reading the lines a UCI engine prints, for engine.c and its
 * tests.  Pure functions of one line: no process, no I/O.
 *
 * Lines are taken as words separated by blanks (spaces and tabs).  The
 * functions cut words in place, so the line is changed.  Ownership: an
 * engine_info or engine_option filled here owns its allocations;
 * engine_info_release and engine_option_release free them.
 */
#ifndef COHORT_ENGINE_UCI_H
#define COHORT_ENGINE_UCI_H

#include "../common/err.h"
#include "engine.h"

/* The next word at *cur, NUL-terminated in place; NULL when none is left. */
char *engine_uci_word(char **cur);
/* The rest of the line at *cur, blanks trimmed at both ends. */
char *engine_uci_rest(char **cur);

#define ENGINE_SHOWN_MAX 80

/* s fit to quote in a message: cut at ENGINE_SHOWN_MAX bytes, control
 * bytes, non-ASCII and quotes shown as '?'.  Returns out. */
const char *engine_uci_shown(const char *s, char out[ENGINE_SHOWN_MAX + 1]);

/* 1 when s is a move in UCI notation: from and to squares, a1..h8, and an
 * optional promotion q, r, b or n. */
int engine_uci_move_ok(const char *s);

/* Read the words after "info".  0 and *out filled (multipv 1 unless
 * given); 1 for a line to ignore (`info string ...`); -1 when malformed.
 * Unknown words are skipped, as the protocol says. */
int engine_uci_info(char *cur, struct engine_info *out, struct err *e);
void engine_info_release(struct engine_info *in);

/* Read the words after "option".  0 and *out filled; -1 when malformed
 * (no name, an unknown type, a spin without integer min and max). */
int engine_uci_option(char *cur, struct engine_option *out, struct err *e);
void engine_option_release(struct engine_option *o);

/* Read the words after "bestmove" into best and ponder ("" for "(none)",
 * "0000", or no ponder); -1 when a move is malformed. */
int engine_uci_bestmove(char *cur, char best[8], char ponder[8], struct err *e);

#endif
