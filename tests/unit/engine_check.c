/* engine_check.c: the UCI driver (engine/) against tests/unit/fake_uci,
 * an engine right or wrong on purpose, and its line readers on tables.
 * engine_check FAKE_UCI TMPDIR DATADIR: one "ok NAME" or "not ok NAME: why"
 * line per case; DATADIR holds what real engines printed (tests/data/uci).
 * Each case must end with no child process (nor zombie) left and as many
 * open descriptors as before.  No case measures how long it took: an
 * engine that should answer gets a deadline far beyond any machine's load
 * (HANG_S, longer under the sanitizers), which only catches a hang; the
 * deadlines a case is about (a hung search, a handshake without uciok)
 * are the ones that fire, whatever the load. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../engine/engine.h"
#include "../../engine/uci.h"

static const char *fake, *tmp, *data;
/* How long an engine that works may take to answer: only a hang reaches
 * it.  NO_UCIOK_S: the handshake deadline of an engine that prints lines
 * but never uciok, long enough that its lines are read first on a busy
 * machine.  Both times slack, 3 under the sanitizers. */
#define HANG_S 120.0
#define NO_UCIOK_S 2.0
static double slack = 1;
static char logpath[4096];
static int failed;
static char why[2048];

static const char *
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return why;
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static int
no_children(void)
{
	int st;

	return waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD;
}

static void
run(const char *name, const char *(*fn)(void))
{
	int fds = count_fds();
	const char *w = fn();

	if (w == NULL && count_fds() != fds)
		w = fail("%d descriptors open, %d before", count_fds(), fds);
	if (w == NULL && !no_children())
		w = fail("a child process is left");
	if (w == NULL) {
		printf("ok %s\n", name);
	} else {
		printf("not ok %s: %s\n", name, w);
		failed++;
	}
	fflush(stdout);
}

/* The fake engine in mode, its searches limited to search_s and its
 * handshake to ready_s (0: HANG_S for either). */
static struct engine *
start_limits(const char *mode, double search_s, double ready_s, struct err *e)
{
	const char *argv[] = { mode, NULL };
	struct engine_opts o = { argv, search_s > 0 ? search_s : HANG_S * slack,
		ready_s > 0 ? ready_s : HANG_S * slack };

	return engine_new(fake, &o, e);
}

/* The fake engine in mode with the hang-catching deadlines. */
static struct engine *
start(const char *mode, struct err *e)
{
	return start_limits(mode, 0, 0, e);
}

/* engine_free, then the process must be gone. */
static const char *
end(struct engine *g)
{
	pid_t pid = g ? engine_pid(g) : -1;

	engine_free(g);
	if (pid > 0 && !(kill(pid, 0) < 0 && errno == ESRCH))
		return fail("process %ld still there after engine_free", (long)pid);
	return NULL;
}

/* e holds code and every one of the NULL-terminated substrings. */
static const char *
expect_err(const struct err *e, enum err_code code, ...)
{
	va_list ap;
	const char *s;

	if (e->code != code)
		return fail("error code %d, want %d: %s", e->code, code, e->msg);
	va_start(ap, code);
	while ((s = va_arg(ap, const char *)) != NULL)
		if (strstr(e->msg, s) == NULL) {
			va_end(ap);
			return fail("error lacks \"%s\": %s", s, e->msg);
		}
	va_end(ap);
	return NULL;
}

static int
log_has(const char *line)
{
	char b[8192];
	FILE *fp = fopen(logpath, "r");
	int found = 0;

	while (fp != NULL && !found && fgets(b, sizeof b, fp) != NULL) {
		b[strcspn(b, "\n")] = '\0';
		found = strcmp(b, line) == 0;
	}
	if (fp != NULL)
		fclose(fp);
	return found;
}

/* A failed start: NULL, the error's code and substrings. */
static const char *
refused_start(const char *mode, double ready_s, enum err_code code, const char *s1,
    const char *s2, const char *s3)
{
	struct err e = ERR_INIT;
	struct engine *g = start_limits(mode, 0, ready_s, &e);

	if (g != NULL) {
		end(g);
		return fail("started");
	}
	return expect_err(&e, code, s1, s2, s3, (const char *)NULL);
}

/* A running engine whose search fails: the error, the same one again from
 * the dead handle, and no process. */
