/* kcurve.c: the paired k curves: best-move recall and mean regret against
 * candidate width, one series per (family, replication, budget) of a
 * cohort.paired/1, bootstrap intervals as bands. */
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "chart.h"
#include "read.h"

#define K_MAX_SERIES 32
#define K_MAX_WIDTHS 32

struct kval {
	double v, lo, hi;
	int has, has_iv;
};

struct kpoint {
	int width;
	const char *condition;
	struct kval recall, regret;
	long long decisions;
};

struct kseries {
	const char *family, *rep, *budget;
	char label[200];
	struct kpoint pt[K_MAX_WIDTHS];
	size_t n;
};

struct kfig {
	struct kseries s[K_MAX_SERIES];
	size_t ns;
	int widths[K_MAX_WIDTHS];
	size_t nw;
	struct buf omitted;
	double level;
};

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static int
opt_string(const struct plot_doc *d, const cJSON *it, const char *where, const char *key,
    const char **out, struct err *e)
{
	*out = NULL;
	if (cJSON_IsNull(json_get(it, key)))
		return 0;
	return plot_read_string(d, it, where, key, 1, out, e);
}

/* {estimate | mean, interval} of a figure; null or absent parts are left out. */
static int
read_val(const struct plot_doc *d, const cJSON *it, const char *where, const char *key,
    const char *est, struct kval *v, struct err *e)
{
	const cJSON *o = json_get(it, key);
	double iv[2];
	int has[2];

	memset(v, 0, sizeof *v);
	if (o == NULL || cJSON_IsNull(o))
		return 0;
	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "%s: %s \"%s\": expected an object or null", d->name,
		    where, key);
	if (plot_read_number(d, o, where, est, 1, &v->v, &v->has, e) < 0 ||
	    plot_read_interval(d, o, where, "interval", iv, has, e) < 0)
		return -1;
	if (has[0] && has[1]) {
		v->lo = iv[0];
		v->hi = iv[1];
		v->has_iv = 1;
	}
	return 0;
}

/* A condition with no candidate width, named in f->omitted once. */
static int
note_omitted(struct kfig *f, const char *condition, struct err *e)
{
	int seen = 0;

	/* name each condition left out once */
	for (const char *q = f->omitted.p; q && (q = strstr(q, condition)) != NULL; q++)
		if ((q == f->omitted.p || q[-1] == ' ') &&
		    (q[strlen(condition)] == ',' || q[strlen(condition)] == '\0'))
			seen = 1;
	if (!seen && buf_printf(&f->omitted, "%s%s", f->omitted.len ? ", " : "", condition) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The series of (family, replication, budget), new when there is none
 * yet; NULL past K_MAX_SERIES. */
static struct kseries *
series_of(const struct plot_doc *d, struct kfig *f, const char *fam, const char *rep,
    const char *bud, struct err *e)
{
	struct kseries *s = NULL;

	for (size_t i = 0; i < f->ns; i++)
		if (strcmp(f->s[i].family, fam) == 0 && same(f->s[i].rep, rep) &&
		    same(f->s[i].budget, bud))
			s = &f->s[i];
	if (s != NULL)
		return s;
	if (f->ns == K_MAX_SERIES) {
		err_set(e, ERR_INPUT, "%s: more than %d series to draw", d->name, K_MAX_SERIES);
		return NULL;
	}
	s = &f->s[f->ns++];
	memset(s, 0, sizeof *s);
	s->family = fam;
	s->rep = rep;
	s->budget = bud;
	return s;
}

/* Point p into series s, its width into the figure's sorted widths. */
static int
add_point(const struct plot_doc *d, struct kfig *f, struct kseries *s, const struct kpoint *p,
    const char *where, struct err *e)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->pt[i].width == p->width)
			return err_set(e, ERR_INPUT, "%s: %s: width %d twice in one series", d->name,
			    where, p->width);
	if (s->n == K_MAX_WIDTHS)
		return err_set(e, ERR_INPUT, "%s: more than %d widths", d->name, K_MAX_WIDTHS);
	s->pt[s->n++] = *p;
	for (i = 0; i < f->nw && f->widths[i] < p->width; i++)
		;
	if (i == f->nw || f->widths[i] != p->width) {
		if (f->nw == K_MAX_WIDTHS)
			return err_set(e, ERR_INPUT, "%s: more than %d widths", d->name,
			    K_MAX_WIDTHS);
		memmove(f->widths + i + 1, f->widths + i, (f->nw - i) * sizeof f->widths[0]);
		f->widths[i] = p->width;
		f->nw++;
	}
	return 0;
}

/* Each series' legend label: its family, and its replication and budget
 * when the series differ in them. */
