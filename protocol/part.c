/* part.c: partial documents of a sharded run, and their merge. */
#include "part.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"

static int
parse_count(const char *s, size_t n, long *out)
{
	long v = 0;

	if (n == 0 || n > 6 || s[0] == '0')
		return -1;
	for (size_t k = 0; k < n; k++) {
		if (!isdigit((unsigned char)s[k]))
			return -1;
		v = v * 10 + (s[k] - '0');
	}
	*out = v;
	return 0;
}

int
part_shard_parse(const char *text, const char *opt, struct part_shard *s, struct err *e)
{
	const char *slash = strchr(text, '/');

	if (slash == NULL || parse_count(text, (size_t)(slash - text), &s->i) < 0 ||
	    parse_count(slash + 1, strlen(slash + 1), &s->n) < 0 || s->i > s->n ||
	    s->n > PART_MAX_SHARDS)
		return err_set(e, ERR_USAGE, "%s: expected I/N with 1 <= I <= N <= %d, got '%s'", opt,
		    PART_MAX_SHARDS, text);
	return 0;
}

void
part_slice(size_t total, const struct part_shard *s, size_t *lo, size_t *hi)
{
	if (s->n == 0) {
		*lo = 0, *hi = total;
		return;
	}
	/* total * i / n without overflow for any total a run can have */
	*lo = (size_t)((unsigned long long)total * (unsigned long long)(s->i - 1) /
	    (unsigned long long)s->n);
	*hi = (size_t)((unsigned long long)total * (unsigned long long)s->i /
	    (unsigned long long)s->n);
}

/* The run's key: the identity of {"of": of, "settings": settings}. */
static int
part_key(const char *of, const cJSON *settings, char key[HASH_ID_LEN + 1], struct err *e)
{
	cJSON *k = cJSON_CreateObject();
	int rc;

	if (k == NULL || !json_add_string(k, "of", of) ||
	    !cJSON_AddItemReferenceToObject(k, "settings", (cJSON *)settings)) {
		cJSON_Delete(k);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	rc = canon_id(k, key, e);
	cJSON_Delete(k);
	return rc;
}

cJSON *
part_new(const char *of, const struct part_shard *s, const cJSON *settings, struct err *e)
{
	char key[HASH_ID_LEN + 1];
	cJSON *p, *sh, *set;

	if (part_key(of, settings, key, e) < 0)
		return NULL;
	p = cJSON_CreateObject();
	if (p == NULL || !json_add_string(p, "kind", PART_KIND) || !json_add_string(p, "of", of) ||
	    !(sh = cJSON_AddArrayToObject(p, "shard")) ||
	    !cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)s->i)) ||
	    !cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)s->n)) ||
	    !json_add_string(p, "key", key) || !(set = cJSON_Duplicate(settings, 1)) ||
	    !cJSON_AddItemToObject(p, "settings", set) || !cJSON_AddArrayToObject(p, "units")) {
		cJSON_Delete(p);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	return p;
}

cJSON *
part_units_of(cJSON *part)
{
	return cJSON_GetObjectItemCaseSensitive(part, "units");
}

/* One part as read: its tree and the fields of its envelope. */
struct part_read {
	const char *name;
	cJSON *doc;
	const char *of, *key;
	const cJSON *settings, *units;
	long i, n;
};

/* The envelope of one part, strictly. */
static int
read_envelope(const char *path, struct part_read *r, struct err *e)
{
	const char *kind;
	const cJSON *sh;
	char key[HASH_ID_LEN + 1];
	long long i, n;

	r->name = io_name(path);
	if ((r->doc = json_parse_file(path, e)) == NULL)
		return -1;
	if (!cJSON_IsObject(r->doc))
		return err_set(e, ERR_INPUT, "%s: expected a %s document", r->name, PART_KIND);
	if (json_get_string(r->doc, "kind", 1, &kind, e) < 0 ||
	    (strcmp(kind, PART_KIND) != 0 &&
	        err_set(e, ERR_INPUT, "\"kind\": expected %s, got \"%.60s\"", PART_KIND, kind)) ||
	    json_get_string(r->doc, "of", 1, &r->of, e) < 0 ||
	    json_get_array(r->doc, "shard", 1, &sh, e) < 0 ||
	    json_get_string(r->doc, "key", 1, &r->key, e) < 0 ||
	    json_get_object(r->doc, "settings", 1, &r->settings, e) < 0 ||
	    json_get_array(r->doc, "units", 1, &r->units, e) < 0)
		return err_prefix(e, "%s", r->name);
	if (cJSON_GetArraySize(sh) != 2 || !cJSON_IsNumber(sh->child) ||
	    !cJSON_IsNumber(sh->child->next) || (i = (long long)sh->child->valuedouble) < 1 ||
	    (double)i != sh->child->valuedouble || (n = (long long)sh->child->next->valuedouble) < i ||
	    (double)n != sh->child->next->valuedouble || n > PART_MAX_SHARDS)
		return err_set(e, ERR_INPUT, "%s: \"shard\": expected [I, N] with 1 <= I <= N <= %d",
		    r->name, PART_MAX_SHARDS);
	r->i = (long)i, r->n = (long)n;
	if (part_key(r->of, r->settings, key, e) < 0)
		return err_prefix(e, "%s", r->name);
	if (strcmp(key, r->key) != 0)
		return err_set(e, ERR_INPUT, "%s: \"key\": not the identity of its settings (%s)",
		    r->name, key);
	return 0;
}

