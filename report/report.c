/* report.c: the reviewer's page of a bundle archive, or of the gate's
 * refusal of a bundle spec. */
#include "report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bagit/bag.h"
#include "../bundle/bundle.h"
#include "../common/hash.h"
#include "../json/json.h"
#include "../plot/plot.h"
#include "../plot/svg.h"
#include "../review/review.h"
#include "page.h"
#include "tuple.h"

#define REPORT_MAX_ITEMS 256

struct item {
	const cJSON *meta;  /* its entry in bundle.json */
	cJSON *doc;         /* the parsed document, when it is JSON of a kind */
	const char *kind;   /* its kind, or NULL */
	char path[PATH_MAX];
};

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *
base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* A figure of kind k from docs, inline; a figure that cannot be drawn
 * says why instead. */
static void
figure(struct svg *s, enum plot_kind k, const struct plot_doc *docs, size_t n,
    const char *caption)
{
	struct plot_opts o = { 1 };
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	svg_put(s, "<figure class=\"plot\" data-kind=\"%s\">\n", plot_kind_name(k));
	if (plot_svg(k, docs, n, &o, &b, &e) == 0)
		svg_put(s, "%s", b.p);
	else
		svg_put(s, "<p class=\"finding\">not drawn: %e</p>\n", e.msg);
	svg_put(s, "<figcaption>%e</figcaption>\n</figure>\n", caption);
	buf_release(&b);
}

/* The W-D-L, anchors, interval and saturation of each condition of a fit. */
static void
ratings_table(struct svg *s, const struct item *fit)
{
	const cJSON *c;
	char num[32];

	svg_put(s, "<h3>%e (%e)</h3>\n<table class=\"ratings\">\n<tr><th>family</th><th>condition"
	    "</th><th>games</th><th>W-D-L</th><th>anchors</th><th>rating</th><th>interval</th>"
	    "<th>saturated</th></tr>\n", str(fit->meta, "path"), str(fit->meta, "role"));
	cJSON_ArrayForEach(c, json_get(fit->doc, "conditions")) {
		const cJSON *iv = json_get(c, "interval"), *b = json_get(c, "bound"), *a;
		const char *st = str(c, "status");
		int first = 1;
		svg_put(s, "<tr data-condition=\"%e\"><td>", str(c, "condition") ? str(c, "condition") : "");
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
		cJSON_ArrayForEach(a, json_get(c, "anchors")) {
			svg_put(s, "%s", first ? "" : ", ");
			page_value(s, a);
			first = 0;
		}
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
		if (st && (strcmp(st, "all_wins") == 0 || strcmp(st, "all_losses") == 0) &&
		    cJSON_IsObject(b) && cJSON_IsNumber(json_get(b, "value"))) {
			canon_number(json_get(b, "value")->valuedouble, num);
			svg_put(s, "%e: exact %e bound %s, no finite rating", st, str(b, "side"), num);
		} else if (st && strcmp(st, "finite") == 0)
			svg_put(s, "no");
		else
			page_value(s, json_get(c, "status"));
		svg_put(s, "</td></tr>\n");
	}
	svg_put(s, "</table>\n");
}

static void
checks_table(struct svg *s, const cJSON *report)
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

