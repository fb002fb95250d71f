/* ucifeed.c: the least a UCI driver can do, as the baseline of
 * bench/candidates.sh.  ucifeed ENGINE COMMANDS runs ENGINE, sends it
 * the command lines one by one, and after `uci`, `isready` and `go ...`
 * reads its output only up to uciok, readyok and bestmove; at the end
 * `quit`, and waits for it to exit.  Nothing is parsed or kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
wait_for(FILE *in, const char *word)
{
	static char *line;
	static size_t cap;
	size_t n = strlen(word);

	while (getline(&line, &cap, in) > 0)
		if (strncmp(line, word, n) == 0 && (line[n] == '\n' || line[n] == ' ' || line[n] == '\r'))
			return 0;
	return -1;
}

int
main(int argc, char **argv)
{
	int to[2], from[2], status, quit = 0;
	char *cmd = NULL;
	size_t cap = 0;
	FILE *out, *in, *cmds;
	pid_t pid;

	if (argc != 3 || (cmds = fopen(argv[2], "r")) == NULL) {
		fprintf(stderr, "usage: ucifeed ENGINE COMMANDS\n");
		return 2;
	}
	if (pipe(to) < 0 || pipe(from) < 0 || (pid = fork()) < 0)
		return 2;
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]), close(to[1]), close(from[0]), close(from[1]);
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	out = fdopen(to[1], "w");
	in = fdopen(from[0], "r");
	while (getline(&cmd, &cap, cmds) > 0) {
		const char *want = strncmp(cmd, "uci\n", 4) == 0 ? "uciok" :
		    strncmp(cmd, "isready", 7) == 0 ? "readyok" :
		    strncmp(cmd, "go", 2) == 0 ? "bestmove" : NULL;
		quit |= strncmp(cmd, "quit", 4) == 0;
		fputs(cmd, out);
		fflush(out);
		if (want != NULL && wait_for(in, want) < 0) {
			fprintf(stderr, "ucifeed: the engine ended before %s\n", want);
			return 1;
		}
	}
	if (!quit)
		fputs("quit\n", out);
	fclose(out);
	while (wait_for(in, "\1") == 0)
		; /* to the end of its output */
	waitpid(pid, &status, 0);
	fclose(cmds);
	free(cmd);
	return 0;
}
