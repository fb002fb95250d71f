/* bundle_secret.c: run the credential scan over files and print each hit
 * as "FILE:LINE: RULE MASKED"; with -q print only "FILE: N". */
#include <stdio.h>
#include <string.h>

#include "../../bundle/secret.h"

struct ctx {
	const char *name;
	int quiet;
};

static int
print_hit(void *p, const struct secret_hit *h)
{
	const struct ctx *c = p;

	if (!c->quiet)
		printf("%s:%ld: %s %s\n", c->name, h->line, h->rule, h->masked);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c = { NULL, 0 };
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct err e = ERR_INIT;
		long n;

		if (strcmp(argv[i], "-q") == 0) {
			c.quiet = 1;
			continue;
		}
		c.name = argv[i];
		n = secret_scan_file(argv[i], print_hit, &c, &e);
		if (n < 0) {
			fprintf(stderr, "%s\n", e.msg);
			rc = 2;
		} else if (c.quiet) {
			printf("%s: %ld\n", argv[i], n);
		}
	}
	return rc;
}