static void
label_series(struct kfig *f)
{
	int reps = 0, budgets = 0;

	for (size_t i = 0; i < f->ns; i++)
		for (size_t j = 0; j < f->ns; j++) {
			reps |= !same(f->s[i].rep, f->s[j].rep);
			budgets |= !same(f->s[i].budget, f->s[j].budget);
		}
	for (size_t i = 0; i < f->ns; i++) {
		struct kseries *s = &f->s[i];
		snprintf(s->label, sizeof s->label, "%s%s%s%s%s", s->family, reps && s->rep ? " " : "",
		    reps && s->rep ? s->rep : "", budgets ? " " : "",
		    budgets ? (s->budget ? s->budget : "no budget") : "");
	}
}

static int
kfig_read(const struct plot_doc *d, struct kfig *f, struct err *e)
{
	const cJSON *cells, *it, *opt = json_get(d->doc, "options");
	size_t k = 0;

	f->level = 0.95;
	if (plot_read_kind(d, "cohort.paired/1", e) < 0 ||
	    plot_read_array(d, NULL, "", "cells", &cells, e) < 0)
		return -1;
	if (cJSON_IsObject(opt) && plot_read_number(d, opt, "options", "level", 0, &f->level,
	    NULL, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, cells) {
		char where[48];
		struct kpoint p;
		const char *fam, *rep, *bud;
		struct kseries *s;

		snprintf(where, sizeof where, "cells[%zu]", k++);
		memset(&p, 0, sizeof p);
		if (plot_read_string(d, it, where, "family", 0, &fam, e) < 0 ||
		    opt_string(d, it, where, "replication", &rep, e) < 0 ||
		    opt_string(d, it, where, "budget", &bud, e) < 0 ||
		    plot_read_string(d, it, where, "condition", 0, &p.condition, e) < 0 ||
		    plot_read_count(d, it, where, "decisions", &p.decisions, e) < 0 ||
		    read_val(d, it, where, "recall", "estimate", &p.recall, e) < 0 ||
		    read_val(d, it, where, "regret", "mean", &p.regret, e) < 0)
			return -1;
		if ((p.width = plot_width(p.condition)) < 0) {
			if (note_omitted(f, p.condition, e) < 0)
				return -1;
			continue;
		}
		if ((s = series_of(d, f, fam, rep, bud, e)) == NULL ||
		    add_point(d, f, s, &p, where, e) < 0)
			return -1;
	}
	if (f->ns == 0)
		return err_set(e, ERR_INPUT, "%s: no cell with a candidate width (none or top<k>) to "
		    "draw", d->name);
	label_series(f);
	return 0;
}

static const struct kval *
val_of(const struct kpoint *p, int regret)
{
	return regret ? &p->regret : &p->recall;
}

static const struct kpoint *
at_width(const struct kseries *s, int w)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->pt[i].width == w)
			return &s->pt[i];
	return NULL;
}

/* The band of series s: runs of neighbouring widths that have an interval. */
static void
kband(struct svg *g, const struct kfig *f, const struct kseries *s, const struct chart_area *a,
    const double *xs, int regret, struct chart_style st)
{
	for (size_t w = 0; w < f->nw;) {
		size_t end = w;
		const struct kpoint *p;
		while (end < f->nw && (p = at_width(s, f->widths[end])) != NULL &&
		    val_of(p, regret)->has_iv)
			end++;
		if (end == w) {
			w++;
			continue;
		}
		svg_put(g, "<path class=\"band\" d=\"");
		for (size_t k = w; k < end; k++)
			svg_put(g, "%s%v %v", k == w ? "M" : "L", xs[k],
			    chart_y(a, val_of(at_width(s, f->widths[k]), regret)->hi));
		for (size_t k = end; k > w; k--)
			svg_put(g, "L%v %v", xs[k - 1],
			    chart_y(a, val_of(at_width(s, f->widths[k - 1]), regret)->lo));
		svg_put(g, "z\" fill=\"%s\" fill-opacity=\"0.15\" stroke=\"%s\" "
		    "stroke-width=\"0.6\" stroke-opacity=\"0.7\"%s%s%s/>\n", st.colour, st.colour,
		    st.dash[0] ? " stroke-dasharray=\"" : "", st.dash, st.dash[0] ? "\"" : "");
		w = end;
	}
}

/* Series i of a panel: its band, its line and a marker per width. */
static void
kseries_draw(struct svg *g, const struct kfig *f, size_t i, const struct chart_area *a,
    const double *xs, int regret)
{
	const struct kseries *s = &f->s[i];
	struct chart_style st = chart_style(i);
	char lab[240], num[32];
	int open = 0;

	svg_attr_escape(lab, sizeof lab, s->label);
	svg_put(g, "<g class=\"series\" data-series=\"%s\" data-figure=\"%s\">\n", lab,
	    regret ? "regret" : "recall");
	kband(g, f, s, a, xs, regret, st);
	svg_put(g, "<path class=\"curve-line\" d=\"");
	for (size_t w = 0; w < f->nw; w++) {
		const struct kpoint *p = at_width(s, f->widths[w]);
		if (p == NULL || !val_of(p, regret)->has) {
			open = 0;
			continue;
		}
		svg_put(g, "%s%v %v", open ? "L" : "M", xs[w], chart_y(a, val_of(p, regret)->v));
		open = 1;
	}
	svg_put(g, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\"%s%s%s/>\n", st.colour,
	    st.dash[0] ? " stroke-dasharray=\"" : "", st.dash, st.dash[0] ? "\"" : "");
	for (size_t w = 0; w < f->nw; w++) {
		const struct kpoint *p = at_width(s, f->widths[w]);
		char attrs[128];
		if (p == NULL || !val_of(p, regret)->has)
			continue;
		svg_fixed(val_of(p, regret)->v, 6, num);
		snprintf(attrs, sizeof attrs, "data-width=\"%d\" data-value=\"%s\"", p->width, num);
		chart_marker(g, st.marker, xs[w], chart_y(a, val_of(p, regret)->v), 3.2, st.colour,
		    "point", attrs);
	}
	svg_put(g, "</g>\n");
}

