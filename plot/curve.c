/* curve.c: the candidate curve: local Elo against candidate width, one
 * series per (fit document, family), profile intervals as error bars,
 * saturated conditions as arrows from their exact bound, W-D-L and games
 * under each width. */
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "chart.h"
#include "read.h"

#define CURVE_MAX_SERIES 32
#define CURVE_MAX_DOCS 32
#define CURVE_MAX_WIDTHS 32
#define CURVE_ARROW 26.0 /* an arrow's length in canvas units */

struct point {
	const char *condition;
	int width;
	int status;              /* 0 finite, 1 all wins, 2 all losses, 3 no games */
	double rating;
	double iv[2];
	int has_iv[2];
	double bound;            /* the exact one-sided bound, when saturated */
	long long w, d, l, games;
};

struct series {
	char label[160];
	const char *family;      /* NULL: the document names none */
	size_t doc;
	struct point pt[CURVE_MAX_WIDTHS];
	size_t n;
};

struct curve {
	struct series s[CURVE_MAX_SERIES];
	size_t ns;
	int widths[CURVE_MAX_WIDTHS]; /* every width drawn, ascending */
	size_t nw;
	struct buf omitted;       /* conditions without a width, "a, b" */
	struct buf penalty;       /* the caption's Black penalty phrase */
	char phrase[CURVE_MAX_DOCS][256]; /* each fit's */
	size_t ndocs;
	double level;
};

static const char *const status_names[4] = { "finite", "all_wins", "all_losses", "no_games" };

/* The series of (document doc, family fam), made when first met. */
static struct series *
series_of(struct curve *c, size_t doc, const char *fam, const char *docname, struct err *e)
{
	struct series *s;

	for (size_t i = 0; i < c->ns; i++)
		if (c->s[i].doc == doc &&
		    ((fam == NULL && c->s[i].family == NULL) ||
			(fam && c->s[i].family && strcmp(fam, c->s[i].family) == 0)))
			return &c->s[i];
	if (c->ns == CURVE_MAX_SERIES) {
		err_set(e, ERR_INPUT, "%s: more than %d series (document and family) to draw", docname,
		    CURVE_MAX_SERIES);
		return NULL;
	}
	s = &c->s[c->ns++];
	memset(s, 0, sizeof *s);
	s->family = fam;
	s->doc = doc;
	return s;
}

static int
add_width(struct curve *c, int w, const char *name, struct err *e)
{
	size_t i;

	for (i = 0; i < c->nw && c->widths[i] < w; i++)
		;
	if (i < c->nw && c->widths[i] == w)
		return 0;
	if (c->nw == CURVE_MAX_WIDTHS)
		return err_set(e, ERR_INPUT, "%s: more than %d candidate widths to draw", name,
		    CURVE_MAX_WIDTHS);
	memmove(c->widths + i + 1, c->widths + i, (c->nw - i) * sizeof c->widths[0]);
	c->widths[i] = w;
	c->nw++;
	return 0;
}

