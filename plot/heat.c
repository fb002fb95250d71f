/* heat.c: the distance heat map of a cohort.distance/1: one row and one
 * column per family, each between-family d² off the diagonal, each
 * family's test-retest d² (across its replications) on it, and the pairs
 * whose between-distance exceeds both within-distances outlined and
 * starred.  The colour scale is cividis, light for near and dark for far:
 * its lightness rises steadily, so a grey-scale print keeps the order and
 * readers with any common colour-vision deficiency see the same ramp. */
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "chart.h"
#include "read.h"

#define H_MAX 24 /* families drawn */

struct hcell {
	double d2, lo, hi;
	int has, has_iv;
	int exceeds; /* 1 exceeds both within-distances, 0 not, -1 not known */
	int set;     /* the document gives this cell */
};

struct hfig {
	const char *fam[H_MAX];
	size_t n;
	struct hcell c[H_MAX][H_MAX];
	int npairs[H_MAX][H_MAX]; /* pairs of fingerprints of two families */
	double max;
};

/* The family's index, added when new; -1 past H_MAX. */
static int
fam_index(struct hfig *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->fam[i], name) == 0)
			return (int)i;
	if (f->n == H_MAX)
		return -1;
	f->fam[f->n] = name;
	return (int)f->n++;
}

/* A number field that may be null (absent counts as null). */
static int
opt_num(const struct plot_doc *d, const cJSON *it, const char *where, const char *key,
    double *v, int *has, struct err *e)
{
	if (plot_read_number(d, it, where, key, 1, v, has, e) < 0)
		return -1;
	if (*has && *v < 0)
		return err_set(e, ERR_INPUT, "%s: %s \"%s\": expected a number >= 0", d->name, where,
		    key);
	return 0;
}

/* "lo" and "hi" of an entry, an interval when both are there. */
static int
read_lohi(const struct plot_doc *d, const cJSON *it, const char *where, struct hcell *c,
    struct err *e)
{
	int hlo, hhi;

	if (plot_read_number(d, it, where, "lo", 1, &c->lo, &hlo, e) < 0 ||
	    plot_read_number(d, it, where, "hi", 1, &c->hi, &hhi, e) < 0)
		return -1;
	c->has_iv = hlo && hhi;
	return 0;
}

static int
read_exceeds(const struct plot_doc *d, const cJSON *it, const char *where, int *out,
    struct err *e)
{
	const cJSON *x = json_get(it, "exceeds");

	if (x == NULL || cJSON_IsNull(x))
		*out = -1;
	else if (cJSON_IsBool(x))
		*out = cJSON_IsTrue(x);
	else
		return err_set(e, ERR_INPUT, "%s: %s \"exceeds\": expected true, false or null",
		    d->name, where);
	return 0;
}

