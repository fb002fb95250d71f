/* sens.c: the colour sensitivity of a fit: each condition's rating under
 * every assumed Black penalty of the fit's sensitivity rows, one line per
 * (family, condition). */
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "chart.h"
#include "read.h"

#define SENS_MAX_ROWS 64
#define SENS_MAX_LINES 64

struct line {
	const char *family, *condition;
	char label[160];
	double y[SENS_MAX_ROWS];
	int has[SENS_MAX_ROWS];
};

struct sens {
	double x[SENS_MAX_ROWS], nu[SENS_MAX_ROWS];
	size_t nr;
	struct line l[SENS_MAX_LINES];
	size_t nl;
	struct buf nulls; /* lines with a null rating somewhere */
};

static struct line *
line_of(struct sens *s, const char *fam, const char *cond)
{
	for (size_t i = 0; i < s->nl; i++)
		if (strcmp(s->l[i].condition, cond) == 0 &&
		    strcmp(s->l[i].family ? s->l[i].family : "", fam ? fam : "") == 0)
			return &s->l[i];
	if (s->nl == SENS_MAX_LINES)
		return NULL;
	memset(&s->l[s->nl], 0, sizeof s->l[0]);
	s->l[s->nl].family = fam;
	s->l[s->nl].condition = cond;
	return &s->l[s->nl++];
}