/* The value axis' span: recall 0 to 1, regret over its values and intervals. */
static void
kspan(const struct kfig *f, int regret, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < f->ns; i++)
		for (size_t j = 0; j < f->s[i].n; j++) {
			const struct kval *v = val_of(&f->s[i].pt[j], regret);
			if (v->has) {
				*lo = fmin(*lo, v->v);
				*hi = fmax(*hi, v->v);
			}
			if (v->has_iv) {
				*lo = fmin(*lo, v->lo);
				*hi = fmax(*hi, v->hi);
			}
		}
	if (!regret) {
		*lo = 0;
		*hi = 1;
	} else if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 100;
	}
}

/* One panel: recall (regret 0) or mean regret (regret 1). */
static void
kpanel(struct chart *ch, const struct kfig *f, int regret)
{
	struct chart_area a = { 50, SVG_WIDTH - 8, 0, 0, 0, 0 };
	double lo, hi, ticks[16], xs[K_MAX_WIDTHS], band;
	int nt;
	struct svg *g = &ch->s;
	char num[32];

	kspan(f, regret, &lo, &hi);
	chart_ticks(lo, hi, 5, &a.lo, &a.hi, ticks, &nt, 16);
	a.x0 = chart_yaxis_left(ticks, nt, chart_decimals(ticks[1] - ticks[0]));
	ch->y += 4;
	chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "panel-title",
	    regret ? "Mean regret (centipawns): best candidate's value minus the chosen move's"
	           : "Best-move recall: share of decisions choosing the engine's best move");
	a.y0 = ch->y + 6;
	a.y1 = a.y0 + 120;
	chart_yaxis(g, &a, ticks, nt, chart_decimals(ticks[1] - ticks[0]),
	    regret ? "regret (cp)" : "recall");
	band = (a.x1 - a.x0) / (double)f->nw;
	svg_put(g, "<g class=\"axis x-axis\">\n");
	for (size_t w = 0; w < f->nw; w++) {
		xs[w] = a.x0 + band * ((double)w + 0.5);
		svg_fixed(f->widths[w], 0, num);
		svg_put(g, "<path d=\"M%v %vv3\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n", xs[w],
		    a.y1);
		chart_text(g, xs[w], a.y1 + 3 + SVG_FONT, "middle", SVG_FONT, "tick-label", NULL, num);
	}
	chart_text(g, (a.x0 + a.x1) / 2, a.y1 + 5 + 2 * SVG_FONT, "middle", SVG_FONT, "axis-label",
	    NULL, "candidate width k (none = 0, top k = k)");
	svg_put(g, "</g>\n");
	for (size_t i = 0; i < f->ns; i++)
		kseries_draw(g, f, i, &a, xs, regret);
	ch->y = a.y1 + 8 + 2 * SVG_FONT;
}

int
plot_paired(const struct plot_doc *d, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	struct kfig *f = calloc(1, sizeof *f);
	struct chart ch;
	struct chart_key keys[K_MAX_SERIES];
	char cap[1024], num[32];
	int rc = -1;

	if (f == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (kfig_read(d, f, e) == 0) {
		chart_begin(&ch, "paired", "Paired positions: recall and regret against candidate width",
		    o->inline_html);
		for (size_t i = 0; i < f->ns; i++)
			keys[i] = (struct chart_key){ f->s[i].label, chart_style(i), 1 };
		chart_legend(&ch, keys, f->ns);
		kpanel(&ch, f, 0);
		kpanel(&ch, f, 1);
		svg_fixed(f->level * 100, 2, num);
		snprintf(cap, sizeof cap, "Lines: the estimate per width; bands: %s%% block-bootstrap "
		    "intervals over openings. Regret counts exact values only (bounds kept apart); a "
		    "mate counts 100000 - 100n cp, so a missed mate dominates a mean.",
		    num);
		chart_paragraph(&ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
		if (f->omitted.len) {
			snprintf(cap, sizeof cap, "Not drawn (no candidate width): %s.", f->omitted.p);
			chart_paragraph(&ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
		}
		if ((rc = chart_end(&ch, out)) < 0)
			err_set(e, ERR_NOMEM, "out of memory");
		chart_release(&ch);
	}
	buf_release(&f->omitted);
	free(f);
	return rc;
}
