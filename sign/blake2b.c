/* blake2b.c: BLAKE2b as RFC 7693 gives it (section 3 and appendix C). */
#include <string.h>

#include "blake2b.h"

static const uint64_t iv[8] = {
	0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL,
	0xA54FF53A5F1D36F1ULL, 0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL,
	0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL,
};

static const uint8_t sigma[12][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
};

static uint64_t
rotr(uint64_t x, int n)
{
	return (x >> n) | (x << (64 - n));
}

static uint64_t
load64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void
mix(uint64_t *v, int a, int b, int c, int d, uint64_t x, uint64_t y)
{
	v[a] = v[a] + v[b] + x;
	v[d] = rotr(v[d] ^ v[a], 32);
	v[c] = v[c] + v[d];
	v[b] = rotr(v[b] ^ v[c], 24);
	v[a] = v[a] + v[b] + y;
	v[d] = rotr(v[d] ^ v[a], 16);
	v[c] = v[c] + v[d];
	v[b] = rotr(v[b] ^ v[c], 63);
}

static void
compress(struct blake2b *s, int last)
{
	uint64_t v[16], m[16];

	for (int i = 0; i < 8; i++) {
		v[i] = s->h[i];
		v[i + 8] = iv[i];
	}
	v[12] ^= s->t[0];
	v[13] ^= s->t[1];
	if (last)
		v[14] = ~v[14];
	for (int i = 0; i < 16; i++)
		m[i] = load64(s->b + 8 * i);
	for (int r = 0; r < 12; r++) {
		const uint8_t *z = sigma[r];
		mix(v, 0, 4, 8, 12, m[z[0]], m[z[1]]);
		mix(v, 1, 5, 9, 13, m[z[2]], m[z[3]]);
		mix(v, 2, 6, 10, 14, m[z[4]], m[z[5]]);
		mix(v, 3, 7, 11, 15, m[z[6]], m[z[7]]);
		mix(v, 0, 5, 10, 15, m[z[8]], m[z[9]]);
		mix(v, 1, 6, 11, 12, m[z[10]], m[z[11]]);
		mix(v, 2, 7, 8, 13, m[z[12]], m[z[13]]);
		mix(v, 3, 4, 9, 14, m[z[14]], m[z[15]]);
	}
	for (int i = 0; i < 8; i++)
		s->h[i] ^= v[i] ^ v[i + 8];
}

void
blake2b_init(struct blake2b *s, size_t outlen)
{
	memset(s, 0, sizeof *s);
	memcpy(s->h, iv, sizeof iv);
	/* the parameter block: digest length, no key, fanout 1, depth 1 */
	s->h[0] ^= 0x01010000ULL ^ (uint64_t)outlen;
	s->outlen = outlen;
}

void
blake2b_update(struct blake2b *s, const void *p, size_t n)
{
	const uint8_t *in = p;

	while (n > 0) {
		size_t take;

		/* a full block is compressed only once more input comes, since
		 * the last block is compressed differently */
		if (s->c == sizeof s->b) {
			s->t[0] += s->c;
			if (s->t[0] < s->c)
				s->t[1]++;
			compress(s, 0);
			s->c = 0;
		}
		take = sizeof s->b - s->c < n ? sizeof s->b - s->c : n;
		memcpy(s->b + s->c, in, take);
		s->c += take;
		in += take;
		n -= take;
	}
}

void
blake2b_final(struct blake2b *s, uint8_t *out)
{
	s->t[0] += s->c;
	if (s->t[0] < s->c)
		s->t[1]++;
	memset(s->b + s->c, 0, sizeof s->b - s->c);
	compress(s, 1);
	for (size_t i = 0; i < s->outlen; i++)
		out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}

void
blake2b(const void *p, size_t n, uint8_t *out, size_t outlen)
{
	struct blake2b s;

	blake2b_init(&s, outlen);
	blake2b_update(&s, p, n);
	blake2b_final(&s, out);
}
