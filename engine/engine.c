/* engine.c: the UCI conversation: handshake, options, isready, searches,
 * and the rule that an engine which misbehaves is ended at once. */
#include "engine.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buf.h"
#include "proc.h"
#include "uci.h"

#define HANDSHAKE_LINES_MAX 10000 /* lines before uciok */
#define VALUE_MAX 4096            /* longest option value sent */

struct engine {
	struct engine_proc proc;
	char *path;                   /* as the caller gave it */
	char *binary;                 /* absolute, links resolved */
	char *name, *author;          /* id lines, "" when none */
	struct engine_option *opts;
	size_t nopts;
	double timeout_s, ready_s;
	struct engine_tail first;     /* the first lines of the handshake */
	int saw_uci;                  /* an id or option line came */
	int dead;                     /* the process has ended: dead_msg says why */
	enum err_code dead_code;
	char dead_msg[sizeof ((struct err *)0)->msg];
};

/* 1 when s has only printable ASCII: nothing can end a command early. */
static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

/* End the process after an error and keep the error as the handle's.
 * lines, when not NULL, are quoted as the first lines it printed; else the
 * last ones are.  Returns -1. */
static int __attribute__((format(printf, 6, 7)))
fail(struct engine *g, struct err *e, enum err_code code, double grace_s,
    const struct engine_tail *lines, const char *fmt, ...)
{
	char what[512], status[64], out[512], errs[512];
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	engine_proc_end(&g->proc, grace_s);
	/* a status only when the engine was given time to end by itself */
	status[0] = '\0';
	if (grace_s > 0)
		engine_proc_status(&g->proc, status, sizeof status);
	engine_tail_format(lines ? lines : &g->proc.out_tail, out, sizeof out);
	engine_tail_format(&g->proc.err_tail, errs, sizeof errs);
	/* too long a message loses its end, the engine's lines, first */
	if (buf_printf(&b, "engine %s: %s%s%s%s%s%s%s%s", g->path, what, status[0] ? " (" : "",
	        status, status[0] ? ")" : "",
	        out[0] ? (lines ? "; first lines: " : "; last output: ") : "", out,
	        errs[0] ? "; stderr: " : "", errs) < 0)
		snprintf(g->dead_msg, sizeof g->dead_msg, "out of memory");
	else
		snprintf(g->dead_msg, sizeof g->dead_msg, "%.*s", (int)sizeof g->dead_msg - 1, b.p);
	buf_release(&b);
	g->dead = 1;
	g->dead_code = code;
	return err_set(e, code, "%s", g->dead_msg);
}

static int
check_alive(const struct engine *g, struct err *e)
{
	return g->dead ? err_set(e, g->dead_code, "%s", g->dead_msg) : 0;
}

static int
send_cmd(struct engine *g, const char *cmd, struct err *e)
{
	struct err why = ERR_INIT;

	if (engine_proc_send(&g->proc, cmd, engine_now() + g->ready_s, &why) < 0)
		return fail(g, e, ERR_IO, 1.0, NULL, "%s", why.msg);
	return 0;
}

/* A line, or the end of the engine when its output ends or breaks:
 * 1 and *line, 0 at the deadline, -1 failed.  during says where. */
static int
next_line(struct engine *g, double deadline, char **line, const char *during, struct err *e)
{
	struct err why = ERR_INIT;
	int rc = engine_proc_line(&g->proc, deadline, line, &why);

	if (rc < 0)
		return fail(g, e, why.code, g->proc.out_eof ? 1.0 : 0, NULL, "%s %s", why.msg,
		    during);
	return rc;
}

/* ---- finding the program ---- */

static char *
find_in_path(const char *name)
{
	const char *dirs = getenv("PATH");
	struct buf b = BUF_INIT;
	char *found = NULL;

	if (dirs == NULL || *dirs == '\0')
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (found == NULL) {
		const char *end = strchr(dirs, ':');
		size_t n = end ? (size_t)(end - dirs) : strlen(dirs);
		struct stat st;
		buf_reset(&b);
		if (buf_add(&b, n ? dirs : ".", n ? n : 1) < 0 || buf_printf(&b, "/%s", name) < 0)
			break;
		if (stat(b.p, &st) == 0 && S_ISREG(st.st_mode) && access(b.p, X_OK) == 0)
			found = realpath(b.p, NULL);
		if (end == NULL)
			break;
		dirs = end + 1;
	}
	buf_release(&b);
	return found;
}

