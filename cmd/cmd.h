/* cmd.h: what every command shell shares: its entry point, and the one way
 * it reports an error and chooses an exit status (see err.h). */
#ifndef COHORT_CMD_H
#define COHORT_CMD_H

#include "../common/err.h"

#define COHORT_VERSION "0.1.0"

/* Each command: argv[0] is the command name. Returns the exit status. */
int cmd_canon(int argc, char **argv);
int cmd_freeze(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_reconcile(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_bound(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
int cmd_candidates(int argc, char **argv);
int cmd_paired(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Print "cohort NAME: message" to stderr; return the matching exit status.
 * (Usage errors and --help are opt.h's.) */
int cmd_fail(const char *name, const struct err *e);
/* The threads COHORT_JOBS asks for (1 to 256), or 0 (unset or anything
 * else): one per online processor.  Only the shells read the environment. */
int cmd_jobs(void);

#endif
