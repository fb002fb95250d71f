/* proc.c: an engine's process: posix_spawn, pipes, poll(2) with
 * deadlines, and an end that leaves nothing behind.
 *
 * SIGPIPE: a write to an engine that has died raises SIGPIPE, whose
 * default action kills us.  Library code should not change the process's
 * disposition, so each write blocks SIGPIPE in the calling thread, and a
 * SIGPIPE the write raised (EPIPE) is taken back with sigtimedwait before
 * the old mask returns; one that was already pending is left alone.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np, environ */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

#define BUF_CAP (ENGINE_LINE_MAX + 1) /* a longest line and its newline */

double
engine_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Milliseconds from now to deadline, rounded up, for poll. */
static int
ms_until(double deadline)
{
	double ms = (deadline - engine_now()) * 1000.0;

	if (ms <= 0)
		return 0;
	if (ms >= INT_MAX)
		return INT_MAX;
	return (int)ms + 1;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
engine_proc_init(struct engine_proc *p)
{
	memset(p, 0, sizeof *p);
	p->pid = -1;
	p->in = p->out = p->err = -1;
}

void
engine_tail_push(struct engine_tail *t, const char *s, size_t n)
{
	char *d = t->line[t->n % ENGINE_PROC_TAIL];

	if (n > ENGINE_PROC_TAIL_LEN)
		n = ENGINE_PROC_TAIL_LEN;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		d[i] = c < 0x20 || c >= 0x7f || c == '"' ? '?' : (char)c;
	}
	d[n] = '\0';
	t->n++;
}

