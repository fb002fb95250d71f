/* report.c: the reviewer's page of a bundle: bundle.json and the documents
 * it names, read from a folder (the spec's when the gate writes the page,
 * the bag's data/ when it is verified or a reviewer asks for it). */
#define _GNU_SOURCE /* asprintf */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../plot/plot.h"
#include "../plot/svg.h"
#include "page.h"
#include "tables.h"
#include "tuple.h"

#define REPORT_MAX_ITEMS 256

struct item {
	const cJSON *meta; /* its entry in bundle.json */
	cJSON *doc;        /* the parsed document, when it is JSON of its kind */
	const char *kind;  /* that kind, or NULL */
	int borrowed;      /* doc (and games) the caller's */
	/* a freeze's games, held flat: its tree has none (freeze_games_parse) */
	const struct freeze_games *games;
	struct freeze_games *own;  /* games, when read here */
};

struct items {
	struct item it[REPORT_MAX_ITEMS];
	size_t n;
	const char *dir; /* the folder the items' paths are relative to */
};

static int
is_kind(const struct item *it, const char *kind)
{
	return it->kind && strcmp(it->kind, kind) == 0;
}

/* A path of bundle.json, which a bag does not make safe: relative, no "..". */
static int
safe_rel(const char *p)
{
	return p && p[0] && p[0] != '/' && strstr(p, "..") == NULL;
}

/* Each item's document: one that does not read, or is not of the kind
 * bundle.json says, is listed without its figures. */
static int
items_read(const cJSON *bundle, const char *dir, report_doc_fn *doc, void *ctx, struct items *x,
    struct err *e)
{
	const cJSON *m;

	x->n = 0;
	x->dir = dir;
	cJSON_ArrayForEach(m, json_get(bundle, "items")) {
		const char *p = page_str(m, "path"), *k = page_str(m, "kind");
		struct item *it = &x->it[x->n];
		struct err ig = ERR_INIT;
		char *full;
		if (x->n == REPORT_MAX_ITEMS)
			return err_set(e, ERR_INPUT, "bundle.json: more than %d items", REPORT_MAX_ITEMS);
		memset(it, 0, sizeof *it);
		it->meta = m;
		x->n++;
		if (!k || !safe_rel(p))
			continue;
		if (doc != NULL && (it->doc = (cJSON *)doc(ctx, p, &it->games)) != NULL) {
			it->borrowed = 1;
		} else {
			struct buf b = BUF_INIT;
			if (asprintf(&full, "%s/%s", dir, p) < 0)
				continue;
			if (io_read_all(full, &b, IO_MAX_DOCUMENT, &ig) == 0)
				it->doc = freeze_games_parse(b.p ? b.p : "", b.len, p, &it->own, &ig);
			it->games = it->own;
			buf_release(&b);
			free(full);
		}
		if (it->doc && page_str(it->doc, "kind") && strcmp(page_str(it->doc, "kind"), k) == 0)
			it->kind = k;
	}
	return 0;
}

static void
items_release(struct items *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (!x->it[i].borrowed) {
			cJSON_Delete(x->it[i].doc);
			freeze_games_free(x->it[i].own);
		}
}

/* "prompts/system.txt at commit eee1cde40d59 of harness; ..." */
static void
harness_of(const struct items *x, char *out, size_t len)
{
	size_t k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < x->n && k + 1 < len; i++) {
		const cJSON *g = json_get(x->it[i].meta, "git");
		int w;
		if (!cJSON_IsObject(g))
			continue;
		w = snprintf(out + k, len - k, "%s%s at commit %.12s of %s", k ? "; " : "",
		    page_or(g, "path", "?"), page_or(g, "commit", "?"), page_or(g, "repo", "?"));
		if (w < 0 || (size_t)w >= len - k)
			break;
		k += (size_t)w;
	}
}

/* The item whose identity (of its bytes or of its canonical JSON) is id. */
static int
item_is(const struct item *it, const char *id)
{
	const char *a = page_str(it->meta, "id"), *b = page_str(it->meta, "document");

	return id && ((a && strcmp(a, id) == 0) || (b && strcmp(b, id) == 0));
}

/* The fit whose input is the freeze it, or NULL. */
static const struct item *
fit_of(const struct items *x, const struct item *freeze)
{
	for (size_t i = 0; i < x->n; i++)
		if (is_kind(&x->it[i], "cohort.fit/1") &&
		    item_is(freeze, page_str(x->it[i].doc, "input")))
			return &x->it[i];
	return NULL;
}

