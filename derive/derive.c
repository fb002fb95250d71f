/* derive.c: the table of derived kinds and the refit-and-compare step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fingerprint/fp.h"
#include "../json/json.h"
#include "../fit/bound.h"
#include "../fit/fit.h"
#include "../gate/gate.h"
#include "../json/json.h"
#include "../paired/paired.h"
#include "../pgnio/pgnio.h"
#include "../protocol/prereg.h"
#include "../verify/verify.h"
#include "derive.h"

static int
fit_same(const cJSON *doc, const cJSON *input, const char *name, const struct derive_env *env,
    int *same, struct err *e)
{
	return fit_refit_check(doc, input, env ? env->input_id : NULL, same, e);
}

static int
bound_same(const cJSON *doc, const cJSON *input, const char *name, const struct derive_env *env,
    int *same, struct err *e)
{
	return bound_refit_check(doc, input, env ? env->input_id : NULL, name, same, e);
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

	if (bound_blocks_read(doc, name, NULL, &c, e) < 0)
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
	snprintf(detail, n, "a cohort.prereg/1 (%s): an input, nothing of its own to compute again",
	    p.id);
	prereg_release(&p);
	return 0;
}

/* Evidence a gate rests on that is computed from files a bundle or verify
 * does not hold here (billing exports, an engine run): an input to the
 * gate, its own derivation is its command's. */
static int
evidence_input(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e)
{
	const char *kind;

	if (json_get_string(doc, "kind", 1, &kind, e) < 0)
		return err_prefix(e, "%s", name);
	snprintf(detail, n, "a %.40s document: an input to the gates; not computed again here",
	    kind);
	return 0;
}

/* A PGN tag map: what `cohort import pgn --map` read the games with,
 * checked as the import checks it. */
static int
pgnmap_input(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e)
{
	size_t keys;

	if (pgnio_map_check(doc, name, &keys, e) < 0)
		return -1;
	snprintf(detail, n,
	    "a cohort.pgn-map/1 setting %zu field%s over the built-in map: an "
	    "input to cohort import pgn, nothing of its own to compute again",
	    keys, keys == 1 ? "" : "s");
	return 0;
}

static const struct {
	const char *kind;
	int (*read)(const cJSON *doc, const char *name, char *detail, size_t n, struct err *e);
} inputs[] = {
	{ "cohort.blocks/1", blocks_input },
	{ "cohort.pgn-map/1", pgnmap_input },
	{ "cohort.prereg/1", prereg_input },
	{ "cohort.reconcile/1", evidence_input },
	{ "cohort.verify/1", evidence_input },
};

/* -------- kinds of several inputs -------- */

/* The input of kind in inputs[0..n) whose identity is id; *at its index. */
static const cJSON *
input_of(const cJSON *const *in, size_t n, const char *id, size_t *at, struct err *e)
{
	char x[HASH_ID_LEN + 1];

	for (size_t i = 0; i < n; i++) {
		if (canon_id(in[i], x, e) < 0)
			return NULL;
		if (strcmp(x, id) == 0) {
			*at = i;
			return in[i];
		}
	}
	err_set(e, ERR_INPUT, "input %s is not among the inputs", id);
	return NULL;
}

/* A fingerprint from its prereg and freezes, in the order it lists them,
 * each freeze with the store beside it (env->stores) or env's store. */
static int
fingerprint_same(const cJSON *doc, const cJSON *const *in, size_t n, const char *name,
    const struct derive_env *env, int *same, struct err *e)
{
	const char *ids[DERIVE_MAX_INPUTS];
	size_t m = 0, at;
	struct prereg p = PREREG_INIT;
	struct fp_input fi[DERIVE_MAX_INPUTS];
	const cJSON *pr;
	int rc = -1;

	if (derive_input_ids("cohort.fingerprint/1", doc, ids, DERIVE_MAX_INPUTS, &m, e) < 0 ||
	    (pr = input_of(in, n, ids[0], &at, e)) == NULL)
		return -1;
	for (size_t i = 1; i < m; i++) {
		/* the freeze found by its identity: that is its id, not computed again */
		fi[i - 1] = (struct fp_input){ .ids = NULL, .id = ids[i] };
		if ((fi[i - 1].freeze = input_of(in, n, ids[i], &at, e)) == NULL)
			return -1;
		fi[i - 1].name = name;
		fi[i - 1].store_dir = env && env->stores && env->stores[at] ? env->stores[at] :
		    env ? env->store_dir : NULL;
		if (fi[i - 1].store_dir == NULL)
			return err_set(e, ERR_INPUT, "%s: a fingerprint needs its freezes' stores", name);
	}
	if (prereg_parse(pr, "prereg", &p, e) == 0)
		rc = fp_refit_check(doc, &p, fi, m - 1, same, e);
	prereg_release(&p);
	return rc;
}

/* A distance from its fingerprints, in the order it lists them. */
static int
distance_same(const cJSON *doc, const cJSON *const *in, size_t n, const char *name,
    const struct derive_env *env, int *same, struct err *e)
{
	const char *ids[DERIVE_MAX_INPUTS];
	const cJSON *fps[DERIVE_MAX_INPUTS];
	size_t m = 0, at;

	if (derive_input_ids("cohort.distance/1", doc, ids, DERIVE_MAX_INPUTS, &m, e) < 0)
		return -1;
	for (size_t i = 0; i < m; i++)
		if ((fps[i] = input_of(in, n, ids[i], &at, e)) == NULL)
			return -1;
	return fp_distance_refit_check(doc, fps, m, same, e);
}

