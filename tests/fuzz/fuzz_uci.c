/* fuzz_uci.c: any bytes as lines a UCI engine prints: the info, option
 * and bestmove readers take each line or refuse it with a message; what
 * they take holds (moves are moves, a spin's min is at most its max, a
 * combo has values), and nothing crashes, leaks or reads past the line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/uci.h"

static void
one_line(const char *s, size_t n)
{
	char *line = malloc(n + 1), best[8], ponder[8];
	struct err e = ERR_INIT;
	struct engine_info in;
	struct engine_option o;
	int rc;

	if (line == NULL)
		return;
	memcpy(line, s, n);
	line[n] = '\0';
	rc = engine_uci_info(line, &in, &e);
	if (rc < 0 && e.msg[0] == '\0')
		abort();
	for (size_t i = 0; rc == 0 && i < in.npv; i++)
		if (!engine_uci_move_ok(in.pv[i]))
			abort();
	if (rc == 0 && (in.multipv < 1 || in.depth < 0 || (in.has_cp && in.has_mate)))
		abort();
	if (rc == 0)
		engine_info_release(&in);
	memcpy(line, s, n);
	e.msg[0] = '\0';
	if (engine_uci_option(line, &o, &e) == 0) {
		if (o.name == NULL || o.name[0] == '\0' ||
		    (o.type == ENGINE_OPT_SPIN && o.min > o.max) ||
		    (o.type == ENGINE_OPT_COMBO && o.nvars == 0))
			abort();
		engine_option_release(&o);
	} else if (e.msg[0] == '\0') {
		abort();
	}
	memcpy(line, s, n);
	e.msg[0] = '\0';
	if (engine_uci_bestmove(line, best, ponder, &e) == 0) {
		if ((best[0] && !engine_uci_move_ok(best)) ||
		    (ponder[0] && !engine_uci_move_ok(ponder)))
			abort();
	} else if (e.msg[0] == '\0') {
		abort();
	}
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	/* lines end at a newline; a NUL ends the text a C string can carry */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *nul = memchr(p, '\0', n);
		one_line(p, nul ? (size_t)(nul - p) : n);
		p += n + 1;
	}
	return 0;
}