static void
tuple_part(struct svg *s, const struct items *x)
{
	char harness[1024];

	harness_of(x, harness, sizeof harness);
	svg_put(s, "<h2 id=\"tuple\">The protocol: what each rating refers to</h2>\n");
	for (size_t i = 0; i < x->n; i++) {
		const struct item *it = &x->it[i], *fit;
		const char *sp = page_str(json_get(it->meta, "store"), "path");
		char *store = NULL;
		struct err ig = ERR_INIT;
		if (!is_kind(it, "cohort.freeze/1"))
			continue;
		fit = fit_of(x, it);
		if (safe_rel(sp) && asprintf(&store, "%s/%s", x->dir, sp) < 0)
			store = NULL;
		svg_put(s, "<h3>%e (%e)</h3>\n", page_or(it->meta, "path", "?"),
		    page_or(it->meta, "role", "?"));
		if (tuple_section(s, it->doc, it->games, store, fit ? fit->doc : NULL,
		    harness[0] ? harness : NULL, &ig) < 0)
			s->failed = 1;
		free(store);
	}
}

/* A figure of kind k from docs, inline; one that cannot be drawn says why. */
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

static const struct {
	const char *kind;
	enum plot_kind plot;
} figures[] = {
	{ "cohort.freeze/1", PLOT_LADDER },
	{ "cohort.fit/1", PLOT_CURVE },
	{ "cohort.fit/1", PLOT_SENSITIVITY },
	{ "cohort.paired/1", PLOT_PAIRED },
	{ "cohort.distance/1", PLOT_DISTANCE },
};

static void
figures_part(struct svg *s, const struct items *x)
{
	struct plot_doc fits[REPORT_MAX_ITEMS];
	size_t nfit = 0;

	svg_put(s, "<h2 id=\"figures\">Figures</h2>\n");
	for (size_t i = 0; i < x->n; i++) {
		const struct item *it = &x->it[i];
		struct plot_doc d = { it->doc, page_or(it->meta, "path", "?"),
			page_or(it->meta, "role", "?") };
		char cap[512];
		if (it->kind == NULL)
			continue;
		snprintf(cap, sizeof cap, "%s (%s)", d.name, d.label);
		for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++)
			if (strcmp(figures[f].kind, it->kind) == 0)
				figure(s, figures[f].plot, &d, 1, cap);
		if (is_kind(it, "cohort.fit/1"))
			fits[nfit++] = d;
	}
	if (nfit > 1)
		figure(s, PLOT_CURVE, fits, nfit, "every fit of the bundle, overlaid");
}

/* The opening lines: what the page is of, and (for an archive) whether it
 * verified. */
static void
summary(struct svg *s, const cJSON *bundle, const struct items *x, const struct report_archive *a)
{
	if (a) {
		svg_put(s, "<p>Archive <code>%e</code>", a->name);
		if (a->id) {
			svg_put(s, ", identity ");
			page_id(s, a->id);
		}
	} else
		svg_put(s, "<p>Bundle <code>%e</code>", page_or(bundle, "name", "?"));
	svg_put(s, "; cut (as_of) %e; %d items.", page_or(bundle, "as_of", "?"), (int)x->n);
	if (a)
		svg_put(s, " <span class=\"%s\">%s</span> (<a href=\"#verification\">checks</a>).",
		    a->held ? "finding" : "held", a->held ? "It does not verify" : "It verifies");
	svg_put(s, "</p>\n<p>Every figure and number below is read from the documents in the "
	    "bundle%s</p>\n", a ? "; the verification section says whether they are what the "
	    "evidence gives." : ". This page is derived from data/bundle.json and the files it "
	    "names, and verifying the archive derives it again; <code>cohort report</code> of the "
	    "archive adds the verification of every check.");
}

int
report_bundle(const cJSON *bundle, const char *data_dir, const struct report_archive *a,
    struct buf *html, struct err *e)
{
	return report_bundle_docs(bundle, data_dir, a, NULL, NULL, html, e);
}

int
report_bundle_docs(const cJSON *bundle, const char *data_dir, const struct report_archive *a,
    report_doc_fn *doc, void *ctx, struct buf *html, struct err *e)
{
	struct items *x = calloc(1, sizeof *x);
	struct svg s = { html, 0 };
	struct buf title = BUF_INIT;
	int rc = -1;

	if (x == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (items_read(bundle, data_dir, doc, ctx, x, e) < 0)
		goto done;
	if (buf_printf(&title, "Review of %s", page_or(bundle, "name", a ? a->name : "a bundle")) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	page_begin(&s, title.p);
	summary(&s, bundle, x, a);
	tuple_part(&s, x);
	svg_put(&s, "<h2 id=\"ratings\">Ratings: W-D-L, anchors, intervals, saturation</h2>\n");
	for (size_t i = 0; i < x->n; i++)
		if (is_kind(&x->it[i], "cohort.fit/1"))
			tables_ratings(&s, x->it[i].meta, x->it[i].doc);
	figures_part(&s, x);
	if (a) {
		svg_put(&s, "<h2 id=\"verification\">Verification of the archive</h2>\n");
		tables_checks(&s, a->verify);
	}
	svg_put(&s, "<h2 id=\"items\">Items and their identities</h2>\n");
	tables_items(&s, json_get(bundle, "items"));
	page_end(&s);
	rc = s.failed ? err_set(e, ERR_NOMEM, "out of memory") : 0;
done:
	items_release(x);
	free(x);
	buf_release(&title);
	return rc;
}
