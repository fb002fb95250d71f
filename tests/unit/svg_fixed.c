/* svg_fixed.c: the plots' fixed-point number formatter against a table of
 * cases, and against printf's %.*f (in the C locale, where it prints a
 * point) on a million pseudo-random values with trailing zeros dropped;
 * and the text width estimate's bounds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../plot/svg.h"

static void
trimmed(double x, int dec, char *out, size_t n)
{
	char *p;

	snprintf(out, n, "%.*f", dec, x);
	if (strchr(out, '.')) {
		p = out + strlen(out) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	if (strcmp(out, "-0") == 0)
		strcpy(out, "0");
}

int
main(void)
{
	static const struct {
		double x;
		int dec;
		const char *want;
	} cases[] = {
		{ 0, 2, "0" }, { -0.0, 2, "0" }, { 1, 2, "1" }, { 1.5, 2, "1.5" }, { 0.05, 2, "0.05" },
		{ -0.004, 2, "0" }, { -0.005, 2, "-0.01" }, { 0.125, 2, "0.13" }, { 2832.41, 2, "2832.41" },
		{ 2832.41, 0, "2832" }, { 2832.5, 0, "2833" }, { -2832.5, 0, "-2833" },
		{ 340, 0, "340" }, { 1e13, 0, "1000000000000" }, { NAN, 2, "0" }, { INFINITY, 1, "0" },
		{ 0.000001, 6, "0.000001" }, { 123.456789, 6, "123.456789" }, { 10, 3, "10" },
		{ 100.1, 1, "100.1" }, { -1234.5678, 2, "-1234.57" },
	};
	uint64_t s = 0x9e3779b97f4a7c15ull;
	long bad = 0, n = 0;
	char got[32], want[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		svg_fixed(cases[i].x, cases[i].dec, got);
		n++;
		if (strcmp(got, cases[i].want) != 0 && bad++ < 10)
			printf("svg_fixed(%.17g, %d) = %s, want %s\n", cases[i].x, cases[i].dec, got,
			    cases[i].want);
	}
	for (long i = 0; i < 1000000; i++) {
		double x;
		int dec;
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		/* values a plot prints: within +-1e6, on a grid of 1/64 so that
		 * no value lies on a rounding tie, where printf rounds the exact
		 * binary value and we round half away from zero */
		x = (double)((int64_t)(s % 128000000) - 64000000) / 64.0;
		dec = (int)(s >> 60) % 3;
		svg_fixed(x, dec, got);
		trimmed(x, dec, want, sizeof want);
		n++;
		if (fabs(x * pow(10, dec) - floor(x * pow(10, dec)) - 0.5) < 1e-9)
			continue;
		if (strcmp(got, want) != 0 && bad++ < 10)
			printf("svg_fixed(%.17g, %d) = %s, printf gives %s\n", x, dec, got, want);
	}
	if (svg_text_width("", 11) != 0 || svg_text_width("W", 10) < 9.8 ||
	    svg_text_width("\xe2\x89\xa5", 10) < 8 || svg_text_width("\xff", 10) != 10) {
		printf("svg_text_width out of its bounds\n");
		bad++;
	}
	printf("%ld cases, %ld wrong\n", n, bad);
	return bad != 0;
}
