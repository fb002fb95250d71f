/* svg.c: the SVG writer: fixed-point numbers, escaped text, text widths. */
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Advance widths in thousandths of an em of the printable ASCII
 * characters (from U+0020), the larger of Liberation Sans' and DejaVu
 * Sans', as Chromium measured them. */
static const unsigned short ascii_width[95] = {
	318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838,
	318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636,
	636, 636, 337, 337, 838, 838, 838, 556, 1015, 684, 686, 722,
	770, 667, 611, 778, 752, 295, 500, 667, 557, 863, 748, 787,
	667, 787, 722, 667, 611, 732, 684, 989, 685, 667, 685, 390,
	337, 390, 838, 556, 500, 613, 635, 550, 635, 615, 352, 635,
	634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521,
	392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
};

/* The same for the few other characters the plots write. */
static const struct {
	unsigned cp;
	unsigned short w;
} other_width[] = {
	{ 0x00B1, 838 }, { 0x00B7, 318 }, { 0x00D7, 838 }, { 0x2013, 556 },
	{ 0x2014, 1000 }, { 0x2026, 1000 }, { 0x2191, 838 }, { 0x2192, 1000 },
	{ 0x2193, 838 }, { 0x2212, 838 }, { 0x2264, 838 }, { 0x2265, 838 },
};

void
svg_fixed(double x, int decimals, char out[32])
{
	static const double scale[7] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };
	char digits[32];
	long long v;
	int n = 0, neg, frac;
	char *p = out;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (!isfinite(x))
		x = 0;
	if (x > 1e12)
		x = 1e12;
	if (x < -1e12)
		x = -1e12;
	v = llround(x * scale[decimals]);
	neg = v < 0;
	if (neg)
		v = -v;
	frac = decimals;
	/* drop the trailing zeros of the fraction */
	while (frac > 0 && v % 10 == 0) {
		v /= 10;
		frac--;
	}
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 || n <= frac);
	if (neg && !(n == 1 && digits[0] == '0'))
		*p++ = '-';
	while (n > 0) {
		*p++ = digits[--n];
		if (n == frac && frac > 0)
			*p++ = '.';
	}
	*p = '\0';
}

void
svg_decimal(double x, int decimals, char out[32])
{
	char *dot;
	size_t have;

	svg_fixed(x, decimals, out);
	if (decimals <= 0)
		return;
	dot = strchr(out, '.');
	if (dot == NULL) {
		dot = out + strlen(out);
		*dot = '.';
		dot[1] = '\0';
	}
	have = strlen(dot + 1);
	while (have < (size_t)decimals)
		dot[1 + have++] = '0';
	dot[1 + have] = '\0';
}

void
svg_escape(struct svg *s, const char *text)
{
	for (const char *c = text; *c && !s->failed; c++) {
		const char *r = NULL;
		switch (*c) {
		case '&': r = "&amp;"; break;
		case '<': r = "&lt;"; break;
		case '>': r = "&gt;"; break;
		case '"': r = "&quot;"; break;
		case '\'': r = "&#39;"; break;
		}
		if ((r ? buf_adds(s->out, r) : buf_addc(s->out, *c)) < 0)
			s->failed = 1;
	}
}

void
svg_attr_escape(char *out, size_t n, const char *s)
{
	size_t k = 0;

	for (; *s; s++) {
		const char *r = NULL;
		char one[2] = { *s, '\0' };
		size_t m;
		switch (*s) {
		case '&': r = "&amp;"; break;
		case '<': r = "&lt;"; break;
		case '>': r = "&gt;"; break;
		case '"': r = "&quot;"; break;
		case '\'': r = "&#39;"; break;
		default: r = one; break;
		}
		m = strlen(r);
		/* never cut a UTF-8 sequence: stop before a lead byte that will not fit */
		if (k + m + 4 >= n && ((unsigned char)*s & 0xC0) != 0x80)
			break;
		if (k + m >= n)
			break;
		memcpy(out + k, r, m);
		k += m;
	}
	out[k] = '\0';
}

void
svg_put(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	char num[32];

	va_start(ap, fmt);
	for (const char *f = fmt; *f && !s->failed; f++) {
		int rc = 0;
		if (*f != '%') {
			const char *end = strchr(f, '%');
			size_t n = end ? (size_t)(end - f) : strlen(f);
			rc = buf_add(s->out, f, n);
			f += n - 1;
		} else {
			switch (*++f) {
			case 'v':
				svg_fixed(va_arg(ap, double), 2, num);
				rc = buf_adds(s->out, num);
				break;
			case 'V':
				svg_fixed(va_arg(ap, double), 0, num);
				rc = buf_adds(s->out, num);
				break;
			case 'd':
				svg_fixed((double)va_arg(ap, int), 0, num);
				rc = buf_adds(s->out, num);
				break;
			case 's':
				rc = buf_adds(s->out, va_arg(ap, const char *));
				break;
			case 'e':
				svg_escape(s, va_arg(ap, const char *));
				break;
			case '%':
				rc = buf_addc(s->out, '%');
				break;
			default: /* a mistake of ours: write nothing of it */
				if (*f == '\0')
					f--;
				break;
			}
		}
		if (rc < 0)
			s->failed = 1;
	}
	va_end(ap);
}

/* The next code point of UTF-8 text at *p (advanced); a malformed byte
 * counts as one character of its own. */
static unsigned
next_cp(const unsigned char **p)
{
	const unsigned char *c = *p;
	unsigned cp = c[0];
	int n = 0;

	if (cp >= 0xF0 && cp < 0xF8)
		n = 3, cp &= 0x07;
	else if (cp >= 0xE0)
		n = 2, cp &= 0x0F;
	else if (cp >= 0xC0)
		n = 1, cp &= 0x1F;
	(*p)++;
	for (int i = 0; i < n && (**p & 0xC0) == 0x80; i++, (*p)++)
		cp = cp << 6 | (**p & 0x3F);
	return cp;
}

double
svg_text_width(const char *text, double size)
{
	const unsigned char *p = (const unsigned char *)text;
	double em = 0;

	while (*p) {
		unsigned cp = next_cp(&p), w = 1000;
		if (cp >= 0x20 && cp < 0x7F)
			w = ascii_width[cp - 0x20];
		else
			for (size_t i = 0; i < sizeof other_width / sizeof other_width[0]; i++)
				if (other_width[i].cp == cp)
					w = other_width[i].w;
		em += w;
	}
	return em / 1000.0 * size;
}

void
svg_wrap(const char *text, double size, double width,
    void (*line)(void *ctx, const char *start, size_t len), void *ctx)
{
	const char *p = text;

	while (*p) {
		const char *end = p, *best = NULL;
		char piece[1024];

		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		for (end = p;; end++) {
			if (*end == ' ' || *end == '\0') {
				size_t n = (size_t)(end - p);
				if (n >= sizeof piece)
					n = sizeof piece - 1;
				memcpy(piece, p, n);
				piece[n] = '\0';
				if (best != NULL && svg_text_width(piece, size) > width)
					break;
				best = end;
				if (*end == '\0')
					break;
			}
		}
		line(ctx, p, (size_t)(best - p));
		p = best;
	}
}
