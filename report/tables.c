/* tables.c: the ratings, verification and items tables of the page. */
#include "tables.h"

#include <string.h>

#include "../json/json.h"
#include "page.h"

/* "a, b, c" of an array's values */
static void
list(struct svg *s, const cJSON *arr)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, arr) {
		page_value(s, x);
		svg_put(s, "%s", x->next ? ", " : "");
	}
}

/* "all_wins: exact lower bound 2190.26, no finite rating", or "no" */
static void
saturation(struct svg *s, const cJSON *c)
{
	const char *st = page_str(c, "status");
	const cJSON *b = json_get(c, "bound");
	char num[32];

	if (st && (strcmp(st, "all_wins") == 0 || strcmp(st, "all_losses") == 0) &&
	    cJSON_IsNumber(json_get(b, "value"))) {
		canon_number(json_get(b, "value")->valuedouble, num);
		svg_put(s, "%e: exact %e bound %s, no finite rating", st, page_or(b, "side", "?"), num);
	} else if (st && strcmp(st, "finite") == 0)
		svg_put(s, "no");
	else
		page_value(s, json_get(c, "status"));
}

static void
rating_row(struct svg *s, const cJSON *c)
{
	const cJSON *iv = json_get(c, "interval");

	svg_put(s, "<tr data-condition=\"%e\"><td>", page_or(c, "condition", ""));
	page_value(s, json_get(c, "family"));
	svg_put(s, "</td><td>");
	page_value(s, json_get(c, "condition"));
	svg_put(s, "</td><td class=\"num\">");
	page_value(s, json_get(c, "games"));
	svg_put(s, "</td><td class=\"num\">");
	page_value(s, json_get(c, "w"));
	svg_put(s, "-");
	page_value(s, json_get(c, "d"));
	svg_put(s, "-");
	page_value(s, json_get(c, "l"));
	svg_put(s, "</td><td>");
	list(s, json_get(c, "anchors"));
	svg_put(s, "</td><td class=\"num\">");
	page_value(s, json_get(c, "rating"));
	svg_put(s, "</td><td class=\"num\">");
	if (cJSON_IsArray(iv)) {
		page_value(s, cJSON_GetArrayItem(iv, 0));
		svg_put(s, " to ");
		page_value(s, cJSON_GetArrayItem(iv, 1));
	} else
		page_value(s, iv);
	svg_put(s, "</td><td>");
	saturation(s, c);
	svg_put(s, "</td></tr>\n");
}

void
tables_ratings(struct svg *s, const cJSON *meta, const cJSON *fit)
{
	const cJSON *c;

	svg_put(s, "<h3>%e (%e)</h3>\n<table class=\"ratings\">\n<tr><th>family</th><th>condition"
	    "</th><th>games</th><th>W-D-L</th><th>anchors</th><th>rating</th><th>interval</th>"
	    "<th>saturated</th></tr>\n", page_or(meta, "path", "?"), page_or(meta, "role", "?"));
	cJSON_ArrayForEach(c, json_get(fit, "conditions"))
		rating_row(s, c);
	svg_put(s, "</table>\n");
}

void
tables_checks(struct svg *s, const cJSON *report)
{
	const cJSON *c;
	int good = 0, bad = 0;

	cJSON_ArrayForEach(c, json_get(report, "checks")) {
		int ok = cJSON_IsTrue(json_get(c, "ok"));
		good += ok;
		bad += !ok;
	}
	svg_put(s, "<p class=\"%s\">%s: %d checks hold, %d findings.</p>\n", bad ? "finding" : "held",
	    bad ? "The archive does not verify" : "The archive verifies", good, bad);
	svg_put(s, "<table class=\"checks\">\n<tr><th>outcome</th><th>check</th><th>subject</th>"
	    "<th>detail</th></tr>\n");
	cJSON_ArrayForEach(c, json_get(report, "checks")) {
		int ok = cJSON_IsTrue(json_get(c, "ok"));
		svg_put(s, "<tr><td class=\"%s\">%s</td><td>", ok ? "held" : "finding",
		    ok ? "holds" : "finding");
		page_value(s, json_get(c, "check"));
		svg_put(s, "</td><td>");
		page_value(s, json_get(c, "subject"));
		svg_put(s, "</td><td>");
		if (json_get(c, "detail"))
			page_value(s, json_get(c, "detail"));
		svg_put(s, "</td></tr>\n");
	}
	svg_put(s, "</table>\n");
}

/* Where an item comes from: a commit of a repository, an object store. */
static void
provenance(struct svg *s, const cJSON *m)
{
	const cJSON *g = json_get(m, "git"), *st = json_get(m, "store");

	if (cJSON_IsObject(g))
		svg_put(s, "<code>%e</code> of <code>%e</code> at commit <code>%e</code>",
		    page_or(g, "path", "?"), page_or(g, "repo", "?"), page_or(g, "commit", "?"));
	if (cJSON_IsObject(st)) {
		svg_put(s, "object store <code>%e</code>: ", page_or(st, "path", "?"));
		page_value(s, json_get(st, "files"));
		svg_put(s, " files, ");
		page_value(s, json_get(st, "bytes"));
		svg_put(s, " bytes");
	}
}

void
tables_items(struct svg *s, const cJSON *items)
{
	const cJSON *m;

	svg_put(s, "<table class=\"items\">\n<tr><th>role</th><th>path</th><th>kind</th><th>bytes"
	    "</th><th>identity</th><th>derived from</th><th>provenance</th></tr>\n");
	cJSON_ArrayForEach(m, items) {
		const char *id = page_str(m, "id"), *doc = page_str(m, "document");
		svg_put(s, "<tr><td>");
		page_value(s, json_get(m, "role"));
		svg_put(s, "</td><td><code>");
		page_value(s, json_get(m, "path"));
		svg_put(s, "</code></td><td>");
		page_value(s, json_get(m, "kind"));
		svg_put(s, "</td><td class=\"num\">");
		page_value(s, json_get(m, "size"));
		svg_put(s, "</td><td>");
		page_id(s, id);
		if (doc && (!id || strcmp(doc, id) != 0)) {
			svg_put(s, "<br>canonical JSON: ");
			page_id(s, doc);
		}
		svg_put(s, "</td><td>");
		list(s, json_get(m, "derived_from"));
		svg_put(s, "</td><td>");
		provenance(s, m);
		svg_put(s, "</td></tr>\n");
	}
	svg_put(s, "</table>\n");
}