static int
read_point(const struct plot_doc *d, const cJSON *it, const char *where, struct point *p,
    const char **fam, struct err *e)
{
	const char *st;
	int has;
	const cJSON *b;

	memset(p, 0, sizeof *p);
	if (plot_read_string(d, it, where, "condition", 0, &p->condition, e) < 0 ||
	    plot_read_string(d, it, where, "family", 1, fam, e) < 0 ||
	    plot_read_string(d, it, where, "status", 0, &st, e) < 0 ||
	    plot_read_count(d, it, where, "w", &p->w, e) < 0 ||
	    plot_read_count(d, it, where, "d", &p->d, e) < 0 ||
	    plot_read_count(d, it, where, "l", &p->l, e) < 0 ||
	    plot_read_count(d, it, where, "games", &p->games, e) < 0 ||
	    plot_read_interval(d, it, where, "interval", p->iv, p->has_iv, e) < 0)
		return -1;
	for (p->status = 0; p->status < 4 && strcmp(st, status_names[p->status]) != 0; p->status++)
		;
	if (p->status == 4)
		return err_set(e, ERR_INPUT,
		    "%s: %s \"status\": expected finite, all_wins, all_losses or no_games, got %s",
		    d->name, where, st);
	p->width = plot_width(p->condition);
	if (p->status == 0)
		return plot_read_number(d, it, where, "rating", 0, &p->rating, NULL, e);
	if (p->status == 3)
		return 0;
	/* saturated: the exact one-sided bound, on the side the status says */
	b = json_get(it, "bound");
	if (!cJSON_IsObject(b) ||
	    plot_read_string(d, b, where, "side", 0, &st, e) < 0 ||
	    plot_read_number(d, b, where, "value", 1, &p->bound, &has, e) < 0)
		return cJSON_IsObject(b) ? -1 :
		    err_set(e, ERR_INPUT, "%s: %s \"bound\": expected {side, value} for status %s",
			d->name, where, status_names[p->status]);
	if (strcmp(st, p->status == 1 ? "lower" : "upper") != 0 || !has)
		return err_set(e, ERR_INPUT, "%s: %s \"bound\": expected a %s bound with a value for "
		    "status %s", d->name, where, p->status == 1 ? "lower" : "upper",
		    status_names[p->status]);
	return 0;
}

/* The caption's phrase for one fit's colour penalty and estimator. */
static int
penalty_phrase(const struct plot_doc *d, char *out, size_t n, double *level, struct err *e)
{
	const cJSON *bp = json_get(d->doc, "black_penalty"), *opt = json_get(d->doc, "options");
	const cJSON *est = json_get(d->doc, "estimator"), *draw = json_get(d->doc, "draw");
	double v, nu = 0, iv[2];
	int has[2], hasnu = 0;
	char a[32], b[32], c[32], x[32];
	const cJSON *ed;

	if (!cJSON_IsObject(bp))
		return err_set(e, ERR_INPUT, "%s: \"black_penalty\": expected an object", d->name);
	if (plot_read_number(d, bp, "black_penalty", "value", 0, &v, NULL, e) < 0 ||
	    plot_read_interval(d, bp, "black_penalty", "interval", iv, has, e) < 0)
		return -1;
	ed = json_get(bp, "estimated");
	if (cJSON_IsObject(opt) && plot_read_number(d, opt, "options", "level", 0, level, NULL, e) < 0)
		return -1;
	if (cJSON_IsObject(draw) && plot_read_number(d, draw, "draw", "nu", 1, &nu, &hasnu, e) < 0)
		return -1;
	svg_fixed(v, 0, a);
	svg_decimal(nu, 2, x);
	if (cJSON_IsTrue(ed) && has[0] && has[1]) {
		svg_fixed(iv[0], 0, b);
		svg_fixed(iv[1], 0, c);
		snprintf(out, n, "Black penalty estimated: %s Elo [%s, %s]; estimator %s%s%s", a, b, c,
		    cJSON_IsString(est) ? est->valuestring : "unnamed", hasnu ? ", \xce\xbd = " : "",
		    hasnu ? x : "");
	} else {
		snprintf(out, n, "Black penalty assumed: %s Elo; estimator %s%s%s", a,
		    cJSON_IsString(est) ? est->valuestring : "unnamed", hasnu ? ", \xce\xbd = " : "",
		    hasnu ? x : "");
	}
	return 0;
}

