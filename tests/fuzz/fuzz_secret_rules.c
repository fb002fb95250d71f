/* fuzz_secret_rules.c: the rules-file reader (the TOML subset, the regular
 * expressions, the allowlists) over arbitrary bytes: no crash, no leak; an
 * error is an input error naming the file; rules that are accepted are
 * then used to scan the input itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../secret/secret.h"

static int
hit(void *ctx, const struct secret_hit *h)
{
	(void)ctx;
	if (h->rule == NULL || memchr(h->masked, '\0', sizeof h->masked) == NULL)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;
	struct secret_opts o = { 5, 1, 0 };
	char *p = malloc(size ? size : 1);
	struct secret_rules *r;

	if (p == NULL)
		return 0;
	memcpy(p, data, size);
	r = secret_rules_read("fuzz.toml", p, size, &e);
	if (r == NULL) {
		if ((e.code != ERR_INPUT && e.code != ERR_NOMEM) || strncmp(e.msg, "fuzz.toml:", 10) != 0)
			abort();
	} else {
		for (size_t i = 0; i < secret_rules_count(r); i++)
			if (secret_rules_id(r, i) == NULL)
				abort();
		e = (struct err)ERR_INIT;
		secret_scan(r, &o, "fuzz.toml", p, size, hit, NULL, &e);
		secret_rules_free(r);
	}
	free(p);
	return 0;
}
