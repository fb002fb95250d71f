/* reconcile.c: `cohort reconcile` (not yet built). */
#include <stdio.h>

#include "cmd.h"

int
cmd_reconcile(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cohort reconcile: not implemented yet\n");
	return EXIT_ERROR;
}
