/* freeze.c: `cohort freeze` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_freeze(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort freeze: not implemented yet\n");
	return EXIT_ERROR;
}
