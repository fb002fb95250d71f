/* bundle.c: `cohort bundle` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_bundle(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort bundle: not implemented yet\n");
	return EXIT_ERROR;
}
