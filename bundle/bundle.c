/* bundle.c: the publication gate (see bundle.h): a bundle spec read,
 * every file it names read once, the missing, stale, live and secret
 * checks run, and either a refusal with every finding or the archive.
 * The gate's parts are spec.c, read.c, graph.c, refreeze.c, slow.c,
 * git.c and archive.c; the archive's verifier is verify_*.c. */
#include "bundle_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../secret/secret.h"

int
bundle_spec_err(struct ctx *c, long index, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (index >= 0)
		return err_set(c->e, ERR_INPUT, "%s: items[%ld]: \"%s\": %s", c->spec_path, index, field,
		    msg);
	return err_set(c->e, ERR_INPUT, "%s: \"%s\": %s", c->spec_path, field, msg);
}

cJSON *
bundle_finding(struct ctx *c, const char *check, const struct item *it, const char *path, long line,
    const char *action, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	cJSON *f = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (f == NULL)
		return NULL;
	json_add_string(f, "check", check);
	if (it)
		json_add_string(f, "role", it->role);
	if (path)
		json_add_string(f, "path", path);
	if (line > 0)
		json_add_number(f, "line", (double)line);
	json_add_string(f, "detail", detail);
	json_add_string(f, "action", action);
	cJSON_AddItemToArray(c->findings, f);
	return f;
}

void
bundle_stage(const struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (c->o->progress == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->o->progress(c->o->progress_ctx, msg);
}

static void
ctx_release(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		cJSON_Delete(c->it[i].doc);
		freeze_games_free(c->it[i].games);
		cJSON_Delete(c->it[i].git_out);
		cJSON_Delete(c->it[i].implied);
	}
	for (size_t k = 0; k < c->nf; k++) {
		free(c->f[k].rel);
		free(c->f[k].abs);
	}
	free(c->f);
	free(c->it);
	free(c->dir);
	cJSON_Delete(c->spec);
	cJSON_Delete(c->findings);
	cJSON_Delete(c->checks);
	secret_rules_free(c->rules);
}

/* The archive (or the report, o->out with o->check) is none of the
 * bundle's files, nor its spec (io_output_check). */
static int
output_check(struct ctx *c, const struct bundle_opts *o)
{
	const char **in = malloc((c->nf + 1) * sizeof *in);
	int rc;

	if (in == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	in[0] = o->spec;
	for (size_t k = 0; k < c->nf; k++)
		in[k + 1] = c->f[k].abs;
	rc = io_output_check(o->out, in, c->nf + 1, c->e);
	free(in);
	return rc;
}

int
bundle_run(const struct bundle_opts *o, cJSON **doc, char id[HASH_ID_LEN + 1], struct err *e)
{
	struct ctx c;
	struct slot *slots = NULL;
	int rc = -1, ran;

	memset(&c, 0, sizeof c);
	*doc = NULL;
	id[0] = '\0';
	c.spec_path = o->spec;
	c.o = o;
	c.e = e;
	c.findings = cJSON_CreateArray();
	c.checks = cJSON_CreateArray();
	if (c.findings == NULL || c.checks == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((c.rules = secret_rules_new(o->rules, e)) == NULL)
		goto done;
	if (bundle_spec_read(&c) < 0 || canon_id(c.spec, c.spec_id, e) < 0 || bundle_files_read(&c) < 0 ||
	    bundle_imply_graph(&c) < 0)
		goto done;
	/* inputs are never modified: the archive (with --check, the report)
	 * may not replace one of them */
	if (output_check(&c, o) < 0)
		goto done;
	bundle_check_missing(&c);
	bundle_check_inputs(&c);
	bundle_check_live(&c);
	bundle_check_cuts(&c);
	bundle_stage(&c, "freezing the ledgers again, checking the stores, computing again");
	if ((slots = bundle_slow_run(&c)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (bundle_check_freeze_ledgers(&c, slots, &ran) < 0)
		goto done;
	bundle_stage(&c, "checking git");
	if (bundle_check_git(&c) < 0)
		goto done;
	if (bundle_check_refits(&c, slots) < 0)
		goto done;
	bundle_check_claims(&c);
	if (bundle_check_stores(&c, slots) < 0)
		goto done;
	bundle_stage(&c, o->check ? "done" : "writing the archive");
	/* the checks that ran, sorted */
	{
		const char *names[] = { "freeze-ledgers", "git", "identity", "live", "missing", "refit",
			"secret", "stale", "store" };
		/* "claims" (first in that order) only where claims are made */
		if (json_get(c.spec, "claims") != NULL)
			cJSON_AddItemToArray(c.checks, cJSON_CreateString("claims"));
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (k != 0 || ran)
				cJSON_AddItemToArray(c.checks, cJSON_CreateString(names[k]));
	}
	if (cJSON_GetArraySize(c.findings) > 0) {
		*doc = bundle_refusal_make(&c);
		rc = 1;
		goto done;
	}
	*doc = bundle_doc_make(&c);
	if (!o->check && bundle_archive_write(&c, o, *doc, id) < 0) {
		cJSON_Delete(*doc);
		*doc = NULL;
		goto done;
	}
	rc = 0;
done:
	bundle_slots_free(slots, c.n);
	ctx_release(&c);
	return rc;
}