static const char *
failed_search(const char *mode, double search_s, const char *s1, const char *s2,
    const char *s3)
{
	static const char fen[] = "8/8/8/4k3/8/8/8/4K2R w K - 0 1";
	struct engine_limit lim = { 1000, 0, 0 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT, again = ERR_INIT;
	struct engine *g = start_limits(mode, search_s, 0, &e);
	const char *w;

	if (g == NULL)
		return fail("start: %s", e.msg);
	if (engine_search(g, fen, &lim, NULL, 0, &r, &e) == 0) {
		end(g);
		return fail("searched");
	}
	w = expect_err(&e, e.code, s1, s2, s3, (const char *)NULL);
	if (w == NULL && engine_pid(g) != -1)
		w = fail("process still running after the error");
	if (w == NULL && (engine_isready(g, &again) == 0 || strcmp(again.msg, e.msg) != 0))
		w = fail("the dead handle says \"%s\"", again.msg);
	if (r.nlines != 0 || r.lines != NULL)
		w = w ? w : fail("a failed search left lines");
	const char *w2 = end(g);
	return w ? w : w2;
}

/* ---- readers on tables ---- */

static const char *
case_moves(void)
{
	static const char *const good[] = { "e2e4", "e7e8q", "a1h8", "h2h1n", "b7b8r", "c7c8b" };
	static const char *const bad[] = { "", "e2e", "e2e4qq", "e7e8k", "i2e4", "E2E4", "e0e4",
		"e2e9", "0000", "(none)", "e2-e4" };

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		if (!engine_uci_move_ok(good[i]))
			return fail("\"%s\" refused", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (engine_uci_move_ok(bad[i]))
			return fail("\"%s\" taken", bad[i]);
	return NULL;
}

struct info_case {
	const char *line;
	int rc, multipv, depth, seldepth, has_cp, cp, has_mate, mate, bound;
	unsigned long long nodes, nps, time_ms;
	size_t npv;
	const char *pv_last;
};

static const struct info_case info_cases[] = {
	{ "depth 12 seldepth 18 multipv 2 score cp -35 upperbound nodes 123456 nps 999 hashfull 10 "
	  "tbhits 0 time 77 pv e2e4 e7e5 g1f3",
	    0, 2, 12, 18, 1, -35, 0, 0, ENGINE_UPPER, 123456, 999, 77, 3, "g1f3" },
	{ "depth 5 score mate -3 pv h7h8q", 0, 1, 5, 0, 0, 0, 1, -3, 0, 0, 0, 0, 1, "h7h8q" },
	{ "depth 7 score lowerbound cp 20 pv a7a8n string the rest is text pv zzz", 0, 1, 7, 0, 1,
	    20, 0, 0, ENGINE_LOWER, 0, 0, 0, 1, "a7a8n" },
	{ "depth 3 score cp 10 wdl 100 800 100 pv e2e4", 0, 1, 3, 0, 1, 10, 0, 0, 0, 0, 0, 0, 1,
	    "e2e4" },
	{ "depth\t4\tscore cp 1\tpv e2e4 \t", 0, 1, 4, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, "e2e4" },
	{ "depth 3 frobnicate 5 score cp 1 pv e2e4", 0, 1, 3, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1,
	    "e2e4" },
	{ "depth 3 currmove e2e4 currmovenumber 1", 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL },
	{ "depth 9 currline 1 e2e4 e7e5 refutation d1h5 g7g6 nodes 5", 0, 1, 9, 0, 0, 0, 0, 0, 0, 5,
	    0, 0, 0, NULL },
	{ "nodes 18446744073709551615", 0, 1, 0, 0, 0, 0, 0, 0, 0, 18446744073709551615ull, 0, 0,
	    0, NULL },
	{ .line = "string depth 3 score cp 1 pv e2e4", .rc = 1 },
	{ .line = "string", .rc = 1 },
	{ .line = "depth x", .rc = -1 },
	{ .line = "depth", .rc = -1 },
	{ .line = "depth -1", .rc = -1 },
	{ .line = "depth 99999999999", .rc = -1 },
	{ .line = "nodes 18446744073709551616", .rc = -1 },
	{ .line = "depth 3 score pv e2e4", .rc = -1 },
	{ .line = "depth 3 score cp", .rc = -1 },
	{ .line = "depth 3 score cp 1x pv e2e4", .rc = -1 },
	{ .line = "depth 3 score cp 1 pv e2e4 e9e5", .rc = -1 },
	{ .line = "depth 3 score cp 1 pv e2e4 e7e5 junk", .rc = -1 },
	{ .line = "depth 3 multipv 0 score cp 1 pv e2e4", .rc = -1 },
	{ .line = "depth 3 score cp 1 wdl 1 2 pv e2e4", .rc = -1 },
};

static const char *
check_info(const struct info_case *c, const struct engine_info *in)
{
	if (in->multipv != c->multipv || in->depth != c->depth || in->seldepth != c->seldepth ||
	    in->has_cp != c->has_cp || in->cp != c->cp || in->has_mate != c->has_mate ||
	    in->mate != c->mate || in->bound != c->bound || in->nodes != c->nodes ||
	    in->nps != c->nps || in->time_ms != c->time_ms || in->npv != c->npv)
		return fail("\"%s\": fields differ (depth %d multipv %d cp %d mate %d npv %zu)",
		    c->line, in->depth, in->multipv, in->cp, in->mate, in->npv);
	if (c->npv > 0 && strcmp(in->pv[c->npv - 1], c->pv_last) != 0)
		return fail("\"%s\": pv ends with %s", c->line, in->pv[c->npv - 1]);
	return NULL;
}

static const char *
case_info_lines(void)
{
	for (size_t i = 0; i < sizeof info_cases / sizeof info_cases[0]; i++) {
		const struct info_case *c = &info_cases[i];
		char line[512];
		struct engine_info in;
		struct err e = ERR_INIT;
		snprintf(line, sizeof line, "%s", c->line);
		int rc = engine_uci_info(line, &in, &e);
		if (rc != c->rc) {
			if (rc == 0)
				engine_info_release(&in);
			return fail("\"%s\": %d, want %d (%s)", c->line, rc, c->rc, e.msg);
		}
		if (rc < 0 && strstr(e.msg, "malformed info line") == NULL)
			return fail("\"%s\": message %s", c->line, e.msg);
		if (rc != 0)
			continue;
		const char *w = check_info(c, &in);
		engine_info_release(&in);
		if (w != NULL)
			return w;
	}
	return NULL;
}

static const char *
case_option_lines(void)
{
	static const char *const bad[] = { "type spin", "name type check", "name X",
		"name X type", "name X type blah", "name X type spin default 1",
		"name X type spin default 1 min 5 max 1", "name X type spin min a max 3",
		"name X type spin min 1 max 99999999999999999999", "name X type combo default a",
		"name X type combo default a var", "name X type check default true nonsense",
		"name X type check default yes", "name X type spin default x min 1 max 2" };
	struct engine_option o;
	struct err e = ERR_INIT;
	char line[256];

	snprintf(line, sizeof line, "name  Skill   Level type spin default 20 min -20 max 20");
	if (engine_uci_option(line, &o, &e) < 0 || strcmp(o.name, "Skill Level") != 0 ||
	    o.type != ENGINE_OPT_SPIN || strcmp(o.def, "20") != 0 || o.min != -20 || o.max != 20)
		return fail("spin: %s", e.msg);
	engine_option_release(&o);
	snprintf(line, sizeof line, "name NullMove Pruning type combo default Fail High var "
	                            "Always var Fail High var Never");
	if (engine_uci_option(line, &o, &e) < 0 || o.type != ENGINE_OPT_COMBO ||
	    strcmp(o.def, "Fail High") != 0 || o.nvars != 3 || strcmp(o.vars[1], "Fail High") != 0)
		return fail("combo: %s", e.msg);
	engine_option_release(&o);
	snprintf(line, sizeof line, "name Debug Log File type string default ");
	if (engine_uci_option(line, &o, &e) < 0 || o.type != ENGINE_OPT_STRING ||
	    strcmp(o.def, "") != 0)
		return fail("string: %s", e.msg);
	engine_option_release(&o);
	snprintf(line, sizeof line, "name Clear Hash type button");
	if (engine_uci_option(line, &o, &e) < 0 || o.type != ENGINE_OPT_BUTTON || o.def != NULL)
		return fail("button: %s", e.msg);
	engine_option_release(&o);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(line, sizeof line, "%s", bad[i]);
		if (engine_uci_option(line, &o, &e) == 0) {
			engine_option_release(&o);
			return fail("\"%s\" taken", bad[i]);
		}
	}
	return NULL;
}

static const char *
case_bestmove_lines(void)
{
	static const struct {
		const char *line, *best, *ponder;
	} cases[] = { { "e2e4 ponder e7e5", "e2e4", "e7e5" }, { "e7e8q", "e7e8q", "" },
		{ "(none)", "", "" }, { "0000", "", "" }, { "e2e4 ponder (none)", "e2e4", "" },
		{ "  g1f3   ponder  g8f6  ", "g1f3", "g8f6" }, { "z9z9", NULL, NULL },
		{ "", NULL, NULL }, { "e2e4 ponder", NULL, NULL }, { "e2e4 ponder x", NULL, NULL },
		{ "e2e4x", NULL, NULL } };
	char best[8], ponder[8], line[64];
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(line, sizeof line, "%s", cases[i].line);
		int rc = engine_uci_bestmove(line, best, ponder, &e);
		if (cases[i].best == NULL ? rc == 0 : rc < 0)
			return fail("\"%s\": %d", cases[i].line, rc);
		if (rc == 0 &&
		    (strcmp(best, cases[i].best) != 0 || strcmp(ponder, cases[i].ponder) != 0))
			return fail("\"%s\": %s %s", cases[i].line, best, ponder);
	}
	return NULL;
}

