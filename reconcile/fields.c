/* fields.c: the fields of a JSON record, each read and checked one way. */
#include "internal.h"

#include <math.h>
#include <string.h>

#include "../json/json.h"

/* "name:line: " before a field error. */
int
recon_at_line(struct err *e, const char *name, long line)
{
	return err_prefix(e, "%s:%ld", name, line);
}

int
recon_field_enum(const cJSON *obj, const char *key, int required, const char *const *allowed,
    const char *expect, const char **out, struct err *e)
{
	const cJSON *v = json_get(obj, key);

	*out = NULL;
	if (v == NULL || (!required && cJSON_IsNull(v))) {
		if (!required)
			return 1;
		return err_set(e, ERR_INPUT, "\"%s\": missing", key);
	}
	if (cJSON_IsString(v))
		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strcmp(v->valuestring, allowed[i]) == 0) {
				*out = allowed[i];
				return 0;
			}
	return err_set(e, ERR_INPUT, "\"%s\": expected %s", key, expect);
}

int
recon_field_text(const cJSON *obj, const char *key, int required, const char **out, struct err *e)
{
	int rc = json_get_string(obj, key, required, out, e);

	if (rc == 0 && **out == '\0')
		return err_set(e, ERR_INPUT, "\"%s\": empty", key);
	if (rc == 1)
		*out = NULL;
	return rc;
}

int
recon_field_time(const cJSON *obj, const char *key, int required, long long *t,
    char norm[RECON_TIME_MAX], struct err *e)
{
	const char *s;
	int rc = json_get_string(obj, key, required, &s, e);

	if (rc != 0)
		return rc;
	if (recon_time_parse(s, t, norm) < 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected an RFC 3339 date-time, found \"%.40s\"",
		    key, s);
	return 0;
}

int
recon_field_nonneg(const cJSON *obj, const char *key, int required, double *out, struct err *e)
{
	int rc = json_get_number(obj, key, required, out, e);

	if (rc == 0 && *out < 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected a number not below 0", key);
	return rc;
}

/* The four token classes of obj[key]; out[i] = -1 when absent and optional. */
int
recon_field_tokens(const cJSON *obj, const char *key, int required, long long out[NCLASS],
    struct err *e)
{
	const cJSON *t;
	int rc = json_get_object(obj, key, required, &t, e);

	for (int i = 0; i < NCLASS; i++)
		out[i] = -1;
	if (rc != 0)
		return rc;
	for (int i = 0; i < NCLASS; i++) {
		const cJSON *v = json_get(t, classes[i]);
		if (v == NULL)
			return err_set(e, ERR_INPUT, "\"%s.%s\": missing", key, classes[i]);
		if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
		    v->valuedouble < 0 || v->valuedouble > (double)MAX_COUNT)
			return err_set(e, ERR_INPUT, "\"%s.%s\": expected a whole number of tokens",
			    key, classes[i]);
		out[i] = (long long)v->valuedouble;
	}
	return 0;
}
