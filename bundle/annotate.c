/* annotate.c: findings as CI annotations (see annotate.h). */
#include <stdio.h>
#include <string.h>

#include "../common/hash.h"
#include "../json/json.h"
#include "annotate.h"

static const char *
sget(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The finding's file from where the job runs ("" when it names none). */
static void
where(const cJSON *f, const char *prefix, char *out, size_t n)
{
	const char *p = sget(f, "path");

	if (p == NULL)
		snprintf(out, n, "%s", "");
	else if (prefix == NULL || *prefix == '\0' || strcmp(prefix, ".") == 0)
		snprintf(out, n, "%s", p);
	else
		snprintf(out, n, "%s/%s", prefix, p);
}

static int
line_of(const cJSON *f)
{
	const cJSON *l = json_get(f, "line");

	return cJSON_IsNumber(l) && l->valueint > 0 ? l->valueint : 1;
}

/* GitHub's escapes: % CR LF in a message, and : , too in a property. */
static int
gh_escape(struct buf *out, const char *s, int property)
{
	int bad = 0;

	for (; *s; s++) {
		if (*s == '%')
			bad |= buf_adds(out, "%25") < 0;
		else if (*s == '\r')
			bad |= buf_adds(out, "%0D") < 0;
		else if (*s == '\n')
			bad |= buf_adds(out, "%0A") < 0;
		else if (property && *s == ':')
			bad |= buf_adds(out, "%3A") < 0;
		else if (property && *s == ',')
			bad |= buf_adds(out, "%2C") < 0;
		else
			bad |= buf_addc(out, *s) < 0;
	}
	return bad ? -1 : 0;
}

static void
message(const cJSON *f, char *out, size_t n)
{
	const char *a = sget(f, "action");

	snprintf(out, n, "%s%s%s%s", sget(f, "detail") ? sget(f, "detail") : "", a ? " (" : "",
	         a ? a : "", a ? ")" : "");
}

int
annotate_github(const cJSON *refusal, const char *prefix, struct buf *out)
{
	const cJSON *f;
	char file[4096], msg[8192], title[64];
	int bad = 0;

	cJSON_ArrayForEach(f, json_get(refusal, "findings")) {
		where(f, prefix, file, sizeof file);
		message(f, msg, sizeof msg);
		snprintf(title, sizeof title, "cohort %s", sget(f, "check"));
		bad |= buf_adds(out, "::error ") < 0;
		if (*file) {
			bad |= buf_adds(out, "file=") < 0 || gh_escape(out, file, 1) < 0;
			bad |= buf_printf(out, ",line=%d,", line_of(f)) < 0;
		}
		bad |= buf_adds(out, "title=") < 0 || gh_escape(out, title, 1) < 0 ||
		    buf_adds(out, "::") < 0 || gh_escape(out, msg, 0) < 0 || buf_addc(out, '\n') < 0;
	}
	return bad ? -1 : 0;
}

static const char *const rules[][2] = {
	{ "missing", "a file the publication requires is not there" },
	{ "stale", "evidence that no longer matches what it was derived from" },
	{ "live", "a ladder still running, or games still live" },
	{ "secret", "a credential in the evidence" },
	{ "invalid", "a document that does not read as its kind" },
};

static cJSON *
sarif_location(const cJSON *f, const char *prefix)
{
	cJSON *locs = cJSON_CreateArray(), *loc = cJSON_CreateObject(), *ph = cJSON_CreateObject(),
	      *art = cJSON_CreateObject(), *reg = cJSON_CreateObject();
	char file[4096];

	where(f, prefix, file, sizeof file);
	json_add_string(art, "uri", file);
	json_add_number(reg, "startLine", line_of(f));
	cJSON_AddItemToObject(ph, "artifactLocation", art);
	cJSON_AddItemToObject(ph, "region", reg);
	cJSON_AddItemToObject(loc, "physicalLocation", ph);
	cJSON_AddItemToArray(locs, loc);
	return locs;
}

cJSON *
annotate_sarif(const cJSON *refusal, const char *prefix, const char *version)
{
	cJSON *s = cJSON_CreateObject(), *runs = cJSON_CreateArray(), *run = cJSON_CreateObject(),
	      *tool = cJSON_CreateObject(), *drv = cJSON_CreateObject(), *rl = cJSON_CreateArray(),
	      *res = cJSON_CreateArray();
	const cJSON *f;
	char msg[8192];

	json_add_string(s, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	json_add_string(s, "version", "2.1.0");
	json_add_string(drv, "name", "cohort");
	json_add_string(drv, "version", version);
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		cJSON *r = cJSON_CreateObject(), *d = cJSON_CreateObject();
		json_add_string(r, "id", rules[i][0]);
		json_add_string(d, "text", rules[i][1]);
		cJSON_AddItemToObject(r, "shortDescription", d);
		cJSON_AddItemToArray(rl, r);
	}
	cJSON_AddItemToObject(drv, "rules", rl);
	cJSON_AddItemToObject(tool, "driver", drv);
	cJSON_AddItemToObject(run, "tool", tool);
	cJSON_ArrayForEach(f, json_get(refusal, "findings")) {
		cJSON *r = cJSON_CreateObject(), *m = cJSON_CreateObject();
		json_add_string(r, "ruleId", sget(f, "check"));
		json_add_string(r, "level", "error");
		message(f, msg, sizeof msg);
		json_add_string(m, "text", msg);
		cJSON_AddItemToObject(r, "message", m);
		if (sget(f, "path") != NULL)
			cJSON_AddItemToObject(r, "locations", sarif_location(f, prefix));
		cJSON_AddItemToArray(res, r);
	}
	cJSON_AddItemToObject(run, "results", res);
	cJSON_AddItemToArray(runs, run);
	cJSON_AddItemToObject(s, "runs", runs);
	return s;
}

cJSON *
annotate_gitlab(const cJSON *refusal, const char *prefix)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *f;
	char file[4096], msg[8192], hex[2 * HASH_LEN + 1];

	cJSON_ArrayForEach(f, json_get(refusal, "findings")) {
		cJSON *o = cJSON_CreateObject(), *loc = cJSON_CreateObject(), *lines = cJSON_CreateObject();
		struct buf key = BUF_INIT;
		uint8_t d[HASH_LEN];

		where(f, prefix, file, sizeof file);
		message(f, msg, sizeof msg);
		/* the same finding keeps its fingerprint from run to run */
		buf_printf(&key, "%s\n%s\n%d\n%s", sget(f, "check"), file, line_of(f), msg);
		hash_bytes(key.p, key.len, d);
		hash_hex_format(d, hex);
		buf_release(&key);
		json_add_string(o, "description", msg);
		json_add_string(o, "check_name", sget(f, "check"));
		json_add_string(o, "fingerprint", hex);
		json_add_string(o, "severity", strcmp(sget(f, "check"), "secret") == 0 ? "blocker" : "major");
		json_add_string(loc, "path", *file ? file : ".");
		json_add_number(lines, "begin", line_of(f));
		cJSON_AddItemToObject(loc, "lines", lines);
		cJSON_AddItemToObject(o, "location", loc);
		cJSON_AddItemToArray(out, o);
	}
	return out;
}