/* One line of a real engine's transcript: 1 read, 0 not ours, -1 refused. */
static int
transcript_line(char *line, struct err *e)
{
	char *cur = line, best[8], ponder[8];
	const char *w = engine_uci_word(&cur);
	struct engine_info in;
	struct engine_option o;

	if (w != NULL && strcmp(w, "option") == 0) {
		if (engine_uci_option(cur, &o, e) < 0)
			return -1;
		engine_option_release(&o);
		return 1;
	}
	if (w != NULL && strcmp(w, "info") == 0) {
		int rc = engine_uci_info(cur, &in, e);
		if (rc == 0)
			engine_info_release(&in);
		return rc < 0 ? -1 : 1;
	}
	if (w != NULL && strcmp(w, "bestmove") == 0)
		return engine_uci_bestmove(cur, best, ponder, e) < 0 ? -1 : 1;
	return 0;
}

/* What Debian's engines printed (handshake and a search) reads whole. */
static const char *
case_transcripts(void)
{
	static const char *const names[] = { "stockfish-15.1", "fairy-stockfish-11.1",
		"glaurung-2.2", "toga2-3.0", "ethereal-12.00", "gnuchess-6.2.7" };
	char path[4096], line[8192];
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int nread = 0, nline = 0;
		snprintf(path, sizeof path, "%s/%s.txt", data, names[i]);
		FILE *fp = fopen(path, "r");
		if (fp == NULL)
			return fail("cannot open %s", path);
		while (fgets(line, sizeof line, fp) != NULL) {
			nline++;
			line[strcspn(line, "\r\n")] = '\0';
			int rc = transcript_line(line, &e);
			if (rc < 0) {
				fclose(fp);
				return fail("%s:%d: %s", path, nline, e.msg);
			}
			nread += rc;
		}
		fclose(fp);
		if (nread < 10)
			return fail("%s: only %d lines read", path, nread);
	}
	return NULL;
}