static int
curve_read(struct curve *c, const struct plot_doc *docs, size_t n, struct err *e)
{
	c->level = 0.95;
	c->ndocs = n;
	for (size_t i = 0; i < n; i++) {
		const struct plot_doc *d = &docs[i];
		const cJSON *conds, *it;
		size_t k = 0;

		if (plot_read_kind(d, "cohort.fit/1", e) < 0 ||
		    plot_read_array(d, NULL, "", "conditions", &conds, e) < 0 ||
		    penalty_phrase(d, c->phrase[i], sizeof c->phrase[i], &c->level, e) < 0)
			return -1;
		cJSON_ArrayForEach(it, conds) {
			char where[48];
			struct point p;
			const char *fam;
			struct series *s;

			snprintf(where, sizeof where, "conditions[%zu]", k++);
			if (read_point(d, it, where, &p, &fam, e) < 0)
				return -1;
			if (p.width < 0) {
				if (buf_printf(&c->omitted, "%s%s%s%s", c->omitted.len ? ", " : "",
					fam ? fam : "", fam ? " " : "", p.condition) < 0)
					return err_set(e, ERR_NOMEM, "out of memory");
				continue;
			}
			if ((s = series_of(c, i, fam, d->name, e)) == NULL)
				return -1;
			for (size_t j = 0; j < s->n; j++)
				if (s->pt[j].width == p.width)
					return err_set(e, ERR_INPUT, "%s: %s: conditions %s and %s give "
					    "the same candidate width %d", d->name, where,
					    s->pt[j].condition, p.condition, p.width);
			if (s->n == CURVE_MAX_WIDTHS || add_width(c, p.width, d->name, e) < 0)
				return s->n == CURVE_MAX_WIDTHS ?
				    err_set(e, ERR_INPUT, "%s: more than %d widths in one series",
					d->name, CURVE_MAX_WIDTHS) : -1;
			s->pt[s->n++] = p;
		}
	}
	if (c->ns == 0)
		return err_set(e, ERR_INPUT, "%s: no condition with a candidate width (none or "
		    "top<k>) to draw", docs[0].name);
	return 0;
}

/* The caption's penalty and estimator: once when every fit says the same,
 * else each fit's, named by its series. */
static int
curve_penalty(struct curve *c, const struct plot_doc *docs)
{
	int same = 1;

	for (size_t i = 1; i < c->ndocs; i++)
		same &= strcmp(c->phrase[i], c->phrase[0]) == 0;
	if (same)
		return buf_adds(&c->penalty, c->phrase[0]);
	for (size_t i = 0; i < c->ndocs; i++) {
		int named = 0;
		if (buf_adds(&c->penalty, i ? "; " : "") < 0)
			return -1;
		for (size_t j = 0; j < c->ns; j++)
			if (c->s[j].doc == i) {
				if (buf_printf(&c->penalty, "%s%s", named ? ", " : "", c->s[j].label) < 0)
					return -1;
				named = 1;
			}
		if (!named && buf_adds(&c->penalty, docs[i].label) < 0)
			return -1;
		if (buf_printf(&c->penalty, ": %s", c->phrase[i]) < 0)
			return -1;
	}
	return 0;
}

/* Series labels: the family, or the document's name; a family met in two
 * documents takes the document's name too. */
static void
curve_labels(struct curve *c, const struct plot_doc *docs)
{
	for (size_t i = 0; i < c->ns; i++) {
		struct series *s = &c->s[i];
		int twice = 0;
		for (size_t j = 0; j < c->ns; j++)
			twice |= j != i && s->family && c->s[j].family &&
			    strcmp(s->family, c->s[j].family) == 0;
		if (s->family && !twice)
			snprintf(s->label, sizeof s->label, "%s", s->family);
		else if (s->family)
			snprintf(s->label, sizeof s->label, "%s (%s)", s->family, docs[s->doc].label);
		else
			snprintf(s->label, sizeof s->label, "%s", docs[s->doc].label);
	}
}

static size_t
width_index(const struct curve *c, int w)
{
	size_t i = 0;

	while (i < c->nw && c->widths[i] != w)
		i++;
	return i;
}

/* The value axis: every rating, interval end and bound, and room for
 * each arrow on its open side. */
