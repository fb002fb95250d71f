/* fake_uci.c: a small UCI engine for the driver's tests, right or wrong
 * on purpose.  fake_uci MODE; modes:
 *   ok                 a minimal engine answering searches deterministically
 *   crlf               ok, with CR LF line ends
 *   noisy              ok, after a megabyte on stderr
 *   fork               ok, with a child in its process group whose pid goes
 *                      to $FAKE_UCI_PIDFILE
 *   die-after-uci      prints an id line and exits 3
 *   exit-after-uciok   finishes the handshake, then exits 0
 *   die-search         an info line on go, then SIGKILL to itself
 *   exit-search        an info line on go, then exit 7
 *   hang               never answers go, ignores stop
 *   hang-stop          answers go only when stopped
 *   hello              prints "hello" and exits: not UCI
 *   garbage            prints garbage, never uciok, stays
 *   badmove            bestmove z9z9
 *   badinfo            an info line with depth x
 *   badoption          a spin option without min and max
 *   flood              a 1 MB line on go
 *   flood-uci          a 1 MB line in the handshake
 *   noquit             ignores quit, end of input and SIGTERM
 *   ignore-searchmoves bestmove e2e4 whatever the searchmoves
 *   fds                ok, named after the descriptors it has open
 * and the chess modes, which answer legally in any position (they use the
 * chess core): every legal move (or each searchmove) gets a made-up score
 * from its squares, plus $FAKE_UCI_SHIFT when set; MultiPV up to 500;
 * three depths of lines, each pv the move and the first reply in UCI
 * order; bestmove the best:
 *   chess              as said
 *   chess-illegal-pv   the last depth's line 2 (or 1) plays its move twice
 *   chess-illegal-eval a search with searchmoves plays its move twice
 *   chess-illegal-best bestmove a1a1
 *   chess-bound        the last depth's line 2 scores above line 1, marked
 *                      lowerbound
 *   chess-hang         never answers go
 *   chess-die          an info line on go, then SIGKILL to itself
 * Every command read is appended to $FAKE_UCI_LOG when set.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../chess/chess.h"

static const char *mode = "ok";
static FILE *logf;

static int
is(const char *m)
{
	return strcmp(mode, m) == 0;
}

static int
chess_mode(void)
{
	return strncmp(mode, "chess", 5) == 0;
}

/* One line out, flushed, with the mode's line end. */
static void
say(const char *s)
{
	fputs(s, stdout);
	fputs(is("crlf") ? "\r\n" : "\n", stdout);
	fflush(stdout);
}

static void
flood_line(void)
{
	static char chunk[4096];

	memset(chunk, 'x', sizeof chunk);
	for (int i = 0; i < 256; i++)
		if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk)
			_exit(1);
	say("");
}

/* "id name fds: 0 1 2": what we were given, not counting our own. */
static void
say_fds(void)
{
	char line[1024] = "id name fds:";
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(d) || (logf != NULL && fd == fileno(logf)))
			continue;
		snprintf(line + strlen(line), sizeof line - strlen(line), " %d", fd);
	}
	if (d != NULL)
		closedir(d);
	say(line);
}

static void
handshake(void)
{
	if (is("flood-uci"))
		flood_line();
	if (is("fds"))
		say_fds();
	else
		say(chess_mode() ? "id name Fake Chess 1.0" : "id name Fake UCI 1.0");
	if (is("die-after-uci")) {
		fputs("fake: dying after uci\n", stderr);
		exit(3);
	}
	say("id author the tests");
	say("option name Hash type spin default 16 min 1 max 1024");
	say("option name Threads type spin default 1 min 1 max 8");
	say(chess_mode() ? "option name MultiPV type spin default 1 min 1 max 500" :
	                   "option name MultiPV type spin default 1 min 1 max 8");
	say("option name Ponder type check default false");
	say("option name Style type combo default Solid var Solid var Wild var Fail High");
	say("option name Clear Hash type button");
	say("option name Book File type string default book.bin");
	say("option name Debug Log File type string default ");
	if (is("badoption"))
		say("option name Broken type spin default 1");
	say("uciok");
	if (is("exit-after-uciok"))
		exit(0);
}

struct go {
	int depth;
	long nodes;
	char moves[16][8];
	int nmoves;
};

