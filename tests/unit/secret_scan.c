/* secret_scan.c: run the credential scan over files and print each hit
 * as "FILE:LINE: RULE MASKED" (and ", WHERE" when it was decoded), then
 * "FILE: and N more of RULE" past the cap; with -q print only "FILE: N".
 *   secret_scan [-q] [--plain] [--cap N] [--rules FILE] [--threads N] FILE...
 * (--plain: without the keyword prefilter's AVX2 step, for comparison).
 * Exit 2 on an error (the message on stderr), else 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../secret/secret.h"

struct ctx {
	const char *name;
	int quiet;
};

static int
print_hit(void *p, const struct secret_hit *h)
{
	const struct ctx *c = p;

	if (c->quiet)
		return 0;
	if (h->more > 0)
		printf("%s: and %ld more of %s\n", c->name, h->more, h->rule);
	else
		printf("%s:%ld: %s %s%s%s\n", c->name, h->line, h->rule, h->masked,
		    h->where[0] ? ", " : "", h->where);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c = { NULL, 0 };
	struct secret_opts o = { 0, 1, 0 };
	struct secret_rules *rules;
	const char *extra = NULL;
	struct err e = ERR_INIT;
	int rc = 0, i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "-q") == 0)
			c.quiet = 1;
		else if (strcmp(argv[i], "--plain") == 0)
			o.plain = 1;
		else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc)
			o.cap = atol(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			o.threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc)
			extra = argv[++i];
		else {
			fprintf(stderr, "secret_scan: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if ((rules = secret_rules_new(extra, &e)) == NULL) {
		fprintf(stderr, "secret_scan: %s\n", e.msg);
		return 2;
	}
	for (; i < argc; i++) {
		long n;
		e = (struct err)ERR_INIT;
		c.name = argv[i];
		n = secret_scan_file(rules, &o, argv[i], print_hit, &c, &e);
		if (n < 0) {
			fprintf(stderr, "secret_scan: %s\n", e.msg);
			rc = 2;
		} else if (c.quiet) {
			printf("%s: %ld\n", argv[i], n);
		}
	}
	secret_rules_free(rules);
	return rc;
}
