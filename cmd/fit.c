/* fit.c: `cohort fit` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_fit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort fit: not implemented yet\n");
	return EXIT_ERROR;
}