void
engine_tail_format(const struct engine_tail *t, char *out, size_t n)
{
	unsigned first = t->n > ENGINE_PROC_TAIL ? t->n - ENGINE_PROC_TAIL : 0;
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = first; i < t->n && used < n; i++) {
		int w = snprintf(out + used, n - used, "%s\"%s\"", i > first ? " | " : "",
		    t->line[i % ENGINE_PROC_TAIL]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Our pipe ends must not be 0..2, or the child's dup2 onto them would
 * clobber one another (when we were started with those closed). */
static int
lift_fd(int *fd)
{
	if (*fd > 2)
		return 0;
	int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -1;
	close(*fd);
	*fd = nfd;
	return 0;
}

static int
make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if (lift_fd(&fds[0]) < 0 || lift_fd(&fds[1]) < 0) {
		close_fd(&fds[0]);
		close_fd(&fds[1]);
		return -1;
	}
	return 0;
}

static int
spawn(pid_t *pid, const char *file, char *const argv[], const int child[3])
{
	static const int defaulted[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	int rc;

	sigemptyset(&none);
	sigemptyset(&def);
	for (size_t i = 0; i < sizeof defaulted / sizeof defaulted[0]; i++)
		sigaddset(&def, defaulted[i]);
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = posix_spawn_file_actions_adddup2(&fa, child[i], i);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	/* descriptors the caller left inheritable are not the engine's */
	if (rc == 0)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
	/* a process group of its own, so one kill reaches its children too;
	 * an ignored SIGPIPE or a blocked signal of ours is not its business */
	if (rc == 0)
		rc = posix_spawnattr_setflags(&at,
		    POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &def);
	if (rc == 0)
		rc = posix_spawn(pid, file, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
engine_proc_start(struct engine_proc *p, const char *file, char *const argv[], struct err *e)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 };
	int rc;

	p->buf = malloc(BUF_CAP + 1);
	if (p->buf == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (make_pipe(in) < 0 || make_pipe(out) < 0 || make_pipe(er) < 0) {
		rc = errno;
		goto fail;
	}
	/* our writes wait in poll, never in write: an engine that stops
	 * reading cannot hang us past a deadline */
	if (fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK) < 0) {
		rc = errno;
		goto fail;
	}
	rc = spawn(&p->pid, file, argv, (const int[3]){ in[0], out[1], er[1] });
	if (rc != 0) {
		p->pid = -1;
		goto fail;
	}
	close(in[0]);
	close(out[1]);
	close(er[1]);
	p->in = in[1];
	p->out = out[0];
	p->err = er[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&er[i]);
	}
	return err_set(e, ERR_IO, "cannot run %s: %s", file, strerror(rc));
}

/* Wait until we may write again or the deadline passes. */
static int
wait_writable(int fd, double deadline)
{
	struct pollfd pf = { fd, POLLOUT, 0 };

	for (;;) {
		int rc = poll(&pf, 1, ms_until(deadline));
		if (rc > 0)
			return 0;
		if (rc == 0 && engine_now() >= deadline)
			return -1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

static int
write_all(int fd, const char *s, size_t n, double deadline, struct err *e)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(fd, s + done, n - done);
		if (w > 0) {
			done += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && errno == EAGAIN) {
			if (wait_writable(fd, deadline) < 0)
				return err_set(e, ERR_IO, "does not read its input");
		} else if (w < 0 && errno == EPIPE) {
			return err_set(e, ERR_IO, "stopped reading its input");
		} else {
			return err_set(e, ERR_IO, "cannot write to it: %s",
			    strerror(w < 0 ? errno : EIO));
		}
	}
	return 0;
}

int
engine_proc_send(struct engine_proc *p, const char *s, double deadline, struct err *e)
{
	sigset_t pipe_set, pending, old;
	int was_pending, rc;

	if (p->in < 0)
		return err_set(e, ERR_IO, "stopped reading its input");
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	rc = write_all(p->in, s, strlen(s), deadline, e);
	if (rc < 0 && !was_pending) {
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Read what stderr has and keep its last lines. */
static void
drain_err(struct engine_proc *p)
{
	struct engine_tail *t = &p->err_tail;
	char chunk[4096];
	ssize_t n = read(p->err, chunk, sizeof chunk);

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		if (t->npart > 0)
			engine_tail_push(t, t->part, t->npart);
		t->npart = 0;
		close_fd(&p->err);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (chunk[i] == '\n') {
			engine_tail_push(t, t->part, t->npart);
			t->npart = 0;
		} else if (chunk[i] != '\r' && t->npart < ENGINE_PROC_TAIL_LEN) {
			t->part[t->npart++] = chunk[i];
		}
	}
}

/* Wait for stdout to be readable, reading stderr meanwhile: 1 readable, 0
 * at the deadline, -1 on a poll failure. */
static int
wait_readable(struct engine_proc *p, double deadline, struct err *e)
{
	for (;;) {
		struct pollfd pf[2] = { { p->out, POLLIN, 0 }, { p->err, POLLIN, 0 } };
		int rc = poll(pf, p->err >= 0 ? 2 : 1, ms_until(deadline));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return err_set(e, ERR_IO, "cannot wait for its output: %s",
			    strerror(errno));
		if (p->err >= 0 && pf[1].revents != 0)
			drain_err(p);
		if (pf[0].revents != 0)
			return 1;
		if (rc == 0 && engine_now() >= deadline)
			return 0;
	}
}

/* A whole line in [off, len): cut it out. */
static int
take_line(struct engine_proc *p, char **line)
{
	char *start = p->buf + p->off;
	char *nl = memchr(p->buf + p->scanned, '\n', p->len - p->scanned);
	size_t n;

	if (nl == NULL) {
		p->scanned = p->len;
		return 0;
	}
	n = (size_t)(nl - start);
	*nl = '\0';
	p->off = p->scanned = n + 1 + p->off;
	if (n > 0 && start[n - 1] == '\r')
		start[--n] = '\0';
	engine_tail_push(&p->out_tail, start, n);
	*line = start;
	return 1;
}

/* The bytes after the last newline, as a line, once output has ended. */
static int
take_rest(struct engine_proc *p, char **line)
{
	char *start = p->buf + p->off;
	size_t n = p->len - p->off;

	if (n == 0)
		return 0;
	start[n] = '\0';
	p->off = p->scanned = p->len;
	engine_tail_push(&p->out_tail, start, n);
	*line = start;
	return 1;
}

int
engine_proc_line(struct engine_proc *p, double deadline, char **line, struct err *e)
{
	for (;;) {
		if (take_line(p, line))
			return 1;
		if (p->out_eof || p->out < 0)
			return take_rest(p, line) ? 1 : err_set(e, ERR_IO, "closed its output");
		if (p->len - p->off >= BUF_CAP)
			return err_set(e, ERR_INPUT, "printed a line longer than %d bytes",
			    ENGINE_LINE_MAX);
		if (p->off > 0) {
			memmove(p->buf, p->buf + p->off, p->len - p->off);
			p->len -= p->off;
			p->scanned -= p->off;
			p->off = 0;
		}
		int rc = wait_readable(p, deadline, e);
		if (rc <= 0)
			return rc;
		ssize_t n = read(p->out, p->buf + p->len, BUF_CAP - p->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, ERR_IO, "cannot read its output: %s", strerror(errno));
		if (n == 0)
			p->out_eof = 1;
		p->len += (size_t)n;
	}
}

/* Has the process exited?  Asked without reaping it, so that its id, and
 * its process group's, cannot be reused before our kill. */
static int
has_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD; /* reaped by someone else (SIGCHLD ignored) */
	return si.si_pid == pid;
}

/* Read and drop stdout, keep stderr, for up to ms: an engine blocked on a
 * full pipe could not exit. */
static void
drain_for(struct engine_proc *p, int ms)
{
	struct pollfd pf[2];
	nfds_t n = 0;
	char chunk[4096];

	if (p->out >= 0)
		pf[n++] = (struct pollfd){ p->out, POLLIN, 0 };
	if (p->err >= 0)
		pf[n++] = (struct pollfd){ p->err, POLLIN, 0 };
	if (poll(pf, n, ms) <= 0)
		return;
	for (nfds_t i = 0; i < n; i++) {
		if (pf[i].revents == 0)
			continue;
		if (pf[i].fd == p->err) {
			drain_err(p);
		} else {
			ssize_t r = read(p->out, chunk, sizeof chunk);
			if (r == 0 || (r < 0 && errno != EINTR))
				close_fd(&p->out);
		}
	}
}

static void
reap(struct engine_proc *p)
{
	int status;
	pid_t r;

	while ((r = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r == p->pid) {
		p->status = status;
		p->status_known = 1;
	}
	p->pid = -1;
}

void
engine_proc_end(struct engine_proc *p, double grace_s)
{
	close_fd(&p->in);
	if (p->pid > 0) {
		double deadline = engine_now() + grace_s;
		int done;
		while (!(done = has_exited(p->pid)) && engine_now() < deadline) {
			int ms = ms_until(deadline);
			drain_for(p, ms < 5 ? ms : 5);
		}
		p->ended_alone = done;
		/* the leader is not reaped yet, so the group id is still ours */
		kill(-p->pid, SIGKILL);
		reap(p);
	}
	if (p->err >= 0)
		drain_for(p, 0);
	close_fd(&p->out);
	close_fd(&p->err);
	free(p->buf);
	p->buf = NULL;
	p->off = p->len = p->scanned = 0;
}

void
engine_proc_status(const struct engine_proc *p, char *out, size_t n)
{
	out[0] = '\0';
	if (!p->ended_alone || !p->status_known)
		return;
	if (WIFEXITED(p->status))
		snprintf(out, n, "exited with status %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(out, n, "killed by signal %d", WTERMSIG(p->status));
}
