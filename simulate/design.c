/* design.c: reading a cohort.sim-design/1, strictly. */
#include "design.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

/* The default ladder: the contract's example. */
static const char default_ladder[] =
    "{\"block_games\":10,\"start\":1320,\"max\":3190,\"promote\":[[0.9,400],[0.8,300],"
    "[0.65,200]],\"stop_below\":0.35,\"max_repeats\":1}";

static int
only_keys(const cJSON *o, const char *const *keys, struct err *e)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		size_t k = 0;
		while (keys[k] && strcmp(keys[k], it->string) != 0)
			k++;
		if (keys[k] == NULL)
			return err_set(e, ERR_INPUT, "\"%.60s\": not a field of a design", it->string);
	}
	return 0;
}

/* A number in [lo, hi], required or with a default. */
static int
num_in(const cJSON *o, const char *key, double def, double lo, double hi, double *out,
    struct err *e)
{
	int rc = json_get_number(o, key, def != def, out, e);

	if (rc < 0)
		return -1;
	if (rc == 1)
		*out = def;
	if (!(*out >= lo && *out <= hi))
		return err_set(e, ERR_INPUT, "\"%s\": expected %g to %g", key, lo, hi);
	return 0;
}

/* n numbers, one per width, into x. */
static int
per_width(const cJSON *o, const char *key, size_t n, double lo, double hi, double *x,
    struct err *e)
{
	const cJSON *a, *it;
	size_t k = 0;

	if (json_get_array(o, key, 1, &a, e) < 0)
		return -1;
	if ((size_t)cJSON_GetArraySize(a) != n)
		return err_set(e, ERR_INPUT, "\"%s\": expected one number per width (%zu)", key, n);
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo && it->valuedouble <= hi))
			return err_set(e, ERR_INPUT, "\"%s\": expected numbers from %g to %g", key, lo,
			    hi);
		x[k++] = it->valuedouble;
	}
	return 0;
}

static int
read_family(const cJSON *f, const struct design *d, struct design_family *x, struct err *e)
{
	static const char *const keys[] = { "name", "model", "rating", "temperature", "first_bias",
		"spread", "illegal", "output_tokens", "reasoning_tokens", "latency_ms", NULL };

	if (!cJSON_IsObject(f))
		return err_set(e, ERR_INPUT, "expected an object");
	if (only_keys(f, keys, e) < 0 || json_get_string(f, "name", 1, &x->name, e) < 0 ||
	    json_get_string(f, "model", 1, &x->model, e) < 0 ||
	    per_width(f, "rating", d->nwidths, -5000, 10000, x->rating, e) < 0 ||
	    per_width(f, "temperature", d->nwidths, 0.01, 1e6, x->temp, e) < 0 ||
	    num_in(f, "first_bias", 0, 0, 1, &x->first_bias, e) < 0 ||
	    num_in(f, "spread", 0, 0, 0.99, &x->spread, e) < 0 ||
	    num_in(f, "illegal", 0, 0, 1, &x->illegal, e) < 0 ||
	    num_in(f, "output_tokens", 200, 0, 1e6, &x->out_tok, e) < 0 ||
	    num_in(f, "reasoning_tokens", 0, 0, 1e6, &x->reason_tok, e) < 0 ||
	    num_in(f, "latency_ms", 1000, 0, 1e8, &x->latency_ms, e) < 0)
		return -1;
	if (x->name[0] == 0 || x->model[0] == 0)
		return err_set(e, ERR_INPUT, "\"name\", \"model\": expected non-empty strings");
	return 0;
}

