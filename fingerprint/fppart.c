/* fppart.c: fingerprint shards of replicates, and their merge. */
#include "fppart.h"

#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

/* Every fingerprint's rows, detached from doc into rows[f] (NULL-safe). */
static int
take_rows(cJSON *doc, cJSON **rows, size_t n)
{
	cJSON *fp;
	size_t f = 0;

	cJSON_ArrayForEach(fp, cJSON_GetObjectItemCaseSensitive(doc, "fingerprints")) {
		cJSON *rep = cJSON_GetObjectItemCaseSensitive(fp, "replicates");
		if (f >= n || rep == NULL)
			return -1;
		rows[f++] = cJSON_DetachItemFromObjectCaseSensitive(rep, "rows");
		if (!cJSON_AddArrayToObject(rep, "rows"))
			return -1;
	}
	return f == n ? 0 : -1;
}

/* Unit u: row u - lo of every fingerprint's rows. */
static cJSON *
unit_of(cJSON *const *rows, size_t nfp, size_t u, size_t lo)
{
	cJSON *it = cJSON_CreateObject(), *a;

	if (it == NULL || !json_add_number(it, "unit", (double)u) ||
	    !(a = cJSON_AddArrayToObject(it, "rows"))) {
		cJSON_Delete(it);
		return NULL;
	}
	for (size_t f = 0; f < nfp; f++) {
		cJSON *row = cJSON_Duplicate(cJSON_GetArrayItem(rows[f], (int)(u - lo)), 1);
		if (row == NULL || !cJSON_AddItemToArray(a, row)) {
			cJSON_Delete(row);
			cJSON_Delete(it);
			return NULL;
		}
	}
	return it;
}

static int
fill_units(cJSON *part, cJSON *const *rows, size_t nfp, size_t lo, size_t hi)
{
	cJSON *units = part_units_of(part);

	for (size_t u = lo; u < hi; u++) {
		cJSON *it = unit_of(rows, nfp, u, lo);
		if (it == NULL || !cJSON_AddItemToArray(units, it)) {
			cJSON_Delete(it);
			return -1;
		}
	}
	return 0;
}

int
fp_part(struct fp_run *r, const struct part_shard *s, cJSON **out, struct err *e)
{
	size_t lo, hi, nfp;
	cJSON *doc = NULL, **rows = NULL, *part = NULL;
	int rc = -1;

	*out = NULL;
	part_slice((size_t)fp_run_replicates(r), s, &lo, &hi);
	if (fp_run_document(r, (long)lo, (long)hi, &doc, e) < 0)
		return -1;
	nfp = (size_t)cJSON_GetArraySize(json_get(doc, "fingerprints"));
	if ((rows = calloc(nfp + 1, sizeof *rows)) == NULL || take_rows(doc, rows, nfp) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((part = part_new("cohort.fingerprint/1", s, doc, e)) == NULL)
		goto done;
	if (fill_units(part, rows, nfp, lo, hi) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = part;
	part = NULL;
	rc = 0;
done:
	for (size_t f = 0; rows && f < nfp; f++)
		cJSON_Delete(rows[f]);
	free(rows);
	cJSON_Delete(part);
	cJSON_Delete(doc);
	return rc;
}

long
fp_part_total(const cJSON *settings, const char *name, struct err *e)
{
	const cJSON *b;
	long long n;

	if (json_get_object(settings, "bootstrap", 1, &b, e) < 0 ||
	    json_get_int(b, "replicates", 1, 0, 1000000, &n, e) < 0)
		return err_prefix(e, "%s: \"settings\"", name);
	return (long)n;
}

/* Row f of every unit appended to the fingerprint's rows. */
static int
put_rows(cJSON *fp, size_t f, const cJSON *const *units, const char *const *names, size_t total,
    struct err *e)
{
	cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fp,
	    "replicates"), "rows");

	if (!cJSON_IsArray(rows))
		return err_set(e, ERR_INPUT, "%s: \"settings\": \"fingerprints\": entry %zu: "
		    "\"replicates\": expected rows", total ? names[0] : "<parts>", f + 1);
	for (size_t u = 0; u < total; u++) {
		const cJSON *r = cJSON_GetArrayItem(json_get(units[u], "rows"), (int)f);
		cJSON *c;
		if (!cJSON_IsArray(r))
			return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"rows\": expected one "
			    "row per fingerprint", names[u], u);
		if ((c = cJSON_Duplicate(r, 1)) == NULL || !cJSON_AddItemToArray(rows, c)) {
			cJSON_Delete(c);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
	}
	return 0;
}

int
fp_part_merge(const cJSON *settings, const cJSON *const *units, const char *const *names,
    size_t total, cJSON **out, struct err *e)
{
	cJSON *doc = cJSON_Duplicate(settings, 1), *fp;
	size_t f = 0, nfp;

	*out = NULL;
	if (doc == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	nfp = (size_t)cJSON_GetArraySize(json_get(doc, "fingerprints"));
	for (size_t u = 0; u < total; u++)
		if ((size_t)cJSON_GetArraySize(json_get(units[u], "rows")) != nfp) {
			cJSON_Delete(doc);
			return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"rows\": expected %zu",
			    names[u], u, nfp);
		}
	cJSON_ArrayForEach(fp, json_get(doc, "fingerprints"))
		if (put_rows(fp, f++, units, names, total, e) < 0) {
			cJSON_Delete(doc);
			return -1;
		}
	if (fp_summarize(doc, e) < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	*out = doc;
	return 0;
}
