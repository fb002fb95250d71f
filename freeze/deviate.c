/* deviate.c: what a freeze that follows a preregistration finds when it
 * compares what was done with what was registered: games that started
 * before registered_at, exclusions it did not register, widths it did not
 * name.  The decisions' part is decisions.c's; both write entries here. */
#include <stdio.h>
#include <string.h>

#include "../json/json.h"
#include "../protocol/decision.h"
#include "../protocol/prereg.h"
#include "internal.h"

int
freeze_dev_add(cJSON *arr, const char *setting, const char *registered, const char *used)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -1;
	}
	return json_add_string(o, "setting", setting) && json_add_string(o, "registered", registered) &&
	    json_add_string(o, "used", used) ? 0 : -1;
}

void
freeze_widths_add(struct freeze_widths *w, const char *condition)
{
	struct decision_cond c;

	if (decision_cond_parse(condition, &c) == 0 && (c.kind == DK_NONE || c.kind == DK_TOP))
		w->bits[c.k / 64] |= (uint64_t)1 << (c.k % 64);
}

void
freeze_widths_text(const struct freeze_widths *w, char *out, size_t cap)
{
	size_t at = 0;

	out[0] = '\0';
	for (int k = 0; k <= PREREG_MAX_WIDTH && at < cap; k++)
		if (w->bits[k / 64] >> (k % 64) & 1)
			at += (size_t)snprintf(out + at, cap - at, "%s%d", at ? ", " : "", k);
	if (at == 0)
		snprintf(out, cap, "none");
}

/* The registered widths, as a set and as text. */
static void
registered_widths(const struct prereg *p, struct freeze_widths *w, char *out, size_t cap)
{
	memset(w, 0, sizeof *w);
	for (size_t i = 0; i < p->nwidths; i++)
		w->bits[p->widths[i] / 64] |= (uint64_t)1 << (p->widths[i] % 64);
	freeze_widths_text(w, out, cap);
}

int
freeze_widths_check(const struct prereg *p, const struct freeze_widths *used, const char *what,
    cJSON *arr)
{
	struct freeze_widths reg;
	char rt[300], ut[300], u[340];

	registered_widths(p, &reg, rt, sizeof rt);
	if (memcmp(reg.bits, used->bits, sizeof reg.bits) == 0)
		return 0;
	freeze_widths_text(used, ut, sizeof ut);
	snprintf(u, sizeof u, "%s: %s", what, ut);
	return freeze_dev_add(arr, "widths", rt, u);
}

/* The registered exclusions as text. */
static void
exclusions_text(const struct prereg *p, char *out, size_t cap)
{
	size_t at = 0;

	snprintf(out, cap, "none");
	for (size_t i = 0; i < p->nexclusions && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? ", " : "", p->exclusions[i]);
}

int
freeze_exclusion_check(const struct prereg *p, const char *reason, long count, const char *unit,
    cJSON *arr)
{
	char rt[300], u[200];

	if (count == 0 || prereg_excludes(p, reason))
		return 0;
	exclusions_text(p, rt, sizeof rt);
	snprintf(u, sizeof u, "%s: %ld %s%s", reason, count, unit, count == 1 ? "" : "s");
	return freeze_dev_add(arr, "exclusions", rt, u);
}

int
freeze_devs_games(const struct freeze_acc *a, struct freeze_item *const *ord, size_t n, cJSON *arr)
{
	const struct prereg *p = a->prereg;
	long count[X_ABORTED + 1] = { 0 };
	struct freeze_widths used = { { 0, 0 } };
	char u[300];

	for (size_t i = 0; i < n; i++) {
		if (ord[i]->early) {
			snprintf(u, sizeof u, "game %.200s started before it", ord[i]->game_id);
			if (freeze_dev_add(arr, "registered_at", p->registered_at, u) < 0)
				return -1;
		}
		count[ord[i]->reason]++;
		if (ord[i]->reason == X_NONE)
			freeze_widths_add(&used, a->sp.conds[ord[i]->cond]);
	}
	for (int r = X_FAMILY; r <= X_ABORTED; r++)
		if (freeze_exclusion_check(p, freeze_reason_names[r], count[r], "game", arr) < 0)
			return -1;
	return count[X_NONE] > 0 ? freeze_widths_check(p, &used, "games", arr) : 0;
}

long
freeze_deviations_each(const cJSON *manifest, freeze_dev_fn fn, void *ctx)
{
	const cJSON *d;
	long n = 0;

	cJSON_ArrayForEach(d, json_get(manifest, "deviations")) {
		const cJSON *s = json_get(d, "setting"), *r = json_get(d, "registered"),
		    *u = json_get(d, "used");
		if (fn != NULL && cJSON_IsString(s) && cJSON_IsString(r) && cJSON_IsString(u))
			fn(ctx, s->valuestring, r->valuestring, u->valuestring);
		n++;
	}
	return n;
}