/* ---- a correct engine ---- */

static const char *
case_handshake(void)
{
	struct err e = ERR_INIT;
	struct engine *g = start("ok", &e);
	const struct engine_option *o;
	const char *w = NULL;

	if (g == NULL)
		return fail("%s", e.msg);
	if (strcmp(engine_name(g), "Fake UCI 1.0") != 0 || strcmp(engine_author(g), "the tests"))
		w = fail("name \"%s\", author \"%s\"", engine_name(g), engine_author(g));
	else if (engine_option_count(g) != 8)
		w = fail("%zu options", engine_option_count(g));
	else if ((o = engine_option_find(g, "style")) == NULL || o->nvars != 3 ||
	    strcmp(o->vars[2], "Fail High") != 0 || strcmp(o->def, "Solid") != 0)
		w = fail("Style");
	else if ((o = engine_option_find(g, "HASH")) == NULL || o->min != 1 || o->max != 1024)
		w = fail("Hash");
	else if ((o = engine_option_find(g, "Debug Log File")) == NULL || strcmp(o->def, "") != 0)
		w = fail("Debug Log File");
	else if (engine_option_at(g, 5) == NULL || engine_option_at(g, 5)->type !=
	    ENGINE_OPT_BUTTON || engine_option_at(g, 8) != NULL)
		w = fail("option_at");
	else if (engine_isready(g, &e) < 0 || engine_newgame(g, &e) < 0)
		w = fail("%s", e.msg);
	const char *w2 = end(g);
	return w ? w : w2;
}

static const char *
case_setoption(void)
{
	static const char *const refused[][3] = { { "Nope", "1", "has no option \"Nope\"" },
		{ "Hash", "0", "0 is outside 1..1024" }, { "Hash", "2000", "outside 1..1024" },
		{ "Hash", "12x", "not an integer" }, { "Hash", "", "not an integer" },
		{ "Hash", NULL, "not an integer" }, { "Ponder", "yes", "not true or false" },
		{ "Style", "Crazy", "not one of its values" },
		{ "Clear Hash", "now", "given to a button" },
		{ "Book File", "a\nquit", "control character" } };
	struct err e = ERR_INIT;
	struct engine *g = start("ok", &e);
	const char *w = NULL;

	if (g == NULL)
		return fail("%s", e.msg);
	for (size_t i = 0; w == NULL && i < sizeof refused / sizeof refused[0]; i++) {
		e = (struct err)ERR_INIT;
		if (engine_setoption(g, refused[i][0], refused[i][1], &e) == 0)
			w = fail("%s = %s taken", refused[i][0], refused[i][1]);
		else
			w = expect_err(&e, ERR_INPUT, refused[i][2], (const char *)NULL);
	}
	if (w == NULL && (engine_setoption(g, "hash", "32", &e) < 0 ||
	                     engine_setoption(g, "Style", "fail high", &e) < 0 ||
	                     engine_setoption(g, "Clear Hash", NULL, &e) < 0 ||
	                     engine_setoption(g, "Ponder", "true", &e) < 0 ||
	                     engine_setoption(g, "Book File", "my book.bin", &e) < 0 ||
	                     engine_setoption(g, "Debug Log File", "", &e) < 0 ||
	                     engine_isready(g, &e) < 0))
		w = fail("%s", e.msg);
	const char *w2 = end(g);
	if (w == NULL && !(log_has("setoption name Hash value 32") &&
	                     log_has("setoption name Style value Fail High") &&
	                     log_has("setoption name Clear Hash") &&
	                     log_has("setoption name Ponder value true") &&
	                     log_has("setoption name Book File value my book.bin") &&
	                     log_has("setoption name Debug Log File value ")))
		w = fail("the commands sent are not the ones expected");
	if (w == NULL && (log_has("setoption name Nope value 1") ||
	                     log_has("setoption name Book File value a")))
		w = fail("a refused option was sent");
	return w ? w : w2;
}

