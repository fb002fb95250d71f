/* chart.c: ticks, palette, markers, axes, legends and captions. */
#include "chart.h"

#include <math.h>
#include <string.h>

/* Okabe and Ito's palette without its yellow (too faint on white), darkest
 * first so that the first series stay apart in grey; each colour with a
 * marker and a dash of its own. */
static const struct chart_style styles[CHART_SERIES_STYLES] = {
	{ "#0072B2", "blue", CHART_MARK_CIRCLE, "" },
	{ "#D55E00", "vermillion", CHART_MARK_SQUARE, "6 3" },
	{ "#009E73", "bluish green", CHART_MARK_TRIANGLE, "2 2" },
	{ "#CC79A7", "reddish purple", CHART_MARK_DIAMOND, "8 3 2 3" },
	{ "#E69F00", "orange", CHART_MARK_TRIANGLE_DOWN, "1 3" },
	{ "#56B4E9", "sky blue", CHART_MARK_CROSS, "10 4" },
	{ "#000000", "black", CHART_MARK_STAR, "4 2 1 2" },
};

struct chart_style
chart_style(size_t i)
{
	return styles[i % CHART_SERIES_STYLES];
}

static double
nice(double x, int round_it)
{
	double ex = floor(log10(x)), f = x / pow(10, ex), nf;

	if (round_it)
		nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nf * pow(10, ex);
}

void
chart_ticks(double lo, double hi, int want, double *a0, double *a1, double *ticks, int *n,
    int max)
{
	double step;

	if (!(hi > lo)) {
		lo -= 1;
		hi += 1;
	}
	if (want < 2)
		want = 2;
	step = nice((hi - lo) / (want - 1), 1);
	*a0 = floor(lo / step) * step;
	*a1 = ceil(hi / step) * step;
	*n = 0;
	for (double t = *a0; t <= *a1 + step * 0.5 && *n < max; t += step)
		ticks[(*n)++] = fabs(t) < step * 1e-9 ? 0 : t;
}

int
chart_decimals(double step)
{
	int d = 0;

	if (!(step > 0))
		return 0;
	while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6)
		d++;
	return d;
}

void
chart_begin(struct chart *c, const char *kind, const char *title, int inline_html)
{
	memset(c, 0, sizeof *c);
	c->s.out = &c->body;
	c->kind = kind;
	c->title = title;
	c->inline_html = inline_html;
	c->y = 6;
	chart_paragraph(c, 6, SVG_WIDTH - 12, SVG_FONT_TITLE, "title", title);
	c->y += 4;
}