static void
curve_range(const struct curve *c, double *lo, double *hi)
{
	int any = 0, up = 0, down = 0;

	*lo = *hi = 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t j = 0; j < c->s[i].n; j++) {
			const struct point *p = &c->s[i].pt[j];
			double v[4];
			int m = 0;
			if (p->status == 0)
				v[m++] = p->rating;
			if (p->status == 1 || p->status == 2)
				v[m++] = p->bound;
			for (int k = 0; k < 2; k++)
				if (p->has_iv[k] && p->status == 0)
					v[m++] = p->iv[k];
			up |= p->status == 1;
			down |= p->status == 2;
			for (int k = 0; k < m; k++) {
				if (!any || v[k] < *lo)
					*lo = v[k];
				if (!any || v[k] > *hi)
					*hi = v[k];
				any = 1;
			}
		}
	if (!any) {
		*lo = 1000;
		*hi = 2000;
	}
	if (*hi - *lo < 200) {
		double mid = (*lo + *hi) / 2;
		*lo = mid - 100;
		*hi = mid + 100;
	}
	/* an arrow is about a sixth of the plot's height */
	if (up)
		*hi += (*hi - *lo) * 0.2;
	if (down)
		*lo -= (*hi - *lo) * 0.2;
}

static void
attrs_of(char *out, size_t n, const struct series *s, const struct point *p)
{
	char fam[160], esc[140];

	fam[0] = '\0';
	if (s->family) {
		svg_attr_escape(esc, sizeof esc, s->family);
		snprintf(fam, sizeof fam, " data-family=\"%s\"", esc);
	}
	snprintf(out, n, "data-condition=\"%s\" data-width=\"%d\"%s", p->condition, p->width, fam);
}

static void
draw_point(struct svg *g, const struct chart_area *a, const struct series *s,
    const struct point *p, double x, int left, struct chart_style st)
{
	char attrs[320], num[32], text[48];

	attrs_of(attrs, sizeof attrs, s, p);
	if (p->status == 0) {
		double ylo = chart_y(a, p->has_iv[0] ? p->iv[0] : p->rating);
		double yhi = chart_y(a, p->has_iv[1] ? p->iv[1] : p->rating);
		svg_fixed(p->rating, 2, num);
		svg_put(g, "<g class=\"interval\" %s>", attrs);
		svg_put(g, "<path d=\"M%v %vV%vM%v %vh%vM%v %vh%v\" stroke=\"%s\" stroke-width=\"1.2\" "
		    "fill=\"none\"/></g>\n", x, ylo, yhi, x - 3, ylo, 6.0, x - 3, yhi, 6.0, st.colour);
		svg_put(g, "<g class=\"point\" %s data-rating=\"%s\">", attrs, num);
		chart_marker(g, st.marker, x, chart_y(a, p->rating), 3.5, st.colour, "mark", "");
		svg_put(g, "</g>\n");
	} else if (p->status == 1 || p->status == 2) {
		double y0 = chart_y(a, p->bound), dir = p->status == 1 ? -1 : 1;
		double y1 = y0 + dir * CURVE_ARROW;
		svg_fixed(p->bound, 2, num);
		svg_put(g, "<g class=\"bound-arrow\" %s data-side=\"%s\" data-value=\"%s\">", attrs,
		    p->status == 1 ? "lower" : "upper", num);
		svg_put(g, "<path d=\"M%v %vh%vM%v %vV%v\" stroke=\"%s\" stroke-width=\"1.5\" "
		    "fill=\"none\"/>", x - 5, y0, 10.0, x, y0, y1 - dir * 2, st.colour);
		svg_put(g, "<path d=\"M%v %vL%v %vL%v %vz\" fill=\"%s\"/>", x, y1, x - 4,
		    y1 - dir * 7, x + 4, y1 - dir * 7, st.colour);
		svg_fixed(p->bound, 0, num);
		snprintf(text, sizeof text, "%s%s", p->status == 1 ? "\xe2\x89\xa5" : "\xe2\x89\xa4",
		    num);
		/* the value beside the arrow, on the side away from the other series
		 * at this width, over a white halo so that no line crosses it */
		svg_put(g, "<text class=\"bound-label\" x=\"%v\" y=\"%v\"%s fill=\"%s\" "
		    "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">%e</text>",
		    left ? x - 6 : x + 6, (y0 + y1) / 2 + SVG_FONT * 0.35,
		    left ? " text-anchor=\"end\"" : "", st.colour, text);
		svg_put(g, "</g>\n");
	}
}

