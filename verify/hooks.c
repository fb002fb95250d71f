/* hooks.c: verify's links to the bundle and fit modules. */
#include <string.h>

#include "hooks.h"
#include "verify.h"

int
verify_hook_bundle(const char *path, cJSON *checks, struct err *e)
{
	(void)checks;
	return err_set(e, ERR_INPUT, "%s: bundle verification is not built in", path);
}

int
verify_hook_derived(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    cJSON *checks, struct err *e)
{
	(void)doc;
	(void)input;
	(void)checks;
	return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", name, kind);
}