static const char *
check_ok_result(const struct engine_result *r, const char *first, uint64_t nodes)
{
	if (r->nlines != 3)
		return fail("%zu lines", r->nlines);
	for (size_t i = 0; i < 3; i++) {
		const struct engine_info *l = &r->lines[i];
		if (l->multipv != (int)i + 1 || l->depth != 3 || l->seldepth != 5 || l->npv != 3 ||
		    l->bound != ENGINE_EXACT || strcmp(l->pv[1], "e7e5") != 0 || l->time_ms != 3 ||
		    l->nps != 100000 || l->nodes != nodes)
			return fail("line %zu: depth %d npv %zu bound %d", i + 1, l->depth, l->npv,
			    l->bound);
	}
	if (!r->lines[0].has_cp || r->lines[0].cp != 43 || !r->lines[1].has_mate ||
	    r->lines[1].mate != 3 || r->lines[1].has_cp || r->lines[2].cp != 23)
		return fail("scores");
	if (strcmp(r->lines[0].pv[0], first) != 0 || strcmp(r->bestmove, first) != 0 ||
	    strcmp(r->ponder, "e7e5") != 0)
		return fail("bestmove %s ponder %s", r->bestmove, r->ponder);
	if (r->nodes != nodes || r->time_ms != 5)
		return fail("nodes %llu time %llu", (unsigned long long)r->nodes,
		    (unsigned long long)r->time_ms);
	return NULL;
}