static void
parse_go(char *s, struct go *g)
{
	char *w, *save = NULL;
	int in_moves = 0;

	g->depth = 3;
	g->nodes = 1000;
	g->nmoves = 0;
	for (w = strtok_r(s, " \n", &save); w != NULL; w = strtok_r(NULL, " \n", &save)) {
		if (strcmp(w, "depth") == 0 && (w = strtok_r(NULL, " \n", &save)) != NULL)
			g->depth = atoi(w);
		else if (strcmp(w, "nodes") == 0 && (w = strtok_r(NULL, " \n", &save)) != NULL)
			g->nodes = atol(w);
		else if (strcmp(w, "searchmoves") == 0)
			in_moves = 1;
		else if (in_moves && g->nmoves < 16)
			snprintf(g->moves[g->nmoves++], 8, "%s", w);
	}
}

static const char *
move_for(const struct go *g, int k)
{
	static const char *const list[] = { "e2e4", "d2d4", "g1f3", "c2c4", "b1c3", "f2f4",
		"g2g3", "b2b3" };

	return g->nmoves > 0 ? g->moves[(k - 1) % g->nmoves] : list[(k - 1) % 8];
}

static void
info(const struct go *g, int d, int k)
{
	char line[512];
	long nodes = g->nodes * d / g->depth;
	const char *score = "cp";
	int value = 50 - 10 * k + d;

	if (k == 2) {
		score = "mate";
		value = 3;
	}
	snprintf(line, sizeof line,
	    "info depth %d seldepth %d multipv %d score %s %d nodes %ld nps 100000 time %d "
	    "hashfull 0 tbhits 0 pv %s e7e5 g1f3",
	    d, d + 2, k, score, value, nodes, d, move_for(g, k));
	say(line);
}

static void
search(char *cmd, int multipv, int mated)
{
	struct go g;
	char line[512];

	parse_go(cmd, &g);
	if (is("hang") || is("hang-stop"))
		return;
	if (mated) {
		say("info depth 0 score mate 0");
		say("bestmove (none)");
		return;
	}
	say("info string searching");
	if (is("die-search") || is("exit-search")) {
		say("info depth 1 seldepth 1 score cp 10 nodes 10 pv e2e4");
		fputs("fake: crash\n", stderr);
		if (is("exit-search"))
			exit(7);
		kill(getpid(), SIGKILL);
	}
	if (is("flood"))
		flood_line();
	if (is("badinfo"))
		say("info depth x pv e2e4");
	for (int d = 1; d <= g.depth; d++) {
		if (d == g.depth) {
			snprintf(line, sizeof line,
			    "info depth %d seldepth %d multipv 1 score cp 99 upperbound nodes 1 "
			    "pv %s", d, d, move_for(&g, 1));
			say(line);
		}
		for (int k = 1; k <= multipv; k++)
			info(&g, d, k);
	}
	say("info depth 3 currmove e2e4 currmovenumber 1");
	snprintf(line, sizeof line, "info nodes %ld time 5", g.nodes);
	say(line);
	if (is("badmove"))
		say("bestmove z9z9");
	else if (is("ignore-searchmoves"))
		say("bestmove e2e4 ponder e7e5");
	else {
		snprintf(line, sizeof line, "bestmove %s ponder e7e5", move_for(&g, 1));
		say(line);
	}
}

/* ---- the chess modes ---- */

static struct chess_pos board;

static void
chess_position(const char *cmd)
{
	const char *fen = strstr(cmd, "fen ");

	if (fen == NULL || chess_fen_read(&board, fen + 4, NULL) < 0)
		chess_start(&board);
}

struct scored {
	struct chess_move m;
	char uci[CHESS_UCI_MAX];
	int cp;
};

static int
by_score(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;

	return x->cp != y->cp ? y->cp - x->cp : strcmp(x->uci, y->uci);
}

static int
by_text(const void *a, const void *b)
{
	char x[CHESS_UCI_MAX], y[CHESS_UCI_MAX];

	chess_uci_write(*(const struct chess_move *)a, x);
	chess_uci_write(*(const struct chess_move *)b, y);
	return strcmp(x, y);
}

/* The first reply in UCI order after m, or "" when there is none. */
static void
reply(struct chess_move m, char out[CHESS_UCI_MAX])
{
	struct chess_move ms[CHESS_MAX_MOVES];
	struct chess_pos p = board;
	int n;

	chess_play(&p, m);
	n = chess_moves(&p, ms);
	out[0] = '\0';
	if (n > 0) {
		qsort(ms, (size_t)n, sizeof ms[0], by_text);
		chess_uci_write(ms[0], out);
	}
}

