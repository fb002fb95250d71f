/* utf8.c: well-formed UTF-8. */
#include "utf8.h"

size_t
utf8_seq_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], lo = 0x80, hi = 0xBF;
	size_t n = (size_t)(end - p), k;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		k = 3;
		if (c == 0xE0)
			lo = 0xA0;
		if (c == 0xED)
			hi = 0x9F; /* no UTF-16 surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		k = 4;
		if (c == 0xF0)
			lo = 0x90;
		if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < 2 || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if (i >= n || (p[i] & 0xC0) != 0x80)
			return 0;
	return k;
}

int
utf8_valid(const unsigned char *s, size_t n)
{
	const unsigned char *end = s + n;

	while (s < end) {
		size_t k = *s < 0x80 ? 1 : utf8_seq_len(s, end);
		if (k == 0)
			return 0;
		s += k;
	}
	return 1;
}