static const char *
search_ok(const char *mode)
{
	static const char fen[] = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
	static const char *const sm[] = { "d2d4", "c2c4" };
	struct engine_limit lim = { 1000, 0, 0 }, lim2 = { 500, 3, 100 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = start(mode, &e);
	const char *w = NULL;

	if (g == NULL)
		return fail("%s", e.msg);
	if (engine_setoption(g, "MultiPV", "3", &e) < 0 || engine_newgame(g, &e) < 0 ||
	    engine_search(g, fen, &lim, NULL, 0, &r, &e) < 0)
		w = fail("%s", e.msg);
	if (w == NULL)
		w = check_ok_result(&r, "e2e4", 1000);
	/* the same result handle again: the old lines are released first */
	if (w == NULL && engine_search(g, NULL, &lim2, sm, 2, &r, &e) < 0)
		w = fail("%s", e.msg);
	if (w == NULL)
		w = check_ok_result(&r, "d2d4", 500);
	if (w == NULL && strcmp(r.lines[1].pv[0], "c2c4") != 0)
		w = fail("multipv 2 is not the second searchmove");
	engine_result_release(&r);
	const char *w2 = end(g);
	if (w == NULL && !(log_has("uci") && log_has("ucinewgame") && log_has("isready") &&
	                     log_has("setoption name MultiPV value 3") &&
	                     log_has("position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR "
	                             "b KQkq - 0 1") &&
	                     log_has("go nodes 1000") && log_has("position startpos") &&
	                     log_has("go depth 3 nodes 500 movetime 100 searchmoves d2d4 c2c4") &&
	                     log_has("quit")))
		w = fail("the commands sent are not the ones expected");
	return w ? w : w2;
}

static const char *
case_search(void)
{
	return search_ok("ok");
}

static const char *
case_crlf(void)
{
	return search_ok("crlf");
}

static const char *
case_noisy(void)
{
	return search_ok("noisy");
}

static const char *
case_no_move(void)
{
	struct engine_limit lim = { 100, 0, 0 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = start("ok", &e);
	const char *w = NULL;

	if (g == NULL)
		return fail("%s", e.msg);
	if (engine_search(g, "mated", &lim, NULL, 0, &r, &e) < 0)
		w = fail("%s", e.msg);
	else if (r.bestmove[0] != '\0' || r.ponder[0] != '\0' || r.nlines != 0)
		w = fail("bestmove \"%s\", %zu lines", r.bestmove, r.nlines);
	engine_result_release(&r);
	const char *w2 = end(g);
	return w ? w : w2;
}

static const char *
case_refused_search(void)
{
	static const char *const bad_moves[] = { "e2e4", "e2e9" };
	struct engine_limit none = { 0, 0, 0 }, lim = { 100, 0, 0 }, neg = { 100, -1, 0 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = start("ok", &e);
	const char *w = NULL;
	char big[400];

	if (g == NULL)
		return fail("%s", e.msg);
	memset(big, '8', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	if (engine_search(g, "8/8/8/8/8/8/8/8 w - - 0 1\nquit", &lim, NULL, 0, &r, &e) == 0 ||
	    (w = expect_err(&e, ERR_INPUT, "not a position", (const char *)NULL)) != NULL)
		w = w ? w : fail("a FEN with a newline taken");
	else if (engine_search(g, "", &lim, NULL, 0, &r, &e) == 0 ||
	    engine_search(g, big, &lim, NULL, 0, &r, &e) == 0)
		w = fail("an empty or long FEN taken");
	else if (engine_search(g, NULL, &none, NULL, 0, &r, &e) == 0 ||
	    engine_search(g, NULL, NULL, NULL, 0, &r, &e) == 0 ||
	    engine_search(g, NULL, &neg, NULL, 0, &r, &e) == 0 ||
	    (w = expect_err(&e, ERR_INPUT, "needs a limit", (const char *)NULL)) != NULL)
		w = w ? w : fail("a search without a limit taken");
	else if (engine_search(g, NULL, &lim, bad_moves, 2, &r, &e) == 0 ||
	    (w = expect_err(&e, ERR_INPUT, "searchmoves: not a move: \"e2e9\"",
	         (const char *)NULL)) != NULL)
		w = w ? w : fail("a bad searchmove taken");
	else if (engine_search(g, NULL, &lim, NULL, 0, &r, &e) < 0 || r.nlines != 1)
		w = fail("after refusals: %s", e.msg);
	engine_result_release(&r);
	const char *w2 = end(g);
	if (w == NULL && (log_has("position fen 8/8/8/8/8/8/8/8 w - - 0 1") ||
	                     !log_has("go nodes 100")))
		w = fail("the commands sent are not the ones expected");
	return w ? w : w2;
}

/* The binary: resolved through a symbolic link, and through PATH. */
static const char *
case_binary_path(void)
{
	char link[4096], *real = realpath(fake, NULL), *dir = NULL, *path = NULL;
	const char *argv[] = { "ok", NULL };
	struct engine_opts o = { argv, HANG_S * slack, HANG_S * slack };
	struct err e = ERR_INIT;
	struct engine *g;
	const char *w = NULL, *old = getenv("PATH");

	snprintf(link, sizeof link, "%s/fake-link", tmp);
	unlink(link);
	if (real == NULL || symlink(real, link) < 0)
		return fail("cannot make %s", link);
	g = engine_new(link, &o, &e);
	if (g == NULL || strcmp(engine_binary_path(g), real) != 0)
		w = fail("through a link: %s", g ? engine_binary_path(g) : e.msg);
	if ((dir = strdup(real)) != NULL && strrchr(dir, '/') != NULL)
		*strrchr(dir, '/') = '\0';
	path = old ? strdup(old) : NULL;
	setenv("PATH", dir ? dir : "", 1);
	const char *w2 = end(g);
	g = w ? NULL : engine_new(strrchr(real, '/') + 1, &o, &e);
	if (w == NULL && (g == NULL || strcmp(engine_binary_path(g), real) != 0))
		w = fail("through PATH: %s", g ? engine_binary_path(g) : e.msg);
	const char *w3 = end(g);
	if (path != NULL)
		setenv("PATH", path, 1);
	free(real);
	free(dir);
	free(path);
	unlink(link);
	return w ? w : w2 ? w2 : w3;
}

static const char *
case_missing(void)
{
	struct err e = ERR_INIT;
	const char *w;

	if (engine_new("/nonexistent/engine", NULL, &e) != NULL)
		return fail("started /nonexistent/engine");
	if ((w = expect_err(&e, ERR_IO, "/nonexistent/engine", "No such file",
	         (const char *)NULL)) != NULL)
		return w;
	if (engine_new("no-such-engine-anywhere", NULL, &e) != NULL)
		return fail("started no-such-engine-anywhere");
	if ((w = expect_err(&e, ERR_IO, "not found in PATH", (const char *)NULL)) != NULL)
		return w;
	if (engine_new(tmp, NULL, &e) != NULL)
		return fail("started a folder");
	if ((w = expect_err(&e, ERR_IO, "not an executable file", (const char *)NULL)) != NULL)
		return w;
	if (engine_new("", NULL, &e) != NULL || engine_new(NULL, NULL, &e) != NULL)
		return fail("started nothing");
	engine_free(NULL);
	return NULL;
}

/* ---- engines that are wrong ---- */

static const char *
case_hello(void)
{
	return refused_start("hello", 0, ERR_INPUT, "not a UCI engine",
	    "first lines: \"hello\" | \"this is not a chess engine\"", "exited with status 0");
}

static const char *
case_garbage(void)
{
	static char within[64];

	snprintf(within, sizeof within, "not a UCI engine: no uciok within %g s", NO_UCIOK_S * slack);
	return refused_start("garbage", NO_UCIOK_S * slack, ERR_INPUT, within,
	    "first lines: \"garbage ? garbage\"", NULL);
}

static const char *
case_die_after_uci(void)
{
	return refused_start("die-after-uci", 0, ERR_INPUT, "handshake failed",
	    "exited with status 3", "stderr: \"fake: dying after uci\"");
}

static const char *
case_bad_option(void)
{
	return refused_start("badoption", 0, ERR_INPUT, "malformed option line",
	    "\"Broken\"", NULL);
}

static const char *
case_flood_uci(void)
{
	return refused_start("flood-uci", 0, ERR_INPUT, "line longer than 65536 bytes", NULL, NULL);
}

/* The engine has gone: our write must fail, not kill us with SIGPIPE. */
static const char *
case_dead_reader(void)
{
	struct err e = ERR_INIT;
	struct engine *g = start("exit-after-uciok", &e);
	struct timespec pause = { 0, 200000000 };
	const char *w;
	sigset_t pending;

	if (g == NULL)
		return fail("%s", e.msg);
	nanosleep(&pause, NULL);
	if (engine_setoption(g, "Hash", "32", &e) == 0 && engine_isready(g, &e) == 0)
		w = fail("isready answered by an engine that exited");
	else
		w = expect_err(&e, ERR_IO, "exited with status 0", (const char *)NULL);
	sigpending(&pending);
	if (w == NULL && sigismember(&pending, SIGPIPE))
		w = fail("a SIGPIPE is left pending");
	const char *w2 = end(g);
	return w ? w : w2;
}

static const char *
case_die_search(void)
{
	return failed_search("die-search", 0, "killed by signal 9", "during search on position",
	    "stderr: \"fake: crash\"");
}

static const char *
case_exit_search(void)
{
	return failed_search("exit-search", 0, "exited with status 7",
	    "\"info string searching\" | \"info depth 1 seldepth 1", "closed its output");
}

static const char *
case_hang(void)
{
	return failed_search("hang", 0.3, "timed out after 0.3 s on position 8/8/8/4k3/8/8/8/4K2R "
	                                  "w K - 0 1", NULL, NULL);
}

static const char *
case_hang_stop(void)
{
	return failed_search("hang-stop", 0.3, "timed out after 0.3 s", NULL, NULL);
}

static const char *
case_bad_move(void)
{
	return failed_search("badmove", 0, "malformed bestmove \"z9z9\"", NULL, NULL);
}

static const char *
case_bad_info(void)
{
	return failed_search("badinfo", 0, "malformed info line: not a count after \"depth\"",
	    NULL, NULL);
}

static const char *
case_flood(void)
{
	return failed_search("flood", 0, "printed a line longer than 65536 bytes during search",
	    NULL, NULL);
}

static const char *
case_ignore_searchmoves(void)
{
	static const char *const sm[] = { "d2d4", "c2c4" };
	struct engine_limit lim = { 100, 0, 0 };
	struct engine_result r = ENGINE_RESULT_INIT;
	struct err e = ERR_INIT;
	struct engine *g = start("ignore-searchmoves", &e);
	const char *w;

	if (g == NULL)
		return fail("%s", e.msg);
	if (engine_search(g, NULL, &lim, sm, 2, &r, &e) == 0)
		w = fail("a bestmove outside the searchmoves taken");
	else
		w = expect_err(&e, ERR_INPUT, "bestmove e2e4 is not among the searchmoves",
		    (const char *)NULL);
	engine_result_release(&r);
	const char *w2 = end(g);
	return w ? w : w2;
}

static const char *
case_noquit(void)
{
	struct err e = ERR_INIT;
	struct engine *g = start("noquit", &e);
	double t0;
	const char *w;

	if (g == NULL)
		return fail("%s", e.msg);
	t0 = now();
	w = end(g);
	if (w == NULL && now() - t0 < ENGINE_QUIT_GRACE_S * 0.9)
		w = fail("killed before its grace");
	return w;
}

/* A child of the engine, in its process group, goes with it. */
static const char *
case_grandchild(void)
{
	char pidfile[4096], state = 0, statpath[64], b[512];
	struct err e = ERR_INIT;
	struct engine *g;
	long gpid = 0;
	FILE *fp;

	snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", tmp);
	setenv("FAKE_UCI_PIDFILE", pidfile, 1);
	g = start("fork", &e);
	unsetenv("FAKE_UCI_PIDFILE");
	if (g == NULL)
		return fail("%s", e.msg);
	if ((fp = fopen(pidfile, "r")) == NULL || fscanf(fp, "%ld", &gpid) != 1 || gpid <= 0) {
		if (fp != NULL)
			fclose(fp);
		end(g);
		return fail("no grandchild pid");
	}
	fclose(fp);
	const char *w = end(g);
	if (w != NULL)
		return w;
	/* killed; init may take a moment to reap it */
	snprintf(statpath, sizeof statpath, "/proc/%ld/stat", gpid);
	for (int i = 0; i < 100; i++) {
		fp = fopen(statpath, "r");
		if (fp == NULL)
			return NULL;
		state = 0;
		if (fgets(b, sizeof b, fp) != NULL && strrchr(b, ')') != NULL)
			state = strrchr(b, ')')[2];
		fclose(fp);
		if (state == 'Z' || state == 'X')
			return NULL;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	return fail("grandchild %ld still running (state %c)", gpid, state);
}

/* The engine gets stdin, stdout and stderr, none of our descriptors, even
 * one left inheritable; and our 0..2 closed do not confuse the pipes. */
static const char *
case_descriptors(void)
{
	struct err e = ERR_INIT;
	struct engine *g;
	const char *w = NULL;
	int leak[2], saved;

	if (pipe(leak) < 0)
		return fail("pipe");
	g = start("fds", &e);
	if (g == NULL || strcmp(engine_name(g), "fds: 0 1 2") != 0)
		w = fail("the engine has %s", g ? engine_name(g) : e.msg);
	const char *w2 = end(g);
	close(leak[0]);
	close(leak[1]);
	/* our stdin closed: the first pipe would be 0 */
	saved = dup(0);
	close(0);
	g = w ? NULL : start("ok", &e);
	if (w == NULL && (g == NULL || engine_isready(g, &e) < 0))
		w = fail("with stdin closed: %s", e.msg);
	const char *w3 = end(g);
	dup2(saved, 0);
	close(saved);
	return w ? w : w2 ? w2 : w3;
}

/* With SIGCHLD ignored, the kernel reaps for us: still no hang, no leak. */
static const char *
case_sigchld_ignored(void)
{
	struct sigaction ign = { 0 }, old;
	const char *w;

	ign.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &ign, &old);
	w = search_ok("ok");
	if (w == NULL)
		w = refused_start("hello", 0, ERR_INPUT, "not a UCI engine", NULL, NULL);
	sigaction(SIGCHLD, &old, NULL);
	return w;
}

int
main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: engine_check FAKE_UCI TMPDIR DATADIR\n");
		return 2;
	}
	fake = argv[1];
	tmp = argv[2];
	data = argv[3];
	if (getenv("COHORT_SANITIZED") != NULL && *getenv("COHORT_SANITIZED") != '\0')
		slack = 3;
	snprintf(logpath, sizeof logpath, "%s/fake-uci.log", tmp);
	setenv("FAKE_UCI_LOG", logpath, 1);
	signal(SIGPIPE, SIG_DFL);
#define RUN(fn, name)                                                                        \
	do {                                                                                 \
		unlink(logpath);                                                             \
		run(name, fn);                                                               \
	} while (0)
	RUN(case_moves, "move syntax");
	RUN(case_info_lines, "info lines: fields, bounds, skipped words, refusals");
	RUN(case_option_lines, "option lines: names with spaces, combos, refusals");
	RUN(case_bestmove_lines, "bestmove lines: ponder, (none), refusals");
	RUN(case_transcripts, "what six Debian engines print reads whole");
	RUN(case_handshake, "handshake: id lines and eight declared options");
	RUN(case_setoption, "setoption: undeclared, out of range, bad values refused");
	RUN(case_search, "search: MultiPV 3 lines, last deepest, searchmoves, limits");
	RUN(case_crlf, "an engine ending lines with CR LF");
	RUN(case_noisy, "a megabyte on stderr does not block the engine");
	RUN(case_no_move, "bestmove (none): no move, no lines");
	RUN(case_refused_search, "bad FEN, limit or searchmove refused, nothing sent");
	RUN(case_binary_path, "binary path through a symbolic link and PATH");
	RUN(case_missing, "no such engine, not executable");
	RUN(case_hello, "not UCI: prints hello and exits");
	RUN(case_garbage, "not UCI: garbage and no uciok before the timeout");
	RUN(case_die_after_uci, "dies after uci: its status and stderr");
	RUN(case_bad_option, "a malformed option line ends the handshake");
	RUN(case_flood_uci, "a 1 MB line in the handshake");
	RUN(case_dead_reader, "an engine gone: an error, no SIGPIPE");
	RUN(case_die_search, "dies mid-search: killed by signal 9");
	RUN(case_exit_search, "exits mid-search: status 7, last lines");
	RUN(case_hang, "never answers go: timed out, killed");
	RUN(case_hang_stop, "answers only stop: still a timeout");
	RUN(case_bad_move, "a garbage bestmove");
	RUN(case_bad_info, "a malformed info line");
	RUN(case_flood, "a 1 MB line mid-search");
	RUN(case_ignore_searchmoves, "a bestmove outside the searchmoves");
	RUN(case_noquit, "ignores quit: killed after its grace");
	RUN(case_grandchild, "the engine's own child is killed with it");
	RUN(case_sigchld_ignored, "SIGCHLD ignored by the caller");
	RUN(case_descriptors, "only stdin, stdout, stderr passed; our 0 closed");
	unlink(logpath);
	return failed ? 1 : 0;
}