static void
chess_search(char *cmd, int multipv)
{
	static struct scored sc[CHESS_MAX_MOVES];
	struct chess_move ms[CHESS_MAX_MOVES];
	const char *shift = getenv("FAKE_UCI_SHIFT");
	char line[512], r[CHESS_UCI_MAX];
	int n = chess_moves(&board, ms), k = 0;
	struct go g;

	parse_go(cmd, &g);
	if (is("chess-hang"))
		return;
	if (is("chess-die")) {
		say("info depth 1 seldepth 1 score cp 10 nodes 10 pv e2e4");
		fputs("fake: crash\n", stderr);
		kill(getpid(), SIGKILL);
	}
	for (int i = 0; i < n; i++) {
		char u[CHESS_UCI_MAX];
		int wanted = g.nmoves == 0;
		chess_uci_write(ms[i], u);
		for (int j = 0; j < g.nmoves; j++)
			wanted |= strcmp(g.moves[j], u) == 0;
		if (!wanted)
			continue;
		sc[k].m = ms[i];
		memcpy(sc[k].uci, u, sizeof u);
		sc[k].cp = (ms[i].from * 7 + ms[i].to * 13 + ms[i].promo * 5) % 97 - 48 +
		    (shift ? atoi(shift) : 0);
		k++;
	}
	if (k == 0) {
		say("info depth 0 score mate 0");
		say("bestmove (none)");
		return;
	}
	qsort(sc, (size_t)k, sizeof sc[0], by_score);
	if (multipv > k)
		multipv = k;
	for (int d = 1; d <= 3; d++)
		for (int i = 0; i < multipv; i++) {
			int last = d == 3, odd = last && i == (multipv > 1 ? 1 : 0);
			const char *bound = "";
			int cp = sc[i].cp;
			reply(sc[i].m, r);
			if ((odd && is("chess-illegal-pv")) ||
			    (last && g.nmoves > 0 && is("chess-illegal-eval")))
				memcpy(r, sc[i].uci, sizeof r);
			if (odd && i == 1 && is("chess-bound")) {
				cp = sc[0].cp + 50;
				bound = " lowerbound";
			}
			snprintf(line, sizeof line,
			    "info depth %d seldepth %d multipv %d score cp %d%s nodes %ld nps 1000 time 1 "
			    "pv %s%s%s", d, d, i + 1, cp, bound, g.nodes * d / 3, sc[i].uci, r[0] ? " " : "", r);
			say(line);
		}
	snprintf(line, sizeof line, "bestmove %s", is("chess-illegal-best") ? "a1a1" : sc[0].uci);
	say(line);
}

static void
start_child(void)
{
	const char *pidfile = getenv("FAKE_UCI_PIDFILE");
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pidfile != NULL) {
		FILE *fp = fopen(pidfile, "w");
		if (fp != NULL) {
			fprintf(fp, "%ld\n", (long)pid);
			fclose(fp);
		}
	}
}

static void
forever(void)
{
	for (;;)
		pause();
}

int
main(int argc, char **argv)
{
	static char cmd[8192];
	int multipv = 1, mated = 0;

	if (argc > 1)
		mode = argv[1];
	if (getenv("FAKE_UCI_LOG") != NULL)
		logf = fopen(getenv("FAKE_UCI_LOG"), "a");
	if (is("hello")) {
		say("hello");
		say("this is not a chess engine");
		return 0;
	}
	if (is("noquit"))
		signal(SIGTERM, SIG_IGN);
	if (is("noisy"))
		for (int i = 0; i < 1024; i++)
			fprintf(stderr, "%01023d\n", i);
	if (is("fork"))
		start_child();
	while (fgets(cmd, sizeof cmd, stdin) != NULL) {
		cmd[strcspn(cmd, "\r\n")] = '\0';
		if (logf != NULL) {
			fprintf(logf, "%s\n", cmd);
			fflush(logf);
		}
		if (is("garbage")) {
			say("garbage \x01 garbage");
			continue;
		}
		if (strcmp(cmd, "uci") == 0)
			handshake();
		else if (strcmp(cmd, "isready") == 0)
			say("readyok");
		else if (strncmp(cmd, "setoption name MultiPV value ", 29) == 0)
			multipv = atoi(cmd + 29);
		else if (strncmp(cmd, "position ", 9) == 0 && chess_mode())
			chess_position(cmd);
		else if (strncmp(cmd, "position ", 9) == 0)
			mated = strstr(cmd, "mated") != NULL;
		else if (strncmp(cmd, "go", 2) == 0 && chess_mode())
			chess_search(cmd, multipv);
		else if (strncmp(cmd, "go", 2) == 0)
			search(cmd, multipv, mated);
		else if (strcmp(cmd, "stop") == 0 && is("hang-stop"))
			say("bestmove e2e4");
		else if (strcmp(cmd, "quit") == 0 && !is("noquit"))
			break;
	}
	if (is("noquit"))
		forever();
	if (logf != NULL)
		fclose(logf);
	return 0;
}
