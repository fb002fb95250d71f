/* svg.h: the one SVG writer of the plots: elements appended to a byte
 * buffer with every number printed by our own fixed-point formatter (never
 * printf's %f, never the locale), text escaped for XML, and a conservative
 * estimate of how wide a line of text is.
 *
 * Ownership: a struct svg borrows its buffer; nothing else is allocated.
 * An allocation failure sets s->failed and every later call does nothing;
 * the caller checks it once at the end.
 */
#ifndef COHORT_SVG_H
#define COHORT_SVG_H

#include <stddef.h>

#include "../common/buf.h"

/* The canvas every plot is laid out on: a journal column is about 3.5 in,
 * and 340 user units across it make 11 units about 8 pt. */
#define SVG_WIDTH 340.0
#define SVG_FONT 11.0       /* every text but the title */
#define SVG_FONT_TITLE 12.0 /* the title */

struct svg {
	struct buf *out; /* where the elements go */
	int failed;      /* an allocation failed */
};

/* x with at most decimals (0 to 6) digits after the point, rounded half
 * away from zero, trailing zeros and a bare point dropped, never "-0".
 * |x| is clamped to 1e12 and a value that is not finite prints as 0. */
void svg_fixed(double x, int decimals, char out[32]);

/* The same with exactly decimals digits after the point, trailing zeros
 * kept ("1.00"): numbers a reader reads, where the precision is stated. */
void svg_decimal(double x, int decimals, char out[32]);

/* Append fmt with these conversions (nothing else of printf's):
 *   %v  a double with 2 decimals (svg_fixed)
 *   %V  a double with 0 decimals
 *   %d  an int
 *   %s  a string as it is (markup the caller made)
 *   %e  a string escaped for XML text and attributes (& < > " ')
 *   %%  a percent sign */
void svg_put(struct svg *s, const char *fmt, ...);

/* Append s escaped for XML. */
void svg_escape(struct svg *s, const char *text);

/* s escaped for XML into out (n bytes with the NUL), cut at a whole
 * character when it does not fit. */
void svg_attr_escape(char *out, size_t n, const char *s);

/* The width of text (UTF-8) at font size size in a generic sans-serif
 * face, estimated from above: each character takes the larger of its
 * advance in the two faces Debian's fontconfig picks for sans-serif
 * (Liberation Sans, DejaVu Sans); characters outside the table take a
 * whole em. */
double svg_text_width(const char *text, double size);

/* Break text into lines no wider than width at size, at spaces (a word
 * wider than a line stands alone); calls line(ctx, start, length) for each. */
void svg_wrap(const char *text, double size, double width,
    void (*line)(void *ctx, const char *start, size_t len), void *ctx);

#endif
