/* hooks.c: verify's links to the other modules: derived documents are
 * computed again from their input with the options they record, and
 * archives and bag folders go to the bundle module. */
#include <stdio.h>
#include <string.h>

#include "../bundle/bundle.h"
#include "../fit/bound.h"
#include "../fit/fit.h"
#include "../json/json.h"
#include "hooks.h"
#include "verify.h"

/* Recompute a cohort.bound/1 from input with the options it records. */
static int
bound_refit(const cJSON *doc, const cJSON *input, const char *name, int *same, struct err *e)
{
	struct bound_cohort c = BOUND_COHORT_INIT;
	struct bound_options o = { 0.95, 0 };
	const cJSON *opts;
	const char *sides = "two";
	struct buf x = BUF_INIT, y = BUF_INIT;
	cJSON *again = NULL;
	int rc = -1;

	if (json_get_object(doc, "options", 1, &opts, e) < 0 ||
	    json_get_number(opts, "level", 1, &o.level, e) < 0 ||
	    json_get_string(opts, "sides", 0, &sides, e) < 0)
		return err_prefix(e, "%s: \"options\"", name);
	o.one_sided = strcmp(sides, "one") == 0;
	if (bound_cohort_read(input, name, &c, e) < 0 || canon_id(input, c.id, e) < 0 ||
	    bound_document(&c, &o, &again, e) < 0)
		goto done;
	if (canon_write(doc, &x, e) < 0 || canon_write(again, &y, e) < 0)
		goto done;
	*same = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
	rc = 0;
done:
	cJSON_Delete(again);
	buf_release(&x);
	buf_release(&y);
	bound_cohort_release(&c);
	return rc;
}

int
verify_hook_derived(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    cJSON *checks, struct err *e)
{
	int same = 0, rc;

	if (strcmp(kind, "cohort.fit/1") == 0)
		rc = fit_refit_check(doc, input, &same, e);
	else if (strcmp(kind, "cohort.bound/1") == 0)
		rc = bound_refit(doc, input, name, &same, e);
	else
		return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", name, kind);
	if (rc < 0) {
		/* An input the derivation cannot even read is a finding about
		 * the pair, not an unreadable file. */
		verify_check_add(checks, "refit", name, 0, e->msg);
		return 1;
	}
	verify_check_add(checks, "refit", name, same,
	    same ? "computed again from its input: the same bytes" :
	    "computed again from its input: different bytes");
	return same ? 0 : 1;
}

int
verify_hook_bundle(const char *path, cJSON *checks, struct err *e)
{
	return bundle_verify_path(path, checks, e);
}