static int
read_widths(const cJSON *doc, struct design *d, struct err *e)
{
	const cJSON *a, *it;

	if (json_get_array(doc, "widths", 1, &a, e) < 0)
		return -1;
	if (cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > DESIGN_MAX_WIDTHS)
		return err_set(e, ERR_INPUT, "\"widths\": expected 1 to %d", DESIGN_MAX_WIDTHS);
	cJSON_ArrayForEach(it, a) {
		double w = cJSON_IsNumber(it) ? it->valuedouble : -1;
		if (w != floor(w) || w < 0 || w > d->multipv ||
		    (d->nwidths && w <= d->widths[d->nwidths - 1]))
			return err_set(e, ERR_INPUT,
			    "\"widths\": expected increasing whole numbers from 0 to multipv (%ld)",
			    d->multipv);
		d->widths[d->nwidths++] = (int)w;
	}
	return 0;
}

static int
read_counts(const cJSON *doc, struct design *d, struct err *e)
{
	long long v[5];
	static const char *const k[5] = { "openings", "positions_per_opening", "multipv",
		"replications", "order_seeds" };
	static const long long hi[5] = { 100000, 100, DESIGN_MAX_MULTIPV, 100000, 1000 };

	for (int i = 0; i < 5; i++)
		if (json_get_int(doc, k[i], 1, i == 2 ? 2 : 1, hi[i], &v[i], e) < 0)
			return -1;
	d->openings = (long)v[0], d->per_opening = (long)v[1], d->multipv = (long)v[2];
	d->replications = (long)v[3], d->order_seeds = (long)v[4];
	return 0;
}

static int
read_families(const cJSON *doc, struct design *d, struct err *e)
{
	const cJSON *a, *it;

	if (json_get_array(doc, "families", 1, &a, e) < 0)
		return -1;
	if (cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > DESIGN_MAX_FAMILIES)
		return err_set(e, ERR_INPUT, "\"families\": expected 1 to %d", DESIGN_MAX_FAMILIES);
	if ((d->fam = calloc((size_t)cJSON_GetArraySize(a), sizeof *d->fam)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, a) {
		struct design_family *x = &d->fam[d->nfam];
		if (read_family(it, d, x, e) < 0)
			return err_prefix(e, "\"families\": entry %zu", d->nfam + 1);
		for (size_t k = 0; k < d->nfam; k++)
			if (strcmp(d->fam[k].name, x->name) == 0)
				return err_set(e, ERR_INPUT, "\"families\": \"%.60s\" given twice",
				    x->name);
		d->nfam++;
	}
	return 0;
}

static int
read_design(const cJSON *doc, struct design *d, struct err *e)
{
	static const char *const keys[] = { "kind", "name", "openings", "positions_per_opening",
		"multipv", "gap_cp", "widths", "replications", "order_seeds", "nu", "ladder",
		"families", NULL };
	const char *kind;
	const cJSON *l = NULL;

	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "expected a cohort.sim-design/1 object");
	if (only_keys(doc, keys, e) < 0 || json_get_string(doc, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.sim-design/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.sim-design/1");
	if (json_get_string(doc, "name", 1, &d->name, e) < 0 || read_counts(doc, d, e) < 0 ||
	    num_in(doc, "gap_cp", 20, 1, 10000, &d->gap, e) < 0 ||
	    num_in(doc, "nu", 1.02, 1e-6, 1e6, &d->nu, e) < 0 || read_widths(doc, d, e) < 0 ||
	    json_get_object(doc, "ladder", 0, &l, e) < 0 || read_families(doc, d, e) < 0)
		return -1;
	d->ladder = l ? cJSON_Duplicate(l, 1) : cJSON_Parse(default_ladder);
	return d->ladder ? 0 : err_set(e, ERR_NOMEM, "out of memory");
}

int
design_read(const cJSON *doc, const char *name, struct design *d, struct err *e)
{
	memset(d, 0, sizeof *d);
	if (read_design(doc, d, e) < 0)
		return e->code == ERR_NOMEM ? -1 : err_prefix(e, "%s", name);
	return 0;
}

void
design_release(struct design *d)
{
	cJSON_Delete(d->ladder);
	d->ladder = NULL;
	free(d->fam);
	d->fam = NULL;
}
