/* ladder.c: `cohort ladder` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_ladder(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort ladder: not implemented yet\n");
	return EXIT_ERROR;
}