/* Part r against the first part f: the same run and shard count. */
static int
same_run(const struct part_read *r, const struct part_read *f, struct err *e)
{
	if (strcmp(r->of, f->of) != 0)
		return err_set(e, ERR_INPUT, "%s: \"of\": \"%.60s\", but %s is \"%.60s\"", r->name,
		    r->of, f->name, f->of);
	if (strcmp(r->key, f->key) != 0)
		return err_set(e, ERR_INPUT,
		    "%s: \"key\": a part of another run than %s (their settings differ)", r->name,
		    f->name);
	if (r->n != f->n)
		return err_set(e, ERR_INPUT, "%s: \"shard\": one of %ld shards, but %s is one of %ld",
		    r->name, r->n, f->name, f->n);
	return 0;
}

/* Every part in its shard's place, each shard once. */
static int
place_parts(struct part_read *rs, size_t n, struct part_read **by, struct err *e)
{
	for (size_t k = 0; k < n; k++) {
		struct part_read *r = &rs[k];
		if (k > 0 && same_run(r, &rs[0], e) < 0)
			return -1;
		if (by[r->i - 1] != NULL)
			return err_set(e, ERR_INPUT, "%s: \"shard\": shard %ld/%ld again (also %s)",
			    r->name, r->i, r->n, by[r->i - 1]->name);
		by[r->i - 1] = r;
	}
	for (long i = 0; i < rs[0].n; i++)
		if (by[i] == NULL)
			return err_set(e, ERR_INPUT, "%s: \"shard\": shard %ld/%ld of its run is missing",
			    rs[0].name, i + 1, rs[0].n);
	return 0;
}

/* The units of every part into units[0 .. total), each exactly its slice. */
static int
gather_units(struct part_read *const *by, long nshards, size_t total, const cJSON **units,
    const char **names, struct err *e)
{
	for (long i = 0; i < nshards; i++) {
		const struct part_read *r = by[i];
		struct part_shard s = { i + 1, nshards };
		size_t lo, hi, u;
		const cJSON *it;
		part_slice(total, &s, &lo, &hi);
		if ((size_t)cJSON_GetArraySize(r->units) != hi - lo)
			return err_set(e, ERR_INPUT, "%s: \"units\": expected %zu (from unit %zu), got %d",
			    r->name, hi - lo, lo, cJSON_GetArraySize(r->units));
		u = lo;
		cJSON_ArrayForEach(it, r->units) {
			const cJSON *x = json_get(it, "unit");
			if (!cJSON_IsObject(it) || !cJSON_IsNumber(x) || x->valuedouble != (double)u)
				return err_set(e, ERR_INPUT, "%s: \"units\": entry %zu: \"unit\": expected %zu",
				    r->name, u - lo, u);
			names[u] = r->name;
			units[u++] = it;
		}
	}
	return 0;
}

static const struct part_kind *
find_kind(const struct part_kind *kinds, size_t nkinds, const char *of)
{
	for (size_t k = 0; k < nkinds; k++)
		if (strcmp(kinds[k].of, of) == 0)
			return &kinds[k];
	return NULL;
}

int
part_merge(const char *const *paths, size_t npaths, const struct part_kind *kinds,
    size_t nkinds, cJSON **out, struct err *e)
{
	struct part_read *rs = calloc(npaths ? npaths : 1, sizeof *rs), **by = NULL;
	const struct part_kind *kind;
	const cJSON **units = NULL;
	const char **names = NULL;
	long total = 0;
	int rc = -1;

	*out = NULL;
	if (rs == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (npaths == 0) {
		err_set(e, ERR_USAGE, "expected at least one PART");
		goto done;
	}
	for (size_t k = 0; k < npaths; k++)
		if (read_envelope(paths[k], &rs[k], e) < 0)
			goto done;
	if ((kind = find_kind(kinds, nkinds, rs[0].of)) == NULL) {
		err_set(e, ERR_INPUT, "%s: \"of\": no merge knows \"%.60s\"", rs[0].name, rs[0].of);
		goto done;
	}
	if ((by = calloc((size_t)rs[0].n, sizeof *by)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (place_parts(rs, npaths, by, e) < 0 ||
	    (total = kind->total(rs[0].settings, rs[0].name, e)) < 0)
		goto done;
	units = calloc(total ? (size_t)total : 1, sizeof *units);
	names = calloc(total ? (size_t)total : 1, sizeof *names);
	if (units == NULL || names == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (gather_units(by, rs[0].n, (size_t)total, units, names, e) < 0 ||
	    kind->merge(rs[0].settings, units, names, (size_t)total, out, e) < 0)
		goto done;
	rc = 0;
done:
	for (size_t k = 0; k < npaths; k++)
		cJSON_Delete(rs[k].doc);
	free(rs);
	free(by);
	free(units);
	free(names);
	return rc;
}
