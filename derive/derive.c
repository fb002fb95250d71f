/* derive.c: the table of derived kinds and the refit-and-compare step. */
#include <stdio.h>
#include <string.h>

#include "../fit/bound.h"
#include "../fit/fit.h"
#include "../paired/paired.h"
#include "../verify/verify.h"
#include "derive.h"

static int
fit_same(const cJSON *doc, const cJSON *input, const char *name, const struct derive_env *env,
    int *same, struct err *e)
{
	return fit_refit_check(doc, input, same, e);
}

static int
bound_same(const cJSON *doc, const cJSON *input, const char *name, const struct derive_env *env,
    int *same, struct err *e)
{
	return bound_refit_check(doc, input, name, same, e);
}

static int
paired_same(const cJSON *doc, const cJSON *input, const char *name, const struct derive_env *env,
    int *same, struct err *e)
{
	if (env == NULL || env->store_dir == NULL)
		return err_set(e, ERR_INPUT, "%s: a paired document needs its freeze's store", name);
	return paired_refit_check(doc, input, env->store_dir, name, same, e);
}

static const struct {
	const char *kind;
	int (*refit)(const cJSON *doc, const cJSON *input, const char *name,
	    const struct derive_env *env, int *same, struct err *e);
} kinds[] = {
	{ "cohort.fit/1", fit_same },
	{ "cohort.bound/1", bound_same },
	{ "cohort.paired/1", paired_same },
};

/* A blocks document, read with the reader bound and ladder next share
 * (fit reads the same fields; its refit reads the document again). */
static int
blocks_input(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e)
{
	struct blocks c = BLOCKS_INIT;

	if (bound_blocks_read(doc, name, &c, e) < 0)
		return -1;
	snprintf(detail, n, "a cohort.blocks/1 document of %zu blocks: an input, nothing of its own "
	    "to compute again", c.n);
	blocks_release(&c);
	return 0;
}

static const struct {
	const char *kind;
	int (*read)(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e);
} inputs[] = {
	{ "cohort.blocks/1", blocks_input },
};

int
derive_is_input(const char *kind)
{
	for (size_t i = 0; kind && i < sizeof inputs / sizeof inputs[0]; i++)
		if (strcmp(kind, inputs[i].kind) == 0)
			return 1;
	return 0;
}

int
derive_input_check(const char *kind, const cJSON *doc, const char *name, cJSON *checks,
    struct err *e)
{
	char detail[256];
	size_t i;

	for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
		if (strcmp(kind, inputs[i].kind) == 0)
			break;
	if (i == sizeof inputs / sizeof inputs[0])
		return err_set(e, ERR_INPUT, "%s: a %.60s document is not an input", name, kind);
	if (inputs[i].read(doc, name, detail, sizeof detail, e) < 0) {
		verify_check_add(checks, "input", name, 0, e->msg);
		return 1;
	}
	verify_check_add(checks, "input", name, 1, detail);
	return 0;
}

int
derive_known(const char *kind)
{
	for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i].kind) == 0)
			return 1;
	return 0;
}

int
derive_check(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    const struct derive_env *env, cJSON *checks, struct err *e)
{
	size_t i;
	int same = 0;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i].kind) == 0)
			break;
	if (i == sizeof kinds / sizeof kinds[0])
		return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", name, kind);
	if (kinds[i].refit(doc, input, name, env, &same, e) < 0) {
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