/* Lines between neighbouring finite points of a series; a saturated or
 * empty condition breaks the line, so no line leads to an invented value. */
static void
draw_lines(struct svg *g, const struct chart_area *a, const struct curve *c,
    const struct series *s, const double *xs, struct chart_style st)
{
	int open = 0;

	svg_put(g, "<path class=\"curve-line\" d=\"");
	for (size_t wi = 0; wi < c->nw; wi++) {
		const struct point *p = NULL;
		for (size_t j = 0; j < s->n; j++)
			if (s->pt[j].width == c->widths[wi])
				p = &s->pt[j];
		if (p == NULL)
			continue; /* a width this series did not play: step over it */
		if (p->status != 0) {
			open = 0;
			continue;
		}
		svg_put(g, "%s%v %v", open ? "L" : "M", xs[wi], chart_y(a, p->rating));
		open = 1;
	}
	svg_put(g, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\"%s%s%s/>\n", st.colour,
	    st.dash[0] ? " stroke-dasharray=\"" : "", st.dash, st.dash[0] ? "\"" : "");
}

/* The x axis: a tick and its label at each width's band centre, kept in
 * xs. */
static void
curve_xaxis(struct svg *g, const struct chart_area *a, const struct curve *c, double band,
    double *xs)
{
	char num[32];

	svg_put(g, "<g class=\"axis x-axis\">\n");
	for (size_t wi = 0; wi < c->nw; wi++) {
		xs[wi] = a->x0 + band * ((double)wi + 0.5);
		svg_fixed(c->widths[wi], 0, num);
		svg_put(g, "<path d=\"M%v %vv3\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n", xs[wi],
		    a->y1);
		chart_text(g, xs[wi], a->y1 + 3 + SVG_FONT, "middle", SVG_FONT, "tick-label", NULL,
		    num);
	}
	chart_text(g, (a->x0 + a->x1) / 2, a->y1 + 5 + 2 * SVG_FONT, "middle", SVG_FONT,
	    "axis-label", NULL, "candidate width k (none = 0, top k = k)");
	svg_put(g, "</g>\n");
}

/* W-D-L and games under each width, a pair of rows per series */
static void
draw_counts(struct chart *ch, const struct chart_area *a, const struct curve *c,
    const double *xs)
{
	struct svg *g = &ch->s;

	svg_put(g, "<g class=\"counts\">\n");
	for (size_t i = 0; i < c->ns; i++) {
		const struct series *s = &c->s[i];
		double y1 = ch->y + SVG_FONT * 1.2, y2 = y1 + SVG_FONT * 1.15;
		chart_text(g, a->x0 - 3, y1, "end", SVG_FONT, "row-label", NULL, "W-D-L");
		chart_text(g, a->x0 - 3, y2, "end", SVG_FONT, "row-label", NULL, "games");
		if (c->ns > 1)
			chart_marker(g, chart_style(i).marker, 5, (y1 + y2) / 2 - SVG_FONT * 0.35, 3,
			    chart_style(i).colour, "key", "");
		for (size_t j = 0; j < s->n; j++) {
			const struct point *p = &s->pt[j];
			char wdl[96], gm[32], attrs[320];
			double x = xs[width_index(c, p->width)];
			attrs_of(attrs, sizeof attrs, s, p);
			snprintf(wdl, sizeof wdl, "%lld-%lld-%lld", p->w, p->d, p->l);
			snprintf(gm, sizeof gm, "%lld", p->games);
			svg_put(g, "<g class=\"wdl\" %s>", attrs);
			chart_text(g, x, y1, "middle", SVG_FONT, "wdl-text", NULL, wdl);
			chart_text(g, x, y2, "middle", SVG_FONT, "games-text", NULL, gm);
			svg_put(g, "</g>\n");
		}
		ch->y = y2 + SVG_FONT * 0.3;
	}
	svg_put(g, "</g>\n");
}

