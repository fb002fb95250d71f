/* cmd.h: what every command shell shares: its entry point, and the one way
 * it reports an error and chooses an exit status (see err.h). */
#ifndef COHORT_CMD_H
#define COHORT_CMD_H

#include "../common/buf.h"
#include "../common/err.h"

#define COHORT_VERSION "0.1.0"
/* The source commit a release build was made from (make COHORT_COMMIT=...),
 * recorded in a bundle's RO-Crate metadata; none by default, so that a
 * bundle's bytes do not change with every commit of cohort itself. */
#ifndef COHORT_COMMIT
#define COHORT_COMMIT NULL
#endif

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
int cmd_prereg(int argc, char **argv);
int cmd_fingerprint(int argc, char **argv);
int cmd_distance(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Print "cohort NAME: message" to stderr; return the matching exit status.
 * (Usage errors and --help are opt.h's.) */
int cmd_fail(const char *name, const struct err *e);
/* The threads COHORT_JOBS asks for (1 to 256), or 0 (unset or anything
 * else): one per online processor.  Only the shells read the environment. */
int cmd_jobs(void);
/* A signing key's password: the first line of the file at path (none when
 * path is NULL: pw stays empty). */
int cmd_password(const char *path, struct buf *pw, struct err *e);

#endif
