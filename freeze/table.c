/* table.c: a freeze's blocks and condition states for people. */
#include <stdio.h>
#include <string.h>

#include "freeze.h"
#include "../json/json.h"

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *
str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The "pairs" section, when there is one: counts, then each broken pair. */
static int
pairs_lines(const cJSON *p, struct buf *out)
{
	const cJSON *b, *suite = json_get(p, "suite");

	if (p == NULL)
		return 0;
	buf_printf(out, "\npairs: %.0f whole, %d broken, of %.0f games naming a pair%s%s\n",
	    num(p, "pairs"), cJSON_GetArraySize(json_get(p, "broken")), num(p, "games"),
	    cJSON_IsString(suite) ? "; opening suite " : "", cJSON_IsString(suite) ?
	    suite->valuestring : "");
	cJSON_ArrayForEach(b, json_get(p, "broken"))
		buf_printf(out, "  broken pair: game %s (pair %s): %s\n", str(b, "game_id"),
		    str(b, "pair"), str(b, "why"));
	return 0;
}

int
freeze_table(const cJSON *m, struct buf *out)
{
	const cJSON *b, *c, *a, *t = json_get(m, "totals");

	buf_printf(out, "%s: as of %s: %.0f games, %.0f excluded\n\n",
	    str(json_get(m, "spec"), "name"), str(m, "as_of"), num(t, "games"), num(t, "excluded"));
	buf_printf(out, "%-10s %5s %7s %-6s %5s %-9s %6s\n", "condition", "block", "anchor", "color",
	    "games", "W-D-L", "score");
	cJSON_ArrayForEach(b, json_get(m, "blocks")) {
		double g = num(b, "games");
		char wdl[32];
		snprintf(wdl, sizeof wdl, "%.0f-%.0f-%.0f", num(b, "w"), num(b, "d"), num(b, "l"));
		buf_printf(out, "%-10s %5.0f %7g %-6s %5.0f %-9s %6.3f\n", str(b, "condition"),
		    num(b, "block"), num(b, "anchor"), str(b, "color"), g, wdl,
		    g > 0 ? (num(b, "w") + num(b, "d") / 2) / g : 0);
	}
	buf_printf(out, "\n%-10s %-8s %5s %-9s %-22s %-24s %12s %10s\n", "condition", "state", "games",
	    "W-D-L", "anchors", "ladder", "tokens/game", "worker-h");
	cJSON_ArrayForEach(c, json_get(m, "conditions")) {
		const cJSON *lad = json_get(c, "ladder"), *next = json_get(lad, "next");
		char wdl[32], anchors[64] = "", ladder[64];
		double g = num(c, "games");
		size_t n = 0;
		cJSON_ArrayForEach(a, json_get(c, "anchors")) {
			double lo = a->valuedouble;
			if (n++ == 0)
				snprintf(anchors, sizeof anchors, "%g", lo);
			if (a->next == NULL && n > 1)
				snprintf(anchors + strlen(anchors), sizeof anchors - strlen(anchors), "-%g (%zu)",
				    lo, n);
		}
		snprintf(wdl, sizeof wdl, "%.0f-%.0f-%.0f", num(c, "w"), num(c, "d"), num(c, "l"));
		if (cJSON_IsNumber(next))
			snprintf(ladder, sizeof ladder, "next %g (%s)", next->valuedouble, str(lad, "rule"));
		else
			snprintf(ladder, sizeof ladder, "stop (%s)", str(lad, "rule"));
		buf_printf(out, "%-10s %-8s %5.0f %-9s %-22s %-24s %12.0f %10.2f\n", str(c, "condition"),
		    str(c, "state"), g, wdl, anchors, ladder,
		    g > 0 ? num(json_get(c, "tokens"), "total") / g : 0, num(c, "worker_hours"));
		const cJSON *dv;
		cJSON_ArrayForEach(dv, json_get(c, "deviations"))
			buf_printf(out, "  deviation: block %.0f at %g: %s\n", num(dv, "block"),
			    num(dv, "anchor"), str(dv, "why"));
	}
	if (buf_printf(out, "%-10s %-8s %5.0f %-9s %-22s %-24s %12.0f %10.2f\n", "total", "",
	    num(t, "games"), "", "", "", num(t, "games") > 0 ?
	    num(json_get(t, "tokens"), "total") / num(t, "games") : 0, num(t, "worker_hours")) < 0)
		return -1;
	return pairs_lines(json_get(m, "pairs"), out);
}