/* Each family's test-retest distance: the diagonal. */
static int
read_retest(const struct plot_doc *d, struct hfig *f, struct err *e)
{
	const cJSON *arr, *it;
	size_t k = 0;

	if (plot_read_array(d, NULL, "", "test_retest", &arr, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, arr) {
		char where[48];
		const char *fam;
		int i;
		struct hcell *c;
		snprintf(where, sizeof where, "test_retest[%zu]", k++);
		if (plot_read_string(d, it, where, "family", 0, &fam, e) < 0)
			return -1;
		if ((i = fam_index(f, fam)) < 0)
			return err_set(e, ERR_INPUT, "%s: more than %d families to draw", d->name, H_MAX);
		c = &f->c[i][i];
		if (c->set)
			return err_set(e, ERR_INPUT, "%s: %s: family %s twice", d->name, where, fam);
		if (opt_num(d, it, where, "d2", &c->d2, &c->has, e) < 0 || read_lohi(d, it, where, c, e) < 0)
			return -1;
		c->set = 1;
		c->exceeds = -1;
	}
	return 0;
}

/* Each pair of families: between-distance and whether it exceeds both
 * within-distances; off the diagonal. */
static int
read_separation(const struct plot_doc *d, struct hfig *f, struct err *e)
{
	const cJSON *arr, *it;
	size_t k = 0;

	if (plot_read_array(d, NULL, "", "separation", &arr, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, arr) {
		char where[48];
		const char *a, *b;
		int i, j;
		struct hcell *c;
		snprintf(where, sizeof where, "separation[%zu]", k++);
		if (plot_read_string(d, it, where, "a", 0, &a, e) < 0 ||
		    plot_read_string(d, it, where, "b", 0, &b, e) < 0)
			return -1;
		if (strcmp(a, b) == 0)
			return err_set(e, ERR_INPUT, "%s: %s: \"a\" and \"b\" are both %s", d->name, where, a);
		if ((i = fam_index(f, a)) < 0 || (j = fam_index(f, b)) < 0)
			return err_set(e, ERR_INPUT, "%s: more than %d families to draw", d->name, H_MAX);
		c = &f->c[i][j];
		if (c->set)
			return err_set(e, ERR_INPUT, "%s: %s: the families %s, %s twice", d->name, where,
			    a, b);
		if (opt_num(d, it, where, "between", &c->d2, &c->has, e) < 0 ||
		    read_exceeds(d, it, where, &c->exceeds, e) < 0)
			return -1;
		c->set = 1;
		f->c[j][i] = *c;
	}
	return 0;
}

/* The bootstrap interval of a between-distance, where one pair of
 * fingerprints makes it (one replication each); with more, the cell's
 * d² summarizes several pairs and no one interval belongs to it. */
static int
read_pairs(const struct plot_doc *d, struct hfig *f, struct err *e)
{
	const cJSON *arr, *it;
	size_t k = 0;

	if (plot_read_array(d, NULL, "", "pairs", &arr, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, arr) {
		char where[48];
		const char *a, *b;
		int i = -1, j = -1;
		struct hcell iv = { 0 };
		snprintf(where, sizeof where, "pairs[%zu]", k++);
		if (plot_read_string(d, json_get(it, "a"), where, "family", 0, &a, e) < 0 ||
		    plot_read_string(d, json_get(it, "b"), where, "family", 0, &b, e) < 0 ||
		    read_lohi(d, it, where, &iv, e) < 0)
			return -1;
		for (size_t x = 0; x < f->n; x++) {
			i = strcmp(f->fam[x], a) == 0 ? (int)x : i;
			j = strcmp(f->fam[x], b) == 0 ? (int)x : j;
		}
		if (i < 0 || j < 0 || i == j || !f->c[i][j].set)
			continue;
		if (++f->npairs[i][j] == 1) {
			f->c[i][j].lo = f->c[j][i].lo = iv.lo;
			f->c[i][j].hi = f->c[j][i].hi = iv.hi;
		}
		f->c[i][j].has_iv = f->c[j][i].has_iv = f->npairs[i][j] == 1 && iv.has_iv;
		f->npairs[j][i] = f->npairs[i][j];
	}
	return 0;
}

static int
hfig_read(const struct plot_doc *d, struct hfig *f, struct err *e)
{
	if (plot_read_kind(d, "cohort.distance/1", e) < 0 || read_retest(d, f, e) < 0 ||
	    read_separation(d, f, e) < 0 || read_pairs(d, f, e) < 0)
		return -1;
	if (f->n == 0)
		return err_set(e, ERR_INPUT, "%s: \"test_retest\", \"separation\": no family to draw",
		    d->name);
	for (size_t i = 0; i < f->n; i++)
		for (size_t j = 0; j < f->n; j++)
			if (f->c[i][j].has)
				f->max = fmax(f->max, f->c[i][j].d2);
	return 0;
}

/* cividis at t in [0, 1], reversed: light (near) to dark (far). */
static void
ramp(double t, char out[8], int *dark)
{
	static const unsigned char stop[5][3] = {
		{ 0xFF, 0xEA, 0x46 }, { 0xBC, 0xAF, 0x6F }, { 0x7C, 0x7B, 0x78 },
		{ 0x41, 0x4D, 0x6B }, { 0x00, 0x22, 0x4E },
	};
	double x = fmin(fmax(t, 0), 1) * 4;
	int k = x >= 4 ? 3 : (int)x;
	double u = x - k;
	int rgb[3];

	for (int i = 0; i < 3; i++)
		rgb[i] = (int)lround(stop[k][i] + (stop[k + 1][i] - stop[k][i]) * u);
	snprintf(out, 8, "#%02X%02X%02X", rgb[0], rgb[1], rgb[2]);
	*dark = t > 0.45;
}

struct hgeo {
	double x0, y0, cell; /* the matrix' top left corner and a cell's side */
	int names_on_top;    /* column heads are names (else numbers) */
};

/* A line of text in a cell, when it fits. */
static void
cell_text(struct svg *g, double cx, double y, double cell, const char *cls, const char *fill,
    const char *text)
{
	if (svg_text_width(text, SVG_FONT) <= cell - 4)
		chart_text(g, cx, y, "middle", SVG_FONT, cls, fill, text);
}

static void
cell_draw(struct svg *g, const struct hfig *f, const struct hgeo *h, size_t i, size_t j)
{
	const struct hcell *c = &f->c[i][j];
	double x = h->x0 + h->cell * (double)j, y = h->y0 + h->cell * (double)i;
	double cx = x + h->cell / 2, cy = y + h->cell / 2;
	char colour[8] = "#FFFFFF", num[32], lo[32], hi[32], iv[80], a[64], b[64];
	int dark = 0;

	svg_attr_escape(a, sizeof a, f->fam[i]);
	svg_attr_escape(b, sizeof b, f->fam[j]);
	if (c->has)
		ramp(f->max > 0 ? c->d2 / f->max : 0, colour, &dark);
	svg_put(g, "<g class=\"cell%s%s\" data-a=\"%s\" data-b=\"%s\"", i == j ? " within" : " between",
	    c->exceeds == 1 ? " exceeds" : c->exceeds == 0 ? " not-exceeds" : "", a, b);
	if (c->has) {
		svg_fixed(c->d2, 6, num);
		svg_put(g, " data-d2=\"%s\"", num);
	}
	if (c->has && c->has_iv) {
		svg_fixed(c->lo, 6, lo);
		svg_fixed(c->hi, 6, hi);
		svg_put(g, " data-lo=\"%s\" data-hi=\"%s\"", lo, hi);
	}
	svg_put(g, ">\n");
	/* the diagonal's cells framed dashed: test-retest, not between */
	svg_put(g, "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\" fill=\"%s\" stroke=\"%s\" "
	    "stroke-width=\"%s\"%s/>\n", x + 1, y + 1, h->cell - 2, h->cell - 2,
	    c->has ? colour : "#FFFFFF", c->exceeds == 1 ? "#000000" : i == j ? "#555555" : "#BBBBBB",
	    c->exceeds == 1 ? "2" : i == j ? "1" : "0.6", i == j ? " stroke-dasharray=\"3 2\"" : "");
	if (!c->set || !c->has) {
		cell_text(g, cx, cy + SVG_FONT * 0.35, h->cell, "cell-value", NULL,
		    c->set ? "n/a" : "\xe2\x80\x94");
		svg_put(g, "</g>\n");
		return;
	}
	svg_fixed(c->d2, c->d2 >= 100 ? 0 : 1, num);
	if (c->exceeds == 1)
		snprintf(num + strlen(num), sizeof num - strlen(num), " \xe2\x98\x85");
	else if (c->exceeds < 0 && i != j)
		snprintf(num + strlen(num), sizeof num - strlen(num), " ?");
	cell_text(g, cx, cy - (c->has_iv ? 1 : -SVG_FONT * 0.35), h->cell, "cell-value",
	    dark ? "#FFFFFF" : "#000000", num);
	if (c->has_iv) {
		svg_fixed(c->lo, c->lo >= 100 ? 0 : 1, lo);
		svg_fixed(c->hi, c->hi >= 100 ? 0 : 1, hi);
		snprintf(iv, sizeof iv, "%s\xe2\x80\x93%s", lo, hi);
		cell_text(g, cx, cy + SVG_FONT, h->cell, "cell-interval", dark ? "#FFFFFF" : "#000000",
		    iv);
	}
	svg_put(g, "</g>\n");
}

/* The families' names on the left, and above the columns as names when
 * they fit a cell, else as numbers the row heads repeat. */
static void
heads(struct svg *g, const struct hfig *f, const struct hgeo *h)
{
	char head[96];

	for (size_t i = 0; i < f->n; i++) {
		double cy = h->y0 + h->cell * ((double)i + 0.5);
		if (h->names_on_top)
			snprintf(head, sizeof head, "%s", f->fam[i]);
		else
			snprintf(head, sizeof head, "%zu %s", i + 1, f->fam[i]);
		chart_text(g, h->x0 - 4, cy + SVG_FONT * 0.35, "end", SVG_FONT, "row-head", NULL, head);
		if (h->names_on_top)
			snprintf(head, sizeof head, "%s", f->fam[i]);
		else
			snprintf(head, sizeof head, "%zu", i + 1);
		chart_text(g, h->x0 + h->cell * ((double)i + 0.5), h->y0 - 4, "middle", SVG_FONT,
		    "col-head", NULL, head);
	}
}

/* The scale: a bar of the ramp from 0 to the largest d², with ticks. */
static void
scale(struct chart *ch, const struct hfig *f)
{
	const double x0 = 40, x1 = SVG_WIDTH - 40, steps = 24;
	double a0, a1, ticks[16], y = ch->y + 4;
	int nt, dark;
	char colour[8], num[32];

	chart_ticks(0, f->max > 0 ? f->max : 1, 5, &a0, &a1, ticks, &nt, 16);
	svg_put(&ch->s, "<g class=\"scale\">\n");
	for (int k = 0; k < steps; k++) {
		double t = (k + 0.5) / steps;
		ramp(t * a1 / (f->max > 0 ? f->max : 1), colour, &dark);
		svg_put(&ch->s, "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"10\" fill=\"%s\"/>\n",
		    x0 + (x1 - x0) * k / steps, y, (x1 - x0) / steps + 0.3, colour);
	}
	for (int k = 0; k < nt; k++) {
		double x = x0 + (x1 - x0) * ticks[k] / a1;
		svg_fixed(ticks[k], chart_decimals(nt > 1 ? ticks[1] - ticks[0] : 1), num);
		svg_put(&ch->s, "<path d=\"M%v %vv3\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n", x,
		    y + 10);
		chart_text(&ch->s, x, y + 13 + SVG_FONT, "middle", SVG_FONT, "tick-label", NULL, num);
	}
	chart_text(&ch->s, (x0 + x1) / 2, y + 16 + 2 * SVG_FONT, "middle", SVG_FONT, "axis-label",
	    NULL, "d\xc2\xb2 (squared Mahalanobis distance, no unit)");
	svg_put(&ch->s, "</g>\n");
	ch->y = y + 20 + 2 * SVG_FONT;
}

static void
matrix(struct chart *ch, const struct hfig *f)
{
	struct hgeo h = { 0, 0, 0, 1 };
	double left = 0, widest = 0;

	for (size_t i = 0; i < f->n; i++) {
		char head[96];
		snprintf(head, sizeof head, "%zu %s", i + 1, f->fam[i]);
		left = fmax(left, svg_text_width(head, SVG_FONT));
		widest = fmax(widest, svg_text_width(f->fam[i], SVG_FONT));
	}
	left = ceil(left + 10);
	h.cell = fmin(64, floor((SVG_WIDTH - left - 8) / (double)f->n));
	h.names_on_top = widest <= h.cell - 2;
	h.x0 = left;
	h.y0 = ch->y + 4 + SVG_FONT + 4;
	svg_put(&ch->s, "<g class=\"matrix\">\n");
	heads(&ch->s, f, &h);
	for (size_t i = 0; i < f->n; i++)
		for (size_t j = 0; j < f->n; j++)
			cell_draw(&ch->s, f, &h, i, j);
	svg_put(&ch->s, "</g>\n");
	ch->y = h.y0 + h.cell * (double)f->n + 4;
}

int
plot_distance(const struct plot_doc *d, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	struct hfig *f = calloc(1, sizeof *f);
	struct chart ch;
	int rc = -1;

	if (f == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (hfig_read(d, f, e) == 0) {
		chart_begin(&ch, "distance", "Distances between fingerprints (d\xc2\xb2)",
		    o->inline_html);
		matrix(&ch, f);
		scale(&ch, f);
		chart_paragraph(&ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption",
		    "Off the diagonal: between-family d\xc2\xb2 (with its bootstrap interval where "
		    "one pair of fingerprints makes it); on it, framed dashed: each family's "
		    "test-retest d\xc2\xb2 across its replications. Outlined and "
		    "starred (\xe2\x98\x85): the between-distance exceeds both families' "
		    "within-distances; ?: not known (a within-distance is missing). n/a: the data "
		    "cannot support the distance; "
		    "\xe2\x80\x94: not in the document.");
		if ((rc = chart_end(&ch, out)) < 0)
			err_set(e, ERR_NOMEM, "out of memory");
		chart_release(&ch);
	}
	free(f);
	return rc;
}