static void
draw_curve(struct chart *ch, const struct curve *c)
{
	struct chart_area a = { 46, SVG_WIDTH - 8, 0, 0, 0, 0 };
	struct chart_key keys[CURVE_MAX_SERIES];
	double ticks[16], lo, hi, band, xs[CURVE_MAX_WIDTHS], dodge;
	int nt;
	char num[32], cap[1024];
	struct svg *g = &ch->s;

	for (size_t i = 0; i < c->ns; i++)
		keys[i] = (struct chart_key){ c->s[i].label, chart_style(i), 1 };
	chart_legend(ch, keys, c->ns);
	curve_range(c, &lo, &hi);
	chart_ticks(lo, hi, 6, &a.lo, &a.hi, ticks, &nt, 16);
	a.x0 = fmax(chart_yaxis_left(ticks, nt, chart_decimals(ticks[1] - ticks[0])),
	    c->ns > 1 ? 54 : 46);
	a.y0 = ch->y + 8;
	a.y1 = a.y0 + 170;
	chart_yaxis(g, &a, ticks, nt, chart_decimals(ticks[1] - ticks[0]), "local Elo");
	band = (a.x1 - a.x0) / (double)c->nw;
	dodge = c->ns > 1 ? fmin(9.0, band / (double)(c->ns + 1)) : 0;
	curve_xaxis(g, &a, c, band, xs);
	for (size_t i = 0; i < c->ns; i++) {
		const struct series *s = &c->s[i];
		double off = ((double)i - (double)(c->ns - 1) / 2) * dodge, x[CURVE_MAX_WIDTHS];
		svg_put(g, "<g class=\"series\" data-series=\"%e\">\n", s->label);
		for (size_t wi = 0; wi < c->nw; wi++)
			x[wi] = xs[wi] + off;
		draw_lines(g, &a, c, s, x, chart_style(i));
		for (size_t j = 0; j < s->n; j++)
			draw_point(g, &a, s, &s->pt[j], x[width_index(c, s->pt[j].width)], off < 0,
			    chart_style(i));
		svg_put(g, "</g>\n");
	}
	ch->y = a.y1 + 8 + 2 * SVG_FONT;
	draw_counts(ch, &a, c, xs);
	ch->y += 4;
	svg_fixed(c->level * 100, 2, num);
	snprintf(cap, sizeof cap,
	    "Points: maximum-likelihood local Elo of each condition (joint Davidson W-D-L fit, "
	    "Stockfish anchors fixed); bars: %s%% profile-likelihood intervals. Arrows: a "
	    "saturated condition (all wins, all losses) has no finite estimate: the arrow starts "
	    "at its exact one-sided bound and points to the open side. %s.", num, c->penalty.p);
	chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
	if (c->omitted.len) {
		snprintf(cap, sizeof cap, "Not drawn (no candidate width): %s.", c->omitted.p);
		chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption", cap);
	}
}

int
plot_curve(const struct plot_doc *docs, size_t n, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	struct curve *c = calloc(1, sizeof *c);
	struct chart ch;
	char title[256];
	int rc = -1;

	if (c == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (n > CURVE_MAX_DOCS) {
		err_set(e, ERR_USAGE, "plot curve draws at most %d fits", CURVE_MAX_DOCS);
		goto done;
	}
	if (curve_read(c, docs, n, e) < 0)
		goto done;
	curve_labels(c, docs);
	if (curve_penalty(c, docs) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (c->ns == 1)
		snprintf(title, sizeof title, "%s: local Elo against candidate width", c->s[0].label);
	else
		snprintf(title, sizeof title, "Local Elo against candidate width");
	chart_begin(&ch, "curve", title, o->inline_html);
	draw_curve(&ch, c);
	rc = chart_end(&ch, out);
	chart_release(&ch);
	if (rc < 0)
		err_set(e, ERR_NOMEM, "out of memory");
done:
	buf_release(&c->omitted);
	buf_release(&c->penalty);
	free(c);
	return rc;
}