static int
sens_read(const struct plot_doc *d, struct sens *s, struct err *e)
{
	const cJSON *rows, *row;
	size_t r = 0;
	int families = 0;

	if (plot_read_kind(d, "cohort.fit/1", e) < 0 ||
	    plot_read_array(d, NULL, "", "sensitivity", &rows, e) < 0)
		return -1;
	cJSON_ArrayForEach(row, rows) {
		char where[48];
		const cJSON *ratings, *it;
		if (r == SENS_MAX_ROWS)
			return err_set(e, ERR_INPUT, "%s: more than %d sensitivity rows", d->name,
			    SENS_MAX_ROWS);
		snprintf(where, sizeof where, "sensitivity[%zu]", r);
		if (plot_read_number(d, row, where, "black_penalty", 0, &s->x[r], NULL, e) < 0 ||
		    plot_read_number(d, row, where, "nu", 1, &s->nu[r], NULL, e) < 0 ||
		    plot_read_array(d, row, where, "ratings", &ratings, e) < 0)
			return -1;
		cJSON_ArrayForEach(it, ratings) {
			const char *fam, *cond;
			struct line *l;
			int has;
			double v;
			if (plot_read_string(d, it, where, "family", 1, &fam, e) < 0 ||
			    plot_read_string(d, it, where, "condition", 0, &cond, e) < 0 ||
			    plot_read_number(d, it, where, "rating", 1, &v, &has, e) < 0)
				return -1;
			if ((l = line_of(s, fam, cond)) == NULL)
				return err_set(e, ERR_INPUT, "%s: more than %d conditions to draw",
				    d->name, SENS_MAX_LINES);
			l->y[r] = v;
			l->has[r] = has;
		}
		r++;
	}
	s->nr = r;
	if (s->nr == 0 || s->nl == 0)
		return err_set(e, ERR_INPUT, "%s: \"sensitivity\": no rating to draw", d->name);
	for (size_t i = 0; i < s->nl; i++)
		for (size_t j = 0; j < s->nl; j++)
			families |= s->l[i].family && s->l[j].family &&
			    strcmp(s->l[i].family, s->l[j].family) != 0;
	for (size_t i = 0; i < s->nl; i++) {
		struct line *l = &s->l[i];
		int any = 0, all = 1;
		if (families && l->family)
			snprintf(l->label, sizeof l->label, "%s/%s", l->family, l->condition);
		else
			snprintf(l->label, sizeof l->label, "%s", l->condition);
		for (size_t k = 0; k < s->nr; k++) {
			any |= l->has[k];
			all &= l->has[k];
		}
		if (!all && buf_printf(&s->nulls, "%s%s", s->nulls.len ? ", " : "", l->label) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		(void)any;
	}
	return 0;
}

/* End labels moved apart (at least gap) in the order of their values. */
static void
spread(double *y, const size_t *order, size_t n, double gap, double top, double bottom)
{
	for (size_t i = 1; i < n; i++)
		if (y[order[i]] < y[order[i - 1]] + gap)
			y[order[i]] = y[order[i - 1]] + gap;
	if (n > 0 && y[order[n - 1]] > bottom) {
		y[order[n - 1]] = bottom;
		for (size_t i = n - 1; i > 0; i--)
			if (y[order[i - 1]] > y[order[i]] - gap)
				y[order[i - 1]] = y[order[i]] - gap;
	}
	(void)top;
}

/* The geometry of the plot area: the value axis and the penalty axis. */
struct sgeo {
	struct chart_area a;
	double x0, x1; /* the penalties at the ends */
};

static double
sx(const struct sgeo *g, double v)
{
	return g->a.x0 + 6 + (v - g->x0) / (g->x1 - g->x0) * (g->a.x1 - g->a.x0 - 12);
}

/* The penalty axis' ticks: the rows' own penalties when there are few,
 * else nice ticks inside the rows' span. */
static int
sens_xticks(const struct sens *s, double xlo, double xhi, double *xt)
{
	double x0, x1;
	int nxt, m = 0;

	chart_ticks(xlo, xhi, 4, &x0, &x1, xt, &nxt, 16);
	for (int i = 0; i < nxt; i++)
		if (xt[i] >= xlo - 1e-9 && xt[i] <= xhi + 1e-9)
			xt[m++] = xt[i];
	if (s->nr > 8)
		return m;
	m = 0;
	for (size_t k = 0; k < s->nr; k++) {
		int dup = 0;
		for (int i = 0; i < m; i++)
			dup |= xt[i] == s->x[k];
		if (!dup)
			xt[m++] = s->x[k];
	}
	return m;
}

/* Both axes; the legend above them. */
static void
sens_axes(struct chart *ch, const struct sens *s, struct sgeo *geo)
{
	double ylo = INFINITY, yhi = -INFINITY, xlo = s->x[0], xhi = s->x[0], xt[16], yt[16];
	int nxt, nyt;
	struct svg *g = &ch->s;
	char num[32];

	for (size_t k = 0; k < s->nr; k++) {
		xlo = fmin(xlo, s->x[k]);
		xhi = fmax(xhi, s->x[k]);
	}
	for (size_t i = 0; i < s->nl; i++)
		for (size_t k = 0; k < s->nr; k++)
			if (s->l[i].has[k]) {
				ylo = fmin(ylo, s->l[i].y[k]);
				yhi = fmax(yhi, s->l[i].y[k]);
			}
	if (!isfinite(ylo)) {
		ylo = 1000;
		yhi = 2000;
	}
	chart_ticks(ylo, yhi, 6, &geo->a.lo, &geo->a.hi, yt, &nyt, 16);
	nxt = sens_xticks(s, xlo, xhi, xt);
	geo->x0 = xlo;
	geo->x1 = xhi > xlo ? xhi : xlo + 1;
	geo->a.x0 = chart_yaxis_left(yt, nyt, chart_decimals(yt[1] - yt[0]));
	geo->a.y0 = ch->y + 8;
	geo->a.y1 = geo->a.y0 + 170;
	chart_yaxis(g, &geo->a, yt, nyt, chart_decimals(yt[1] - yt[0]), "local Elo");
	svg_put(g, "<g class=\"axis x-axis\">\n");
	for (int i = 0; i < nxt; i++) {
		svg_fixed(xt[i], 2, num);
		svg_put(g, "<path d=\"M%v %vv3\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n",
		    sx(geo, xt[i]), geo->a.y1);
		chart_text(g, sx(geo, xt[i]), geo->a.y1 + 3 + SVG_FONT, "middle", SVG_FONT,
		    "tick-label", NULL, num);
	}
	chart_text(g, (geo->a.x0 + geo->a.x1) / 2, geo->a.y1 + 5 + 2 * SVG_FONT, "middle",
	    SVG_FONT, "axis-label", NULL, "assumed Black penalty (Elo)");
	svg_put(g, "</g>\n");
}

/* Line i with its markers; *endy the height of its right end (-1: none);
 * *slope its slope from its first to its last point, when it has two. */
static int
sens_line(struct svg *g, const struct sens *s, const struct sgeo *geo, size_t i, double *endy,
    double *slope)
{
	const struct line *l = &s->l[i];
	struct chart_style st = chart_style(i);
	char cond[160], num[32];
	int open = 0;
	size_t first = s->nr, last = s->nr;

	svg_attr_escape(cond, sizeof cond, l->label);
	svg_put(g, "<g class=\"sensitivity-line\" data-condition=\"%s\">\n", cond);
	svg_put(g, "<path class=\"curve-line\" d=\"");
	for (size_t k = 0; k < s->nr; k++) {
		if (!l->has[k]) {
			open = 0;
			continue;
		}
		svg_put(g, "%s%v %v", open ? "L" : "M", sx(geo, s->x[k]), chart_y(&geo->a, l->y[k]));
		open = 1;
		if (first == s->nr || s->x[k] < s->x[first])
			first = k;
		if (last == s->nr || s->x[k] > s->x[last])
			last = k;
	}
	svg_put(g, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\"%s%s%s/>\n", st.colour,
	    st.dash[0] ? " stroke-dasharray=\"" : "", st.dash, st.dash[0] ? "\"" : "");
	for (size_t k = 0; k < s->nr; k++)
		if (l->has[k]) {
			char attrs[64];
			svg_fixed(l->y[k], 2, num);
			snprintf(attrs, sizeof attrs, "data-rating=\"%s\"", num);
			chart_marker(g, st.marker, sx(geo, s->x[k]), chart_y(&geo->a, l->y[k]), 3,
			    st.colour, "point", attrs);
		}
	svg_put(g, "</g>\n");
	*endy = last < s->nr ? chart_y(&geo->a, l->y[last]) : -1;
	if (first < s->nr && last < s->nr && s->x[last] > s->x[first]) {
		*slope = (l->y[last] - l->y[first]) / (s->x[last] - s->x[first]);
		return 1;
	}
	return 0;
}

/* Labels at the right end, in the order of their heights, kept apart,
 * each with a leader to its line's end. */
static void
sens_labels(struct svg *g, const struct sens *s, const struct sgeo *geo, double *endy)
{
	size_t order[SENS_MAX_LINES], nend = 0;
	double want[SENS_MAX_LINES];

	for (size_t i = 0; i < s->nl; i++)
		if (endy[i] >= 0)
			order[nend++] = i;
	for (size_t i = 1; i < nend; i++)
		for (size_t j = i; j > 0 && endy[order[j]] < endy[order[j - 1]]; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	memcpy(want, endy, sizeof want);
	spread(endy, order, nend, SVG_FONT * 1.1, geo->a.y0, geo->a.y1 + SVG_FONT);
	for (size_t k = 0; k < nend; k++) {
		size_t i = order[k];
		svg_put(g, "<path class=\"leader\" d=\"M%v %vL%v %v\" stroke=\"#808080\" "
		    "stroke-width=\"0.5\" fill=\"none\"/>\n", geo->a.x1 - 2, want[i], geo->a.x1 + 6,
		    endy[i]);
		chart_text(g, geo->a.x1 + 8, endy[i] + SVG_FONT * 0.35, "start", SVG_FONT,
		    "line-label", chart_style(i).colour, s->l[i].label);
	}
}

static void
draw_sens(struct chart *ch, struct sens *s)
{
	struct sgeo geo = { { 46, SVG_WIDTH - 80, 0, 0, 0, 0 }, 0, 0 };
	struct chart_key keys[SENS_MAX_LINES];
	double endy[SENS_MAX_LINES], slope;
	int slope_one = 1, slopes = 0;
	char cap[2048];

	for (size_t i = 0; i < s->nl; i++)
		keys[i] = (struct chart_key){ s->l[i].label, chart_style(i), 1 };
	chart_legend(ch, keys, s->nl);
	sens_axes(ch, s, &geo);
	for (size_t i = 0; i < s->nl; i++)
		if (sens_line(&ch->s, s, &geo, i, &endy[i], &slope)) {
			slopes = 1;
			slope_one &= fabs(slope - 1) < 0.01;
		}
	sens_labels(&ch->s, s, &geo, endy);
	ch->y = geo.a.y1 + 10 + 2 * SVG_FONT;
	snprintf(cap, sizeof cap, "Each line: one condition's maximum-likelihood rating refitted "
	    "with the Black penalty held at the value on the axis (the fit's sensitivity rows).%s",
	    slopes && slope_one ? " Every line rises one Elo per Elo of penalty: the games hold "
	                          "no game that tells the colour penalty from the rating." : "");
	chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
	if (s->nulls.len) {
		snprintf(cap, sizeof cap, "No finite rating in some rows (saturated, not drawn there): "
		    "%s.", s->nulls.p);
		chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
	}
}

int
plot_sensitivity(const struct plot_doc *d, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	struct sens *s = calloc(1, sizeof *s);
	struct chart ch;
	int rc = -1;

	if (s == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (sens_read(d, s, e) == 0) {
		chart_begin(&ch, "sensitivity", "Ratings under other assumed Black penalties",
		    o->inline_html);
		draw_sens(&ch, s);
		if ((rc = chart_end(&ch, out)) < 0)
			err_set(e, ERR_NOMEM, "out of memory");
		chart_release(&ch);
	}
	buf_release(&s->nulls);
	free(s);
	return rc;
}
