/* verify.c: `cohort verify` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort verify: not implemented yet\n");
	return EXIT_ERROR;
}
