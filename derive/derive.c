/* derive.c: the table of derived kinds and the refit-and-compare step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fingerprint/fp.h"
#include "../json/json.h"
#include "../fit/bound.h"
#include "../fit/fit.h"
#include "../paired/paired.h"
#include "../protocol/prereg.h"
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

/* A preregistration, read as every command governed by it reads it. */
static int
prereg_input(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e)
{
	struct prereg p = PREREG_INIT;

	if (prereg_parse(doc, name, &p, e) < 0)
		return -1;
	snprintf(detail, n, "a cohort.prereg/1 of %zu features: an input, nothing of its own to "
	    "compute again", p.nfeatures);
	prereg_release(&p);
	return 0;
}

static const struct {
	const char *kind;
	int (*read)(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e);
} inputs[] = {
	{ "cohort.blocks/1", blocks_input },
	{ "cohort.prereg/1", prereg_input },
};

/* -------- kinds of several inputs -------- */

static int
fingerprint_same(const cJSON *doc, const cJSON *const *in, const char *const *stores, size_t n,
    const char *name, int *same, struct err *e)
{
	struct prereg p = PREREG_INIT;
	struct fp_input *fi = calloc(n, sizeof *fi);
	int rc = -1;

	if (fi == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 1; i < n; i++) {
		fi[i - 1] = (struct fp_input){ in[i], stores[i], name };
		if (stores[i] == NULL) {
			free(fi);
			return err_set(e, ERR_INPUT, "%s: a fingerprint needs its freezes' stores", name);
		}
	}
	if (prereg_parse(in[0], "prereg", &p, e) == 0)
		rc = fp_refit_check(doc, &p, fi, n - 1, same, e);
	prereg_release(&p);
	free(fi);
	return rc;
}

static int
distance_same(const cJSON *doc, const cJSON *const *in, const char *const *stores, size_t n,
    const char *name, int *same, struct err *e)
{
	return fp_distance_refit_check(doc, in, n, same, e);
}

static const struct {
	const char *kind;
	const char *list; /* the member of "inputs" that lists them */
	int prereg;       /* the prereg comes first */
	int (*refit)(const cJSON *doc, const cJSON *const *in, const char *const *stores, size_t n,
	    const char *name, int *same, struct err *e);
} multi[] = {
	{ "cohort.fingerprint/1", "freezes", 1, fingerprint_same },
	{ "cohort.distance/1", "fingerprints", 0, distance_same },
};
#define NMULTI (sizeof multi / sizeof multi[0])

static size_t
multi_of(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < NMULTI; i++)
		if (strcmp(kind, multi[i].kind) == 0)
			break;
	return i;
}

int
derive_multi(const char *kind)
{
	return multi_of(kind) < NMULTI;
}

long
derive_inputs(const char *kind, const cJSON *doc, const char **ids, size_t max, struct err *e)
{
	size_t m = multi_of(kind), n = 0;
	const cJSON *x;

	if (m == NMULTI)
		return err_set(e, ERR_INPUT, "a %.60s document has no list of inputs", kind);
	if (multi[m].prereg) {
		if (!cJSON_IsString(json_get(doc, "prereg")))
			return err_set(e, ERR_INPUT, "\"prereg\": expected an identity");
		ids[n++] = json_get(doc, "prereg")->valuestring;
	}
	cJSON_ArrayForEach(x, json_get(json_get(doc, "inputs"), multi[m].list)) {
		if (!cJSON_IsString(x))
			return err_set(e, ERR_INPUT, "\"inputs\": \"%s\": expected identities",
			    multi[m].list);
		if (n < max)
			ids[n++] = x->valuestring;
	}
	if (n == (size_t)multi[m].prereg)
		return err_set(e, ERR_INPUT, "\"inputs\": \"%s\": expected identities", multi[m].list);
	return (long)n;
}

int
derive_check_inputs(const char *kind, const cJSON *doc, const cJSON *const *in,
    const char *const *stores, size_t n, const char *name, cJSON *checks, struct err *e)
{
	size_t m = multi_of(kind);
	int same = 0;

	if (m == NMULTI)
		return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", name, kind);
	if (multi[m].refit(doc, in, stores, n, name, &same, e) < 0) {
		verify_check_add(checks, "refit", name, 0, e->msg);
		return 1;
	}
	verify_check_add(checks, "refit", name, same,
	    same ? "computed again from its inputs: the same bytes" :
	    "computed again from its inputs: different bytes");
	return same ? 0 : 1;
}

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
