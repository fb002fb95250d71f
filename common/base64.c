/* base64.c: RFC 4648 base64, written and read strictly. */
#include <string.h>

#include "base64.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
base64_encode(struct buf *b, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = b64[v >> 18 & 63];
		q[1] = b64[v >> 12 & 63];
		q[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? b64[v & 63] : '=';
		if (buf_add(b, q, 4) < 0)
			return -1;
	}
	return 0;
}

int
base64_decode(const char *s, size_t len, uint8_t *out, size_t want)
{
	size_t o = 0;

	if (len % 4 != 0 || len / 4 * 3 < want || len / 4 * 3 > want + 2)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		uint32_t v = 0;
		int pad = 0;

		for (int j = 0; j < 4; j++) {
			const char *c = memchr(b64, s[i + j], 64);

			if (s[i + j] == '=' && i + 4 == len && j >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (c == NULL || s[i + j] == '\0' || pad)
				return -1;
			v = v << 6 | (uint32_t)(c - b64);
		}
		for (int j = 0; j < 3 - pad; j++) {
			if (o == want)
				return -1;
			out[o++] = (uint8_t)(v >> (16 - 8 * j));
		}
	}
	return o == want ? 0 : -1;
}

long long
base64_len(const char *s, size_t len)
{
	size_t pad = 0;

	if (len % 4 != 0)
		return -1;
	if (len > 0 && s[len - 1] == '=')
		pad = len > 1 && s[len - 2] == '=' ? 2 : 1;
	return (long long)(len / 4 * 3 - pad);
}
