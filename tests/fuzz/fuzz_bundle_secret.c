/* fuzz_bundle_secret.c: the credential scan over arbitrary bytes, whole and
 * split at a line end as cohort bundle splits large files: no crash, no read
 * outside the buffer, and every hit's line within the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../bundle/secret.h"

struct lines {
	long max;
};

static int
hit(void *ctx, const struct secret_hit *h)
{
	const struct lines *l = ctx;

	if (h->line < 1 || h->line > l->max || h->rule == NULL || h->action == NULL ||
	    memchr(h->masked, '\0', sizeof h->masked) == NULL)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so reading past the end is caught */
	char *p = malloc(size ? size : 1);
	struct lines l = { 1 };

	if (p == NULL)
		return 0;
	memcpy(p, data, size);
	for (size_t i = 0; i < size; i++)
		l.max += p[i] == '\n';
	secret_scan(p, size, hit, &l);
	free(p);
	return 0;
}
