/* chart.h: what every plot shares: nice ticks, the palette (Okabe-Ito
 * colours, each series also with its own marker shape and dash pattern, so
 * that a grey-scale print or a reader who cannot tell the colours apart
 * still can tell the series), markers, axes, the legend and the caption.
 *
 * A chart is drawn top down: chart_begin writes the title, each part
 * advances chart.y, and chart_end closes the picture at the height reached.
 * The SVG header is written last, into the front of the buffer, because
 * the height is only known then.
 *
 * Ownership: a struct chart borrows its buffer; chart_release frees what
 * it holds of its own.
 */
#ifndef COHORT_CHART_H
#define COHORT_CHART_H

#include <stddef.h>

#include "../common/buf.h"
#include "svg.h"

#define CHART_SERIES_STYLES 7 /* distinct colour, marker and dash triples */

/* One series' look: the i-th of CHART_SERIES_STYLES, repeating after it. */
struct chart_style {
	const char *colour; /* "#0072B2" */
	const char *name;   /* the colour's name in Okabe and Ito's palette */
	int marker;         /* CHART_MARK_* */
	const char *dash;   /* a stroke-dasharray, or "" for solid */
};

enum {
	CHART_MARK_CIRCLE,
	CHART_MARK_SQUARE,
	CHART_MARK_TRIANGLE,
	CHART_MARK_DIAMOND,
	CHART_MARK_TRIANGLE_DOWN,
	CHART_MARK_CROSS,
	CHART_MARK_STAR,
	CHART_MARK_RING, /* a hollow circle */
};

struct chart_style chart_style(size_t i);

/* Nice ticks for [lo, hi] (Heckbert's nice numbers: steps of 1, 2 or 5
 * times a power of ten), about want of them.  The axis runs from *a0 to
 * *a1, whole steps that hold [lo, hi]; ticks[0..*n) lie on it (at most
 * max).  lo == hi is widened by one unit each way. */
void chart_ticks(double lo, double hi, int want, double *a0, double *a1, double *ticks, int *n,
    int max);
/* The decimals a tick step needs (0 for 1, 10, 500; 1 for 0.5; ...). */
int chart_decimals(double step);

struct chart {
	struct svg s;        /* the body, written as the chart grows */
	struct buf body;     /* its bytes */
	double y;            /* the height reached so far */
	const char *kind;    /* "curve", ... (the root's data-kind) */
	const char *title;   /* the <title> and the heading */
	int inline_html;     /* no XML declaration or namespace: for an HTML page */
};

/* Start a chart: the white background and the title line. */
void chart_begin(struct chart *c, const char *kind, const char *title, int inline_html);
/* Write the whole picture (header, body, end) to out; 0, or -1 when out of
 * memory (anywhere along the way). */
int chart_end(struct chart *c, struct buf *out);
void chart_release(struct chart *c);

/* A marker of shape kind centred at (x, y), radius r; cls and attrs (raw
 * markup such as data-condition="top2", or "") go on the element. */
void chart_marker(struct svg *s, int kind, double x, double y, double r, const char *colour,
    const char *cls, const char *attrs);

/* A line of text at (x, y) (its baseline), anchored start, middle or end,
 * with a class. */
void chart_text(struct svg *s, double x, double y, const char *anchor, double size,
    const char *cls, const char *fill, const char *text);

/* A wrapped paragraph from x, width wide, starting at c->y; c->y goes below it. */
void chart_paragraph(struct chart *c, double x, double width, double size, const char *cls,
    const char *text);

/* A legend entry's sample: a short line in the series' dash with its marker. */
struct chart_key {
	const char *label;
	struct chart_style style;
	int line; /* draw the line sample too */
};

/* The legend: entries laid out in rows across the canvas from c->y. */
void chart_legend(struct chart *c, const struct chart_key *keys, size_t n);

/* A plot area's frame in canvas units. */
struct chart_area {
	double x0, x1;    /* left and right */
	double y0, y1;    /* top and bottom */
	double lo, hi;    /* the value axis' ends (lo at the bottom) */
};

/* The y position of value v in area a. */
double chart_y(const struct chart_area *a, double v);

/* The left edge of a plot area whose value axis has these tick labels:
 * room for the rotated axis label and the widest tick label. */
double chart_yaxis_left(const double *ticks, int n, int decimals);

/* A vertical value axis on the left of a: grid lines and labels at ticks
 * (decimals each), the label rotated beside them. */
void chart_yaxis(struct svg *s, const struct chart_area *a, const double *ticks, int n,
    int decimals, const char *label);

#endif