static int
gate_same(const cJSON *doc, const cJSON *const *in, size_t n, const char *name,
    const struct derive_env *env, int *same, struct err *e)
{
	return gate_refit_check(doc, in, n, name, same, e);
}

/* The identities a fingerprint or distance names: its prereg (a
 * fingerprint), then the list in "inputs". */
static int
listed_inputs(const cJSON *doc, const char *list, int prereg, const char **ids, size_t cap,
    size_t *n, struct err *e)
{
	const cJSON *x;

	*n = 0;
	if (prereg) {
		if (!cJSON_IsString(json_get(doc, "prereg")))
			return err_set(e, ERR_INPUT, "\"prereg\": expected an identity");
		ids[(*n)++] = json_get(doc, "prereg")->valuestring;
	}
	cJSON_ArrayForEach(x, json_get(json_get(doc, "inputs"), list)) {
		if (!cJSON_IsString(x))
			return err_set(e, ERR_INPUT, "\"inputs\": \"%s\": expected identities", list);
		if (*n < cap)
			ids[(*n)++] = x->valuestring;
	}
	if (*n == (size_t)prereg)
		return err_set(e, ERR_INPUT, "\"inputs\": \"%s\": expected identities", list);
	return 0;
}

static const struct {
	const char *kind;
	const char *list; /* the member of "inputs" that lists them; NULL: the gate's own */
	int prereg;       /* the prereg comes first */
	int (*refit)(const cJSON *doc, const cJSON *const *in, size_t n, const char *name,
	    const struct derive_env *env, int *same, struct err *e);
} many[] = {
	{ "cohort.gate/1", NULL, 0, gate_same },
	{ "cohort.fingerprint/1", "freezes", 1, fingerprint_same },
	{ "cohort.distance/1", "fingerprints", 0, distance_same },
};
#define NMANY (sizeof many / sizeof many[0])

static size_t
many_of(const char *kind)
{
	size_t i;

	if (kind == NULL)
		return NMANY; /* a document without a kind is none of them */
	for (i = 0; i < NMANY; i++)
		if (strcmp(kind, many[i].kind) == 0)
			break;
	return i;
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
		if (e->code == ERR_NOMEM) /* the machine's failure, not the document's */
			return -1;
		verify_check_add(checks, "input", name, 0, e->msg);
		return 1;
	}
	verify_check_add(checks, "input", name, 1, detail);
	return 0;
}

int
derive_many(const char *kind)
{
	return many_of(kind) < NMANY;
}

int
derive_known(const char *kind)
{
	for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i].kind) == 0)
			return 1;
	return derive_many(kind);
}

int
derive_input_ids(const char *kind, const cJSON *doc, const char **ids, size_t cap, size_t *n,
    struct err *e)
{
	size_t m = many_of(kind);

	if (m == NMANY)
		return err_set(e, ERR_INPUT, "a %.60s document names one input", kind);
	if (many[m].list == NULL)
		return gate_inputs(doc, ids, cap, n, e);
	return listed_inputs(doc, many[m].list, many[m].prereg, ids, cap, n, e);
}

int
derive_check_set(const char *kind, const cJSON *doc, const cJSON *const *inputs, size_t n,
    const char *name, const struct derive_env *env, cJSON *checks, struct err *e)
{
	size_t m = many_of(kind);
	int same = 0;

	if (m == NMANY)
		return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", name, kind);
	if (many[m].refit(doc, inputs, n, name, env, &same, e) < 0) {
		if (e->code == ERR_NOMEM)
			return -1;
		verify_check_add(checks, "refit", name, 0, e->msg);
		*e = (struct err)ERR_INIT;
		return 1;
	}
	verify_check_add(checks, "refit", name, same,
	    same ? "computed again from its inputs: the same bytes" :
	    "computed again from its inputs: different bytes");
	return same ? 0 : 1;
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
		 * the pair, not an unreadable file; memory that ran out is
		 * neither. */
		if (e->code == ERR_NOMEM)
			return -1;
		verify_check_add(checks, "refit", name, 0, e->msg);
		return 1;
	}
	verify_check_add(checks, "refit", name, same,
	    same ? "computed again from its input: the same bytes" :
	    "computed again from its input: different bytes");
	return same ? 0 : 1;
}

/* The graph by kind (derive.h): each derived kind and what it may derive
 * from ("" stands for a file that is no cohort document; "*" for any). */
static const struct {
	const char *kind;
	const char *from[6];
} graph[] = {
	{ "cohort.freeze/1", { "cohort.spec/1", "" } },
	{ "cohort.fit/1", { "cohort.freeze/1", "cohort.blocks/1" } },
	{ "cohort.bound/1", { "cohort.freeze/1", "cohort.blocks/1" } },
	{ "cohort.paired/1", { "cohort.freeze/1" } },
	{ "cohort.fingerprint/1",
	    { "cohort.prereg/1", "cohort.freeze/1", "cohort.fit/1", "cohort.paired/1", "" } },
	{ "cohort.distance/1", { "cohort.fingerprint/1" } },
	{ "cohort.gate/1", { "*" } },
};

int
derive_from_kind(const char *kind, const char *from)
{
	for (size_t i = 0; kind && i < sizeof graph / sizeof graph[0]; i++) {
		if (strcmp(kind, graph[i].kind) != 0)
			continue;
		for (size_t k = 0; k < 6 && graph[i].from[k]; k++)
			if (strcmp(graph[i].from[k], "*") == 0 ||
			    strcmp(graph[i].from[k], from ? from : "") == 0)
				return 1;
		return 0;
	}
	return -1;
}