static char *
resolve_binary(const char *path, struct err *e)
{
	struct stat st;
	char *r;

	if (strchr(path, '/') == NULL) {
		if ((r = find_in_path(path)) == NULL)
			err_set(e, ERR_IO, "engine %s: not found in PATH", path);
		return r;
	}
	if ((r = realpath(path, NULL)) == NULL) {
		err_set(e, ERR_IO, "engine %s: %s", path, strerror(errno));
		return NULL;
	}
	if (stat(r, &st) < 0 || !S_ISREG(st.st_mode) || access(r, X_OK) < 0) {
		err_set(e, ERR_IO, "engine %s: not an executable file", path);
		free(r);
		return NULL;
	}
	return r;
}

/* ---- the handshake ---- */

const struct engine_option *
engine_option_find(const struct engine *g, const char *name)
{
	for (size_t i = 0; g != NULL && name != NULL && i < g->nopts; i++)
		if (strcasecmp(g->opts[i].name, name) == 0)
			return &g->opts[i];
	return NULL;
}

static int
add_option(struct engine *g, char *cur, struct err *e)
{
	struct engine_option o;
	char q[ENGINE_SHOWN_MAX + 1];

	if (g->nopts >= ENGINE_OPTIONS_MAX)
		return err_set(e, ERR_INPUT, "declares more than %d options", ENGINE_OPTIONS_MAX);
	if (engine_uci_option(cur, &o, e) < 0)
		return -1;
	if (engine_option_find(g, o.name) != NULL) {
		err_set(e, ERR_INPUT, "declares option \"%s\" twice", engine_uci_shown(o.name, q));
		engine_option_release(&o);
		return -1;
	}
	struct engine_option *t = realloc(g->opts, (g->nopts + 1) * sizeof *t);
	if (t == NULL) {
		engine_option_release(&o);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	g->opts = t;
	g->opts[g->nopts++] = o;
	return 0;
}

static int
set_id(char **dst, char *cur, struct err *e)
{
	char *v = strdup(engine_uci_rest(&cur));

	if (v == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	free(*dst);
	*dst = v;
	return 0;
}

/* One line before uciok: 1 for uciok, 0 read, -1 refused. */
static int
handshake_line(struct engine *g, char *cur, struct err *e)
{
	const char *w = engine_uci_word(&cur);

	if (w == NULL)
		return 0;
	if (strcmp(w, "uciok") == 0)
		return 1;
	if (strcmp(w, "option") == 0) {
		g->saw_uci = 1;
		return add_option(g, cur, e);
	}
	if (strcmp(w, "id") != 0)
		return 0; /* a greeting, a banner: not ours to judge */
	g->saw_uci = 1;
	w = engine_uci_word(&cur);
	if (w != NULL && strcmp(w, "name") == 0)
		return set_id(&g->name, cur, e);
	if (w != NULL && strcmp(w, "author") == 0)
		return set_id(&g->author, cur, e);
	return 0;
}

static int
handshake(struct engine *g, struct err *e)
{
	double deadline = engine_now() + g->ready_s;
	unsigned nlines = 0;
	struct err sent = ERR_INIT;
	char *line;

	/* A program that is not UCI may have printed its piece and gone before
	 * "uci" reaches it: a failed send is judged by what it printed. */
	(void)engine_proc_send(&g->proc, "uci\n", deadline, &sent);
	for (;;) {
		struct err why = ERR_INIT;
		const char *not_uci = g->saw_uci ? "handshake failed" : "not a UCI engine";
		int rc = engine_proc_line(&g->proc, deadline, &line, &why);
		if (rc == 0 && sent.msg[0])
			return fail(g, e, ERR_IO, 0, &g->first, "%s", sent.msg);
		if (rc == 0)
			return fail(g, e, ERR_INPUT, 0, &g->first, "%s: no uciok within %g s",
			    not_uci, g->ready_s);
		if (rc < 0)
			return fail(g, e, ERR_INPUT, g->proc.out_eof ? 1.0 : 0, &g->first,
			    "%s: %s before uciok", not_uci, why.msg);
		if (g->first.n < ENGINE_PROC_TAIL)
			engine_tail_push(&g->first, line, strlen(line));
		if (++nlines > HANDSHAKE_LINES_MAX)
			return fail(g, e, ERR_INPUT, 0, &g->first,
			    "not a UCI engine: more than %d lines before uciok",
			    HANDSHAKE_LINES_MAX);
		rc = handshake_line(g, line, &why);
		if (rc < 0)
			return fail(g, e, why.code, 0, &g->first, "%s", why.msg);
		if (rc == 1)
			return 0;
	}
}

static char **
make_argv(const char *path, const char *const *extra)
{
	size_t n = 0;
	char **argv;

	while (extra != NULL && extra[n] != NULL)
		n++;
	if ((argv = calloc(n + 2, sizeof *argv)) == NULL)
		return NULL;
	argv[0] = (char *)path;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)extra[i];
	return argv;
}

static int
start(struct engine *g, const char *path, const struct engine_opts *opts, struct err *e)
{
	char **argv;
	int rc;

	if ((g->path = strdup(path)) == NULL || (g->name = strdup("")) == NULL ||
	    (g->author = strdup("")) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (opts != NULL && opts->timeout_s > 0)
		g->timeout_s = opts->timeout_s;
	if (opts != NULL && opts->ready_timeout_s > 0)
		g->ready_s = opts->ready_timeout_s;
	if ((g->binary = resolve_binary(path, e)) == NULL)
		return -1;
	if ((argv = make_argv(path, opts ? opts->argv_extra : NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	rc = engine_proc_start(&g->proc, g->binary, argv, e);
	free(argv);
	if (rc < 0)
		return err_prefix(e, "engine %s", path);
	return handshake(g, e);
}

struct engine *
engine_new(const char *path, const struct engine_opts *opts, struct err *e)
{
	struct engine *g;

	if (path == NULL || *path == '\0') {
		err_set(e, ERR_USAGE, "no engine given");
		return NULL;
	}
	if ((g = calloc(1, sizeof *g)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	engine_proc_init(&g->proc);
	g->timeout_s = ENGINE_SEARCH_TIMEOUT_S;
	g->ready_s = ENGINE_READY_TIMEOUT_S;
	if (start(g, path, opts, e) < 0) {
		engine_free(g);
		return NULL;
	}
	return g;
}

void
engine_free(struct engine *g)
{
	if (g == NULL)
		return;
	if (!g->dead && g->proc.pid > 0) {
		struct err ignored = ERR_INIT;
		engine_proc_send(&g->proc, "quit\n", engine_now() + 0.1, &ignored);
		engine_proc_end(&g->proc, ENGINE_QUIT_GRACE_S);
	}
	engine_proc_end(&g->proc, 0);
	for (size_t i = 0; i < g->nopts; i++)
		engine_option_release(&g->opts[i]);
	free(g->opts);
	free(g->path);
	free(g->binary);
	free(g->name);
	free(g->author);
	free(g);
}

/* ---- getters ---- */

const char *
engine_name(const struct engine *g)
{
	return g->name;
}

const char *
engine_author(const struct engine *g)
{
	return g->author;
}

const char *
engine_binary_path(const struct engine *g)
{
	return g->binary;
}

pid_t
engine_pid(const struct engine *g)
{
	return g->proc.pid;
}

size_t
engine_option_count(const struct engine *g)
{
	return g->nopts;
}

const struct engine_option *
engine_option_at(const struct engine *g, size_t i)
{
	return i < g->nopts ? &g->opts[i] : NULL;
}

void
engine_set_timeout(struct engine *g, double seconds)
{
	if (seconds > 0)
		g->timeout_s = seconds;
}

/* ---- options and readiness ---- */

static int
bad_value(const struct engine_option *o, const char *value, const char *why, struct err *e)
{
	char qn[ENGINE_SHOWN_MAX + 1], qv[ENGINE_SHOWN_MAX + 1];

	return err_set(e, ERR_INPUT, "option \"%s\": \"%s\" %s", engine_uci_shown(o->name, qn),
	    engine_uci_shown(value ? value : "", qv), why);
}

/* The value to send for o in *send (NULL for a button). */
static int
checked_value(const struct engine_option *o, const char *value, const char **send,
    struct err *e)
{
	long long v;
	char *end;

	*send = value;
	switch (o->type) {
	case ENGINE_OPT_BUTTON:
		*send = NULL;
		if (value != NULL && *value != '\0')
			return bad_value(o, value, "given to a button", e);
		return 0;
	case ENGINE_OPT_CHECK:
		if (value == NULL || (strcmp(value, "true") != 0 && strcmp(value, "false") != 0))
			return bad_value(o, value, "is not true or false", e);
		return 0;
	case ENGINE_OPT_SPIN:
		errno = 0;
		v = value ? strtoll(value, &end, 10) : 0;
		if (value == NULL || *value == '\0' || *end != '\0' || errno != 0)
			return bad_value(o, value, "is not an integer", e);
		if (v < o->min || v > o->max)
			return err_set(e, ERR_INPUT, "option \"%s\": %lld is outside %lld..%lld",
			    o->name, v, o->min, o->max);
		return 0;
	case ENGINE_OPT_COMBO:
		for (size_t i = 0; value != NULL && i < o->nvars; i++)
			if (strcasecmp(value, o->vars[i]) == 0) {
				*send = o->vars[i];
				return 0;
			}
		return bad_value(o, value, "is not one of its values", e);
	case ENGINE_OPT_STRING:
		*send = value ? value : "";
		return 0;
	}
	return bad_value(o, value, "has no known type", e);
}

int
engine_setoption(struct engine *g, const char *name, const char *value, struct err *e)
{
	const struct engine_option *o;
	struct buf cmd = BUF_INIT;
	const char *v;
	char q[ENGINE_SHOWN_MAX + 1];
	int rc;

	if (check_alive(g, e) < 0)
		return -1;
	if ((o = engine_option_find(g, name)) == NULL)
		return err_set(e, ERR_INPUT, "engine %s has no option \"%s\"", g->path,
		    engine_uci_shown(name ? name : "", q));
	if (value != NULL && (!printable(value) || strlen(value) > VALUE_MAX))
		return bad_value(o, value, "holds a control character or is too long", e);
	if (checked_value(o, value, &v, e) < 0)
		return -1;
	if (buf_printf(&cmd, "setoption name %s%s%s\n", o->name, v ? " value " : "",
	        v ? v : "") < 0)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	else
		rc = send_cmd(g, cmd.p, e);
	buf_release(&cmd);
	return rc;
}

int
engine_isready(struct engine *g, struct err *e)
{
	double deadline;
	char *line, *cur;
	int rc;

	if (check_alive(g, e) < 0 || send_cmd(g, "isready\n", e) < 0)
		return -1;
	deadline = engine_now() + g->ready_s;
	while ((rc = next_line(g, deadline, &line, "waiting for readyok", e)) == 1) {
		cur = line;
		const char *w = engine_uci_word(&cur);
		if (w != NULL && strcmp(w, "readyok") == 0)
			return 0;
	}
	if (rc == 0)
		return fail(g, e, ERR_IO, 0, NULL, "no readyok within %g s", g->ready_s);
	return -1;
}

int
engine_newgame(struct engine *g, struct err *e)
{
	if (check_alive(g, e) < 0 || send_cmd(g, "ucinewgame\n", e) < 0)
		return -1;
	return engine_isready(g, e);
}

/* ---- searches ---- */

void
engine_result_release(struct engine_result *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nlines; i++)
		engine_info_release(&r->lines[i]);
	free(r->lines);
	memset(r, 0, sizeof *r);
}

/* Keep in as its multipv's line when it has a score and a pv and is at
 * least as deep as the one kept; in is consumed either way. */
static int
keep_line(struct engine_result *r, struct engine_info *in, struct err *e)
{
	size_t k = (size_t)in->multipv;

	if (in->nodes > r->nodes)
		r->nodes = in->nodes;
	if (in->time_ms > r->time_ms)
		r->time_ms = in->time_ms;
	if (in->npv == 0 || !(in->has_cp || in->has_mate)) {
		engine_info_release(in);
		return 0;
	}
	if (k > ENGINE_MULTIPV_MAX) {
		engine_info_release(in);
		return err_set(e, ERR_INPUT, "multipv %zu above %d", k, ENGINE_MULTIPV_MAX);
	}
	if (k > r->nlines) {
		struct engine_info *t = realloc(r->lines, k * sizeof *t);
		if (t == NULL) {
			engine_info_release(in);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		memset(t + r->nlines, 0, (k - r->nlines) * sizeof *t);
		for (size_t i = r->nlines; i < k; i++)
			t[i].multipv = (int)i + 1;
		r->lines = t;
		r->nlines = k;
	}
	struct engine_info *slot = &r->lines[k - 1];
	if (slot->npv > 0 && in->depth < slot->depth) {
		engine_info_release(in);
		return 0;
	}
	engine_info_release(slot);
	*slot = *in;
	return 0;
}

static int
check_search_args(const char *fen, const struct engine_limit *lim, const char *const *sm,
    size_t n, struct err *e)
{
	char q[ENGINE_SHOWN_MAX + 1];

	if (fen != NULL && (*fen == '\0' || strlen(fen) > ENGINE_FEN_MAX || !printable(fen)))
		return err_set(e, ERR_INPUT, "not a position: \"%s\"", engine_uci_shown(fen, q));
	if (lim == NULL || lim->depth < 0 || (lim->nodes == 0 && lim->depth == 0 &&
	                                         lim->movetime_ms == 0))
		return err_set(e, ERR_INPUT, "a search needs a limit: nodes, depth or movetime");
	for (size_t i = 0; i < n; i++)
		if (sm[i] == NULL || !engine_uci_move_ok(sm[i]))
			return err_set(e, ERR_INPUT, "searchmoves: not a move: \"%s\"",
			    engine_uci_shown(sm[i] ? sm[i] : "", q));
	return 0;
}

static int
search_command(struct buf *b, const char *fen, const struct engine_limit *lim,
    const char *const *sm, size_t n)
{
	int rc = fen ? buf_printf(b, "position fen %s\ngo", fen)
	             : buf_adds(b, "position startpos\ngo");

	if (rc == 0 && lim->depth > 0)
		rc = buf_printf(b, " depth %d", lim->depth);
	if (rc == 0 && lim->nodes > 0)
		rc = buf_printf(b, " nodes %llu", (unsigned long long)lim->nodes);
	if (rc == 0 && lim->movetime_ms > 0)
		rc = buf_printf(b, " movetime %llu", (unsigned long long)lim->movetime_ms);
	if (rc == 0 && n > 0)
		rc = buf_adds(b, " searchmoves");
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = buf_printf(b, " %s", sm[i]);
	return rc == 0 ? buf_addc(b, '\n') : -1;
}

/* After the deadline: ask for a stop, give it a moment, end it. */
static int
search_timeout(struct engine *g, const char *pos, struct err *e)
{
	double grace = g->ready_s < ENGINE_STOP_GRACE_S ? g->ready_s : ENGINE_STOP_GRACE_S;
	double deadline = engine_now() + grace;
	struct err ignored = ERR_INIT;
	char *line;

	if (engine_proc_send(&g->proc, "stop\n", deadline, &ignored) == 0)
		while (engine_proc_line(&g->proc, deadline, &line, &ignored) == 1)
			if (strncmp(line, "bestmove", 8) == 0)
				break;
	return fail(g, e, ERR_IO, 0, NULL, "timed out after %g s on position %s", g->timeout_s,
	    pos);
}

static int
in_list(const char *m, const char *const *sm, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(m, sm[i]) == 0)
			return 1;
	return 0;
}

/* One line of the search: 1 at bestmove, 0 to go on, -1 refused. */
static int
search_line(struct engine_result *r, char *cur, const char *const *sm, size_t n,
    struct err *e)
{
	const char *w = engine_uci_word(&cur);
	struct engine_info in;
	int rc;

	if (w == NULL)
		return 0;
	if (strcmp(w, "info") == 0) {
		if ((rc = engine_uci_info(cur, &in, e)) != 0)
			return rc < 0 ? -1 : 0;
		return keep_line(r, &in, e);
	}
	if (strcmp(w, "bestmove") != 0)
		return 0;
	if (engine_uci_bestmove(cur, r->bestmove, r->ponder, e) < 0)
		return -1;
	if (n > 0 && r->bestmove[0] != '\0' && !in_list(r->bestmove, sm, n))
		return err_set(e, ERR_INPUT, "bestmove %s is not among the searchmoves",
		    r->bestmove);
	return 1;
}

static int
read_search(struct engine *g, const char *pos, const char *const *sm, size_t n,
    struct engine_result *r, struct err *e)
{
	double deadline = engine_now() + g->timeout_s;
	char during[400], *line;
	int rc;

	snprintf(during, sizeof during, "during search on position %s", pos);
	for (;;) {
		struct err why = ERR_INIT;
		if ((rc = next_line(g, deadline, &line, during, e)) <= 0)
			return rc == 0 ? search_timeout(g, pos, e) : -1;
		if ((rc = search_line(r, line, sm, n, &why)) < 0)
			return fail(g, e, why.code, 0, NULL, "%s %s", why.msg, during);
		if (rc == 1)
			return 0;
	}
}

int
engine_search(struct engine *g, const char *fen, const struct engine_limit *lim,
    const char *const *searchmoves, size_t n, struct engine_result *out, struct err *e)
{
	struct buf cmd = BUF_INIT;
	int rc;

	engine_result_release(out);
	if (check_alive(g, e) < 0 || check_search_args(fen, lim, searchmoves, n, e) < 0)
		return -1;
	if (search_command(&cmd, fen, lim, searchmoves, n) < 0) {
		buf_release(&cmd);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	rc = send_cmd(g, cmd.p, e);
	buf_release(&cmd);
	if (rc == 0)
		rc = read_search(g, fen ? fen : "startpos", searchmoves, n, out, e);
	if (rc < 0)
		engine_result_release(out);
	return rc;
}
