/* proc.h: the engine's process, for engine.c: spawning it, writing
 * commands, reading its lines with a deadline, ending it.
 *
 * Ownership: a struct engine_proc owns the child and three pipe ends from
 * engine_proc_start until engine_proc_end, which always leaves no process
 * behind and may be called again.  A line returned by engine_proc_line
 * points into the proc's buffer and lives until the next call.
 * Deadlines are engine_now() seconds (CLOCK_MONOTONIC).
 */
#ifndef COHORT_ENGINE_PROC_H
#define COHORT_ENGINE_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "../common/err.h"

#define ENGINE_PROC_TAIL 3      /* lines kept of stdout and of stderr */
#define ENGINE_PROC_TAIL_LEN 120 /* bytes kept of each */

struct engine_tail {
	char line[ENGINE_PROC_TAIL][ENGINE_PROC_TAIL_LEN + 1];
	unsigned n;                      /* lines pushed so far */
	char part[ENGINE_PROC_TAIL_LEN + 1]; /* stderr: the line not yet ended */
	size_t npart;
};

struct engine_proc {
	pid_t pid;            /* -1 before start and once reaped */
	int in, out, err;     /* our pipe ends, -1 when closed */
	char *buf;            /* stdout bytes: [off, len) not yet returned */
	size_t off, len, scanned;
	int out_eof;          /* stdout has ended */
	struct engine_tail out_tail, err_tail;
	int ended_alone;      /* the process had exited before we killed it */
	int status_known;     /* status holds its wait status */
	int status;
};

void engine_proc_init(struct engine_proc *p);
/* Run file with argv in a new process group, stdin, stdout and stderr on
 * pipes, every other descriptor closed. */
int engine_proc_start(struct engine_proc *p, const char *file, char *const argv[], struct err *e);
/* Write s whole before deadline; a dead reader is an error, not SIGPIPE. */
int engine_proc_send(struct engine_proc *p, const char *s, double deadline, struct err *e);
/* The next line of stdout without its newline (and CR): 1 and *line, 0 at
 * the deadline, -1 at the end of output or a line over ENGINE_LINE_MAX. */
int engine_proc_line(struct engine_proc *p, double deadline, char **line, struct err *e);
/* Close stdin, wait up to grace_s for the process to exit, kill its
 * process group, reap it, close everything.  Safe to repeat. */
void engine_proc_end(struct engine_proc *p, double grace_s);
/* "exited with status 3" or "killed by signal 11", "" when we killed it
 * or before the end. */
void engine_proc_status(const struct engine_proc *p, char *out, size_t n);
/* The kept lines, quoted and joined with " | ", "" when none. */
void engine_tail_format(const struct engine_tail *t, char *out, size_t n);
/* Push a line (truncated, control bytes shown as '?'). */
void engine_tail_push(struct engine_tail *t, const char *s, size_t n);

double engine_now(void);

#endif