int
chart_end(struct chart *c, struct buf *out)
{
	struct svg h = { out, 0 };
	double height = ceil(c->y + 6);

	if (!c->inline_html)
		svg_put(&h, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	svg_put(&h, "<svg%s class=\"cohort-plot\" data-kind=\"%e\" viewBox=\"0 0 %V %V\" "
	    "width=\"%V\" height=\"%V\" font-family=\"sans-serif\" font-size=\"%V\">\n",
	    c->inline_html ? "" : " xmlns=\"http://www.w3.org/2000/svg\"", c->kind, SVG_WIDTH,
	    height, SVG_WIDTH, height, SVG_FONT);
	svg_put(&h, "<title>%e</title>\n", c->title);
	svg_put(&h, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%V\" height=\"%V\" "
	    "fill=\"#ffffff\"/>\n", SVG_WIDTH, height);
	if (!c->s.failed && !h.failed && buf_add(out, c->body.p, c->body.len) < 0)
		h.failed = 1;
	svg_put(&h, "</svg>\n");
	return c->s.failed || h.failed ? -1 : 0;
}

void
chart_release(struct chart *c)
{
	buf_release(&c->body);
}

void
chart_marker(struct svg *s, int kind, double x, double y, double r, const char *colour,
    const char *cls, const char *attrs)
{
	const double k = 0.8660254037844386; /* sin 60 degrees */

	switch (kind) {
	case CHART_MARK_SQUARE:
		r *= 0.9;
		svg_put(s, "<path class=\"%s\" %s d=\"M%v %vh%vv%vh%vz\" fill=\"%s\"/>\n", cls, attrs,
		    x - r, y - r, 2 * r, 2 * r, -2 * r, colour);
		break;
	case CHART_MARK_TRIANGLE:
	case CHART_MARK_TRIANGLE_DOWN: {
		double d = kind == CHART_MARK_TRIANGLE ? 1 : -1;
		r *= 1.2;
		svg_put(s, "<path class=\"%s\" %s d=\"M%v %vL%v %vL%v %vz\" fill=\"%s\"/>\n", cls,
		    attrs, x, y - d * r, x + k * r, y + d * r / 2, x - k * r, y + d * r / 2, colour);
		break;
	}
	case CHART_MARK_DIAMOND:
		r *= 1.25;
		svg_put(s, "<path class=\"%s\" %s d=\"M%v %vL%v %vL%v %vL%v %vz\" fill=\"%s\"/>\n", cls,
		    attrs, x, y - r, x + r, y, x, y + r, x - r, y, colour);
		break;
	case CHART_MARK_CROSS:
		r *= 1.1;
		svg_put(s, "<path class=\"%s\" %s d=\"M%v %vL%v %vM%v %vL%v %v\" stroke=\"%s\" "
		    "stroke-width=\"2\" fill=\"none\"/>\n", cls, attrs, x - r, y - r, x + r, y + r,
		    x - r, y + r, x + r, y - r, colour);
		break;
	case CHART_MARK_STAR: {
		/* a five-pointed star, points at radius 1.3 r and 0.55 r */
		static const double px[10] = { 0, 0.323, 1.236, 0.523, 0.764, 0, -0.764, -0.523,
			-1.236, -0.323 };
		static const double py[10] = { -1.3, -0.445, -0.402, 0.170, 1.052, 0.55, 1.052,
			0.170, -0.402, -0.445 };
		svg_put(s, "<path class=\"%s\" %s d=\"", cls, attrs);
		for (int i = 0; i < 10; i++)
			svg_put(s, "%s%v %v", i ? "L" : "M", x + px[i] * r, y + py[i] * r);
		svg_put(s, "z\" fill=\"%s\"/>\n", colour);
		break;
	}
	case CHART_MARK_RING:
		svg_put(s, "<circle class=\"%s\" %s cx=\"%v\" cy=\"%v\" r=\"%v\" fill=\"#ffffff\" "
		    "stroke=\"%s\" stroke-width=\"1.5\"/>\n", cls, attrs, x, y, r, colour);
		break;
	default:
		svg_put(s, "<circle class=\"%s\" %s cx=\"%v\" cy=\"%v\" r=\"%v\" fill=\"%s\"/>\n", cls,
		    attrs, x, y, r, colour);
		break;
	}
}

void
chart_text(struct svg *s, double x, double y, const char *anchor, double size, const char *cls,
    const char *fill, const char *text)
{
	svg_put(s, "<text class=\"%s\" x=\"%v\" y=\"%v\"", cls, x, y);
	if (strcmp(anchor, "start") != 0)
		svg_put(s, " text-anchor=\"%s\"", anchor);
	if (size != SVG_FONT)
		svg_put(s, " font-size=\"%v\"", size);
	if (fill != NULL)
		svg_put(s, " fill=\"%s\"", fill);
	svg_put(s, ">%e</text>\n", text);
}

struct para {
	struct chart *c;
	double x, size;
	const char *cls;
};

static void
para_line(void *ctx, const char *start, size_t len)
{
	struct para *p = ctx;
	char line[1024];

	if (len >= sizeof line)
		len = sizeof line - 1;
	memcpy(line, start, len);
	line[len] = '\0';
	p->c->y += p->size * 1.15;
	chart_text(&p->c->s, p->x, p->c->y, "start", p->size, p->cls, NULL, line);
	p->c->y += p->size * 0.2;
}

void
chart_paragraph(struct chart *c, double x, double width, double size, const char *cls,
    const char *text)
{
	struct para p = { c, x, size, cls };

	svg_wrap(text, size, width, para_line, &p);
}

void
chart_legend(struct chart *c, const struct chart_key *keys, size_t n)
{
	const double sample = 22, gap = 12, left = 6, right = SVG_WIDTH - 6;
	double x = left, row = SVG_FONT * 1.5;

	if (n == 0)
		return;
	c->y += 2;
	svg_put(&c->s, "<g class=\"legend\">\n");
	for (size_t i = 0; i < n; i++) {
		double w = sample + 4 + svg_text_width(keys[i].label, SVG_FONT);
		double mid = c->y + row / 2;
		if (x > left && x + w > right) {
			x = left;
			c->y += row;
			mid = c->y + row / 2;
		}
		if (keys[i].line)
			svg_put(&c->s, "<path d=\"M%v %vh%v\" stroke=\"%s\" stroke-width=\"1.5\" "
			    "fill=\"none\"%s%s%s/>\n", x, mid, sample, keys[i].style.colour,
			    keys[i].style.dash[0] ? " stroke-dasharray=\"" : "", keys[i].style.dash,
			    keys[i].style.dash[0] ? "\"" : "");
		chart_marker(&c->s, keys[i].style.marker, x + sample / 2, mid, 3.5,
		    keys[i].style.colour, "key", "");
		chart_text(&c->s, x + sample + 4, mid + SVG_FONT * 0.35, "start", SVG_FONT, "key-label",
		    NULL, keys[i].label);
		x += w + gap;
	}
	svg_put(&c->s, "</g>\n");
	c->y += row;
}

double
chart_y(const struct chart_area *a, double v)
{
	return a->y1 - (v - a->lo) / (a->hi - a->lo) * (a->y1 - a->y0);
}

double
chart_yaxis_left(const double *ticks, int n, int decimals)
{
	double w = 0;
	char num[32];

	for (int i = 0; i < n; i++) {
		svg_fixed(ticks[i], decimals, num);
		if (svg_text_width(num, SVG_FONT) > w)
			w = svg_text_width(num, SVG_FONT);
	}
	return ceil(4 + SVG_FONT * 1.4 + w + 4);
}

void
chart_yaxis(struct svg *s, const struct chart_area *a, const double *ticks, int n, int decimals,
    const char *label)
{
	char num[32];

	svg_put(s, "<g class=\"axis y-axis\">\n");
	for (int i = 0; i < n; i++) {
		double y = chart_y(a, ticks[i]);
		svg_fixed(ticks[i], decimals, num);
		svg_put(s, "<path class=\"grid\" d=\"M%v %vH%v\" stroke=\"#d9d9d9\" "
		    "stroke-width=\"0.5\"/>\n", a->x0, y, a->x1);
		chart_text(s, a->x0 - 3, y + SVG_FONT * 0.35, "end", SVG_FONT, "tick-label", NULL, num);
	}
	svg_put(s, "<path class=\"axis-line\" d=\"M%v %vV%vH%v\" stroke=\"#000000\" "
	    "stroke-width=\"0.8\" fill=\"none\"/>\n", a->x0, a->y0, a->y1, a->x1);
	svg_put(s, "<text class=\"axis-label\" transform=\"translate(%v %v) rotate(-90)\" "
	    "text-anchor=\"middle\">%e</text>\n", 4 + SVG_FONT * 0.8, (a->y0 + a->y1) / 2, label);
	svg_put(s, "</g>\n");
}