static void
items_table(struct svg *s, const struct item *it, size_t n)
{
	svg_put(s, "<table class=\"items\">\n<tr><th>role</th><th>path</th><th>kind</th><th>bytes"
	    "</th><th>identity</th><th>derived from</th><th>provenance</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		const cJSON *m = it[i].meta, *g = json_get(m, "git"), *df = json_get(m, "derived_from");
		const cJSON *st = json_get(m, "store"), *x;
		int first = 1;
		svg_put(s, "<tr><td>");
		page_value(s, json_get(m, "role"));
		svg_put(s, "</td><td><code>");
		page_value(s, json_get(m, "path"));
		svg_put(s, "</code></td><td>");
		page_value(s, json_get(m, "kind"));
		svg_put(s, "</td><td class=\"num\">");
		page_value(s, json_get(m, "size"));
		svg_put(s, "</td><td>");
		page_id(s, str(m, "id"));
		if (str(m, "document") && (!str(m, "id") || strcmp(str(m, "document"), str(m, "id")) != 0)) {
			svg_put(s, "<br>canonical JSON: ");
			page_id(s, str(m, "document"));
		}
		svg_put(s, "</td><td>");
		cJSON_ArrayForEach(x, df) {
			svg_put(s, "%s", first ? "" : ", ");
			page_value(s, x);
			first = 0;
		}
		svg_put(s, "</td><td>");
		if (cJSON_IsObject(g)) {
			svg_put(s, "<code>%e</code> of <code>%e</code> at commit <code>%e</code>",
			    str(g, "path") ? str(g, "path") : "?", str(g, "repo") ? str(g, "repo") : "?",
			    str(g, "commit") ? str(g, "commit") : "?");
		}
		if (cJSON_IsObject(st)) {
			svg_put(s, "object store <code>%e</code>: ", str(st, "path") ? str(st, "path") : "?");
			page_value(s, json_get(st, "files"));
			svg_put(s, " files, ");
			page_value(s, json_get(st, "bytes"));
			svg_put(s, " bytes");
		}
		svg_put(s, "</td></tr>\n");
	}
	svg_put(s, "</table>\n");
}

/* "prompts/system.txt at commit eee1cde40d59 of harness; ..." */
static void
harness_of(const struct item *it, size_t n, char *out, size_t len)
{
	size_t k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && k + 1 < len; i++) {
		const cJSON *g = json_get(it[i].meta, "git");
		int w;
		if (!cJSON_IsObject(g))
			continue;
		w = snprintf(out + k, len - k, "%s%s at commit %.12s of %s", k ? "; " : "",
		    str(g, "path") ? str(g, "path") : "?", str(g, "commit") ? str(g, "commit") : "?",
		    str(g, "repo") ? str(g, "repo") : "?");
		if (w < 0 || (size_t)w >= len - k)
			break;
		k += (size_t)w;
	}
}

static const struct item *
find_input(const struct item *it, size_t n, const struct item *of, const char *kind)
{
	const cJSON *in = json_get(of->doc, "input");

	for (size_t i = 0; i < n; i++)
		if (it[i].kind && strcmp(it[i].kind, kind) == 0 && cJSON_IsString(in) &&
		    ((str(it[i].meta, "id") && strcmp(str(it[i].meta, "id"), in->valuestring) == 0) ||
			(str(it[i].meta, "document") &&
			    strcmp(str(it[i].meta, "document"), in->valuestring) == 0)))
			return &it[i];
	return NULL;
}

