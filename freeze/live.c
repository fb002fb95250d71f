/* live.c: the live rule: what keeps a document from being final
 * evidence.  The publication gate and the archive verifier both ask here. */
#include <stdio.h>
#include <string.h>

#include "../json/json.h"
#include "freeze.h"

static const char *
str_or(const cJSON *v, const char *dflt)
{
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* A freeze's active conditions and its excluded live games. */
static long
freeze_reasons(const cJSON *doc, freeze_live_fn fn, void *ctx)
{
	const cJSON *x, *first = NULL;
	char what[256];
	long n = 0, live = 0;

	cJSON_ArrayForEach(x, json_get(doc, "conditions")) {
		const cJSON *st = json_get(x, "state");
		if (!cJSON_IsString(st) || strcmp(st->valuestring, "active") != 0)
			continue;
		if (json_get(x, "family") != NULL)
			snprintf(what, sizeof what, "condition \"%.60s\" is active (family \"%.60s\"): its "
			    "ladder has not stopped", str_or(json_get(x, "condition"), "?"),
			    str_or(json_get(x, "family"), "?"));
		else
			snprintf(what, sizeof what, "condition \"%.60s\" is active: its ladder has not "
			    "stopped", str_or(json_get(x, "condition"), "?"));
		fn(ctx, what, "wait until its ladder stops, freeze again and bundle the new freeze (or "
		    "publish it as a dated live snapshot, not as evidence)");
		n++;
	}
	cJSON_ArrayForEach(x, json_get(doc, "excluded")) {
		const cJSON *r = json_get(x, "reason");
		if (cJSON_IsString(r) && strcmp(r->valuestring, "live") == 0 && live++ == 0)
			first = json_get(x, "game_id");
	}
	if (live > 0) {
		snprintf(what, sizeof what, "%ld game%s still live (first: %.60s)", live,
		    live == 1 ? " is" : "s are", str_or(first, "?"));
		fn(ctx, what, "let the live games finish, freeze again and bundle the new freeze");
		n++;
	}
	return n;
}

long
freeze_live(const cJSON *doc, freeze_live_fn fn, void *ctx)
{
	const char *kind = str_or(json_get(doc, "kind"), "");
	long n = 0;

	if (cJSON_IsTrue(json_get(doc, "live"))) {
		fn(ctx, "the document is marked live",
		    "publish it only once its data are final: re-derive it from a terminal freeze");
		n++;
	}
	if (strcmp(kind, "cohort.freeze/1") == 0)
		n += freeze_reasons(doc, fn, ctx);
	return n;
}
