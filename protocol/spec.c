/* spec.c: reading a cohort.spec/1 once. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../json/json.h"
#include "rules.h"

/* A non-empty list of distinct non-empty strings: its array and lengths. */
static int
read_names(const cJSON *spec, const char *key, const char ***names, size_t **lens, size_t *n,
    struct err *e)
{
	const cJSON *arr, *it;
	size_t i = 0;

	if (json_get_array(spec, key, 1, &arr, e) < 0)
		return -1;
	*n = (size_t)cJSON_GetArraySize(arr);
	if (*n == 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected at least one", key);
	*names = calloc(*n, sizeof **names);
	*lens = calloc(*n + 1, sizeof **lens);
	if (*names == NULL || *lens == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
			return err_set(e, ERR_INPUT, "\"%s\": expected non-empty strings", key);
		for (size_t k = 0; k < i; k++)
			if (strcmp((*names)[k], it->valuestring) == 0)
				return err_set(e, ERR_INPUT, "\"%s\": \"%.60s\" listed twice", key,
				    it->valuestring);
		(*lens)[i] = strlen(it->valuestring);
		(*names)[i++] = it->valuestring;
	}
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	const struct spec_name *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->p, y->p, x->len);
}

/* The families sorted for spec_family. */
static int
sort_families(struct spec *s, struct err *e)
{
	if ((s->famsorted = calloc(s->nfamilies + 1, sizeof *s->famsorted)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->nfamilies; i++)
		s->famsorted[i] = (struct spec_name){ s->families[i], s->famlen[i], i };
	qsort(s->famsorted, s->nfamilies, sizeof *s->famsorted, name_cmp);
	return 0;
}

static int
read_color(const cJSON *spec, struct spec *s, struct err *e)
{
	const char *color;
	int rc = json_get_string(spec, "color", 0, &color, e);

	s->color = SPEC_COLOR_ANY;
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (strcmp(color, "white") == 0)
		s->color = SPEC_COLOR_WHITE;
	else if (strcmp(color, "black") == 0)
		s->color = SPEC_COLOR_BLACK;
	else
		return err_set(e, ERR_INPUT, "\"color\": expected white or black");
	return 0;
}

static int
read_spec(const cJSON *doc, struct spec *s, struct err *e)
{
	const char *kind;
	const cJSON *lad;
	int rc;

	s->doc = doc;
	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "expected a cohort.spec/1 object");
	if (json_get_string(doc, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.spec/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.spec/1, found %.60s", kind);
	if (json_get_string(doc, "name", 1, &s->name, e) < 0 ||
	    json_get_string(doc, "as_of", 1, &s->as_of_text, e) < 0)
		return -1;
	if (ts_parse(s->as_of_text, &s->as_of) < 0)
		return err_set(e, ERR_INPUT, "\"as_of\": expected an RFC 3339 time");
	if (read_names(doc, "families", &s->families, &s->famlen, &s->nfamilies, e) < 0 ||
	    sort_families(s, e) < 0 ||
	    read_names(doc, "conditions", &s->conds, &s->condlen, &s->nconds, e) < 0 ||
	    read_color(doc, s, e) < 0)
		return -1;
	s->black_penalty = 35;
	rc = json_get_number(doc, "black_penalty", 0, &s->black_penalty, e);
	if (rc < 0 || (rc == 0 && rules_penalty_check(s->black_penalty, ERR_INPUT,
	    "\"black_penalty\"", e) < 0))
		return -1;
	s->have_penalty = rc == 0;
	if (json_get_object(doc, "ladder", 1, &lad, e) < 0 ||
	    ladder_policy_read(lad, &s->ladder, e) < 0)
		return -1;
	if (json_get_object(doc, "protocol", 0, &s->protocol, e) < 0)
		return -1;
	if (json_get_string(doc, "opening_suite", 0, &s->opening_suite, e) < 0)
		return -1;
	if (s->opening_suite != NULL &&
	    hash_id_parse(s->opening_suite, (uint8_t[HASH_LEN]){ 0 }) < 0)
		return err_set(e, ERR_INPUT, "\"opening_suite\": expected an identity, "
		    "sha256: and 64 lowercase hex digits");
	return 0;
}

int
spec_read(const cJSON *doc, struct spec *s, struct err *e)
{
	spec_release(s);
	if (read_spec(doc, s, e) < 0) {
		spec_release(s);
		return -1;
	}
	return 0;
}

void
spec_release(struct spec *s)
{
	if (s == NULL)
		return;
	free(s->families);
	free(s->conds);
	free(s->famlen);
	free(s->condlen);
	free(s->famsorted);
	memset(s, 0, sizeof *s);
}

static long
find(const char *const *names, const size_t *lens, size_t count, const char *name, size_t n)
{
	for (size_t i = 0; i < count; i++)
		if (lens[i] == n && memcmp(names[i], name, n) == 0)
			return (long)i;
	return -1;
}

long
spec_family(const struct spec *s, const char *name, size_t n)
{
	const struct spec_name key = { name, n, 0 }, *hit;

	if (s->famsorted == NULL)
		return find(s->families, s->famlen, s->nfamilies, name, n);
	hit = bsearch(&key, s->famsorted, s->nfamilies, sizeof *hit, name_cmp);
	return hit != NULL ? (long)hit->i : -1;
}

long
spec_condition(const struct spec *s, const char *name, size_t n)
{
	return find(s->conds, s->condlen, s->nconds, name, n);
}