static void
body_sections(struct svg *s, const char *root, struct item *it, size_t n, const cJSON *verify)
{
	char harness[1024], store[PATH_MAX];
	size_t nfit = 0;
	struct plot_doc fits[REPORT_MAX_ITEMS];

	harness_of(it, n, harness, sizeof harness);
	svg_put(s, "<h2 id=\"tuple\">The protocol: what each rating refers to</h2>\n");
	for (size_t i = 0; i < n; i++) {
		const struct item *fit = NULL;
		const cJSON *st = json_get(it[i].meta, "store");
		if (!it[i].kind || strcmp(it[i].kind, "cohort.freeze/1") != 0)
			continue;
		for (size_t j = 0; j < n && fit == NULL; j++)
			if (it[j].kind && strcmp(it[j].kind, "cohort.fit/1") == 0 &&
			    find_input(it, n, &it[j], "cohort.freeze/1") == &it[i])
				fit = &it[j];
		snprintf(store, sizeof store, "%s/data/%s", root, str(st, "path") ? str(st, "path") : "");
		svg_put(s, "<h3>%e (%e)</h3>\n", str(it[i].meta, "path"), str(it[i].meta, "role"));
		tuple_section(s, it[i].doc, cJSON_IsObject(st) ? store : NULL, fit ? fit->doc : NULL,
		    harness[0] ? harness : NULL, NULL);
	}
	svg_put(s, "<h2 id=\"ratings\">Ratings: W-D-L, anchors, intervals, saturation</h2>\n");
	for (size_t i = 0; i < n; i++)
		if (it[i].kind && strcmp(it[i].kind, "cohort.fit/1") == 0)
			ratings_table(s, &it[i]);
	svg_put(s, "<h2 id=\"figures\">Figures</h2>\n");
	for (size_t i = 0; i < n; i++) {
		struct plot_doc d = { it[i].doc, str(it[i].meta, "path"), str(it[i].meta, "role") };
		char cap[512];
		if (!it[i].kind)
			continue;
		snprintf(cap, sizeof cap, "%s (%s)", str(it[i].meta, "path"), str(it[i].meta, "role"));
		if (strcmp(it[i].kind, "cohort.fit/1") == 0) {
			fits[nfit++] = d;
			figure(s, PLOT_CURVE, &d, 1, cap);
			figure(s, PLOT_SENSITIVITY, &d, 1, cap);
		} else if (strcmp(it[i].kind, "cohort.freeze/1") == 0)
			figure(s, PLOT_LADDER, &d, 1, cap);
		else if (strcmp(it[i].kind, "cohort.paired/1") == 0)
			figure(s, PLOT_PAIRED, &d, 1, cap);
		else if (strcmp(it[i].kind, "cohort.distance/1") == 0)
			figure(s, PLOT_DISTANCE, &d, 1, cap);
	}
	if (nfit > 1)
		figure(s, PLOT_CURVE, fits, nfit, "every fit of the bundle, overlaid");
	svg_put(s, "<h2 id=\"verification\">Verification of the archive</h2>\n");
	checks_table(s, verify);
	svg_put(s, "<h2 id=\"items\">Items and their identities</h2>\n");
	items_table(s, it, n);
}

static int
read_items(const char *root, const cJSON *bundle, struct item *it, size_t *n, struct err *e)
{
	const cJSON *x;

	*n = 0;
	cJSON_ArrayForEach(x, json_get(bundle, "items")) {
		const char *p = str(x, "path"), *k = str(x, "kind");
		struct err ig = ERR_INIT;
		if (*n == REPORT_MAX_ITEMS)
			return err_set(e, ERR_INPUT, "bundle.json: more than %d items", REPORT_MAX_ITEMS);
		memset(&it[*n], 0, sizeof it[0]);
		it[*n].meta = x;
		if (p && k && strstr(p, "..") == NULL && p[0] != '/') {
			snprintf(it[*n].path, sizeof it[*n].path, "%s/data/%s", root, p);
			/* a document the bag does not hold on disk (too large) is
			 * listed without its figures */
			it[*n].doc = json_parse_file(it[*n].path, &ig);
			if (it[*n].doc && str(it[*n].doc, "kind") && strcmp(str(it[*n].doc, "kind"), k) == 0)
				it[*n].kind = k;
		}
		(*n)++;
	}
	return 0;
}

