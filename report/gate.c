/* gate.c: the page of the gate's answer for a bundle spec: every finding
 * of its refusal with what to do about it, or the items it would bundle. */
#include "report.h"

#include <string.h>

#include "../json/json.h"
#include "../plot/svg.h"
#include "page.h"
#include "tables.h"

static void
finding_row(struct svg *s, const cJSON *f)
{
	svg_put(s, "<tr class=\"finding-row\" data-check=\"%e\"><td class=\"finding\">",
	    page_or(f, "check", ""));
	page_value(s, json_get(f, "check"));
	svg_put(s, "</td><td>");
	if (json_get(f, "role"))
		page_value(s, json_get(f, "role"));
	svg_put(s, "</td><td><code>");
	if (json_get(f, "path"))
		page_value(s, json_get(f, "path"));
	if (json_get(f, "line")) {
		svg_put(s, ":");
		page_value(s, json_get(f, "line"));
	}
	svg_put(s, "</code></td><td>");
	page_value(s, json_get(f, "detail"));
	svg_put(s, "</td><td>");
	page_value(s, json_get(f, "action"));
	svg_put(s, "</td></tr>\n");
}

static void
refusal(struct svg *s, const cJSON *doc, const char *spec_name)
{
	const cJSON *k, *f;

	svg_put(s, "<p class=\"finding\">The gate refuses <code>%e</code>: %d findings. No "
	    "archive is written until every one is dealt with.</p>\n<p>", spec_name,
	    cJSON_GetArraySize(json_get(doc, "findings")));
	cJSON_ArrayForEach(k, json_get(doc, "counts")) {
		svg_put(s, "%e: ", k->string);
		page_value(s, k);
		svg_put(s, "%s", k->next ? "; " : "");
	}
	svg_put(s, "</p>\n<table class=\"findings\">\n<tr><th>check</th><th>role</th>"
	    "<th>where</th><th>finding</th><th>what to do</th></tr>\n");
	cJSON_ArrayForEach(f, json_get(doc, "findings"))
		finding_row(s, f);
	svg_put(s, "</table>\n");
}

int
report_gate(const cJSON *doc, const char *spec_name, struct buf *html, struct err *e)
{
	const char *kind = page_str(doc, "kind");
	int refused = kind && strcmp(kind, "cohort.refusal/1") == 0;
	struct svg s = { html, 0 };
	struct buf title = BUF_INIT;

	if (buf_printf(&title, "%s of %s", refused ? "Refusal" : "Gate check",
	    page_or(doc, "name", spec_name)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	page_begin(&s, title.p);
	if (refused)
		refusal(&s, doc, spec_name);
	else {
		svg_put(&s, "<p class=\"held\">The gate holds: nothing is missing, stale, live, "
		    "secret or invalid. These items would be bundled.</p>\n");
		tables_items(&s, json_get(doc, "items"));
	}
	page_end(&s);
	buf_release(&title);
	return s.failed ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}
