/* read.c: the fields plots read, with messages naming where they are. */
#include "read.h"

#include <math.h>
#include <string.h>

#include "../json/json.h"

static int
bad(const struct plot_doc *d, const char *where, const char *key, const char *what,
    struct err *e)
{
	return err_set(e, ERR_INPUT, "%s: %s%s\"%s\": expected %s", d->name, where,
	    where[0] ? " " : "", key, what);
}

int
plot_read_kind(const struct plot_doc *d, const char *kind, struct err *e)
{
	const cJSON *k = cJSON_IsObject(d->doc) ? json_get(d->doc, "kind") : NULL;

	if (!cJSON_IsString(k))
		return err_set(e, ERR_INPUT, "%s: \"kind\": expected %s", d->name, kind);
	if (strcmp(k->valuestring, kind) != 0)
		return err_set(e, ERR_INPUT, "%s: \"kind\": expected %s, got %s", d->name, kind,
		    k->valuestring);
	return 0;
}

int
plot_read_array(const struct plot_doc *d, const cJSON *obj, const char *where, const char *key,
    const cJSON **out, struct err *e)
{
	const cJSON *v = json_get(obj ? obj : d->doc, key);

	if (!cJSON_IsArray(v))
		return bad(d, where, key, "an array", e);
	*out = v;
	return 0;
}

int
plot_read_string(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, int optional, const char **out, struct err *e)
{
	const cJSON *v = json_get(obj, key);

	*out = NULL;
	if (v == NULL && optional)
		return 0;
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return bad(d, where, key, "a non-empty string", e);
	*out = v->valuestring;
	return 0;
}

int
plot_read_number(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, int nullable, double *out, int *present, struct err *e)
{
	const cJSON *v = json_get(obj, key);

	*out = 0;
	if (present)
		*present = 0;
	if ((v == NULL || cJSON_IsNull(v)) && nullable)
		return 0;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return bad(d, where, key, nullable ? "a number or null" : "a number", e);
	*out = v->valuedouble;
	if (present)
		*present = 1;
	return 0;
}

int
plot_read_count(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, long long *out, struct err *e)
{
	const cJSON *v = json_get(obj, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740991.0 ||
	    v->valuedouble != floor(v->valuedouble))
		return bad(d, where, key, "a whole number", e);
	*out = (long long)v->valuedouble;
	return 0;
}

int
plot_read_interval(const struct plot_doc *d, const cJSON *obj, const char *where,
    const char *key, double v[2], int present[2], struct err *e)
{
	const cJSON *a = json_get(obj, key);

	v[0] = v[1] = 0;
	present[0] = present[1] = 0;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 2)
		return bad(d, where, key, "[lo, hi] or null", e);
	for (int i = 0; i < 2; i++) {
		const cJSON *x = cJSON_GetArrayItem(a, i);
		if (cJSON_IsNull(x))
			continue;
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
			return bad(d, where, key, "[lo, hi] of numbers or nulls", e);
		v[i] = x->valuedouble;
		present[i] = 1;
	}
	return 0;
}