int
report_archive(const char *path, struct buf *html, struct err *e)
{
	const char *files[1] = { path };
	struct review_opts ro = { .files = files, .nfiles = 1 };
	cJSON *verify = NULL, *bundle = NULL;
	struct bag *bag = NULL;
	struct item *it = calloc(REPORT_MAX_ITEMS, sizeof *it);
	size_t n = 0;
	struct svg s = { html, 0 };
	char bpath[PATH_MAX], title[512], id[HASH_ID_LEN + 1] = "";
	uint8_t dg[HASH_LEN];
	int rc = -1, held;

	if (it == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((held = review_files(&ro, &verify, e)) < 0 || bag_open(path, &bag, e) < 0)
		goto done;
	snprintf(bpath, sizeof bpath, "%s/data/bundle.json", bag_root(bag));
	if ((bundle = json_parse_file(bpath, e)) == NULL) {
		err_prefix(e, "%s: not a cohort bundle", path);
		goto done;
	}
	if (read_items(bag_root(bag), bundle, it, &n, e) < 0)
		goto done;
	if (hash_file(path, dg, NULL, e) == 0)
		hash_id_format(dg, id);
	else
		e->code = ERR_OK; /* a bag folder has no one identity */
	snprintf(title, sizeof title, "Review of %s", str(bundle, "name") ? str(bundle, "name") : base(path));
	page_begin(&s, title);
	svg_put(&s, "<p>Archive <code>%e</code>%s", base(path), id[0] ? ", identity " : "");
	if (id[0])
		page_id(&s, id);
	svg_put(&s, "; cut (as_of) %e; %d items. ",
	    str(bundle, "as_of") ? str(bundle, "as_of") : "?", (int)n);
	svg_put(&s, "<span class=\"%s\">%s</span> (<a href=\"#verification\">checks</a>).</p>\n",
	    held ? "finding" : "held", held ? "It does not verify" : "It verifies");
	svg_put(&s, "<p>Every figure and number below is read from the documents in the bag; "
	    "the verification section says whether they are what the evidence gives.</p>\n");
	body_sections(&s, bag_root(bag), it, n, verify);
	page_end(&s);
	rc = s.failed ? err_set(e, ERR_NOMEM, "out of memory") : held;
done:
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(it[i].doc);
	free(it);
	cJSON_Delete(bundle);
	cJSON_Delete(verify);
	bag_free(bag);
	return rc;
}

int
report_spec(const char *spec, struct buf *html, struct err *e)
{
	struct bundle_opts o = { .spec = spec, .check = 1, .compress = BAG_PLAIN };
	cJSON *doc = NULL;
	char id[HASH_ID_LEN + 1], title[512];
	struct svg s = { html, 0 };
	const cJSON *f;
	int rc;

	if ((rc = bundle_run(&o, &doc, id, e)) < 0)
		return -1;
	snprintf(title, sizeof title, "%s of %s", rc ? "Refusal" : "Gate check",
	    str(doc, "name") ? str(doc, "name") : base(spec));
	page_begin(&s, title);
	if (rc == 0) {
		svg_put(&s, "<p class=\"held\">The gate holds: nothing is missing, stale, live, secret "
		    "or invalid. These items would be bundled.</p>\n");
		{
			struct item it[REPORT_MAX_ITEMS];
			size_t n = 0;
			const cJSON *x;
			cJSON_ArrayForEach(x, json_get(doc, "items")) {
				if (n == REPORT_MAX_ITEMS)
					break;
				memset(&it[n], 0, sizeof it[0]);
				it[n++].meta = x;
			}
			items_table(&s, it, n);
		}
	} else {
		const cJSON *c = json_get(doc, "counts"), *k;
		svg_put(&s, "<p class=\"finding\">The gate refuses <code>%e</code>: %d findings. No "
		    "archive is written until every one is dealt with.</p>\n<p>", base(spec),
		    cJSON_GetArraySize(json_get(doc, "findings")));
		cJSON_ArrayForEach(k, c) {
			svg_put(&s, "%e: ", k->string);
			page_value(&s, k);
			svg_put(&s, "%s", k->next ? "; " : "");
		}
		svg_put(&s, "</p>\n<table class=\"findings\">\n<tr><th>check</th><th>role</th>"
		    "<th>where</th><th>finding</th><th>what to do</th></tr>\n");
		cJSON_ArrayForEach(f, json_get(doc, "findings")) {
			svg_put(&s, "<tr><td class=\"finding\">");
			page_value(&s, json_get(f, "check"));
			svg_put(&s, "</td><td>");
			if (json_get(f, "role"))
				page_value(&s, json_get(f, "role"));
			svg_put(&s, "</td><td><code>");
			if (json_get(f, "path"))
				page_value(&s, json_get(f, "path"));
			if (json_get(f, "line")) {
				svg_put(&s, ":");
				page_value(&s, json_get(f, "line"));
			}
			svg_put(&s, "</code></td><td>");
			page_value(&s, json_get(f, "detail"));
			svg_put(&s, "</td><td>");
			page_value(&s, json_get(f, "action"));
			svg_put(&s, "</td></tr>\n");
		}
		svg_put(&s, "</table>\n");
	}
	page_end(&s);
	cJSON_Delete(doc);
	if (s.failed)
		return err_set(e, ERR_NOMEM, "out of memory");
	return rc;
}
