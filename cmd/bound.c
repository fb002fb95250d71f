/* bound.c: `cohort bound` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_bound(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort bound: not implemented yet\n");
	return EXIT_ERROR;
}
