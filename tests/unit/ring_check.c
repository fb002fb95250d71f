/* ring_check.c: common/ring.h hands every byte on, in order, once: 40 MB
 * in blocks of 1 byte to 3 MB (past a slot's megabyte), to a take slower
 * than the putting now and then, so the slots fill and wrap; a take that
 * fails stops ring_put and ring_end says so; ring_end(NULL) is 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/ring.h"
#include "../../common/rng.h"

#define TOTAL ((size_t)40 << 20)

struct sink {
	unsigned char *got;
	size_t n, calls, fail_after;
};

static int
take(void *ctx, const void *p, size_t n)
{
	struct sink *s = ctx;

	if (s->fail_after && s->n >= s->fail_after)
		return -1;
	if (s->n + n > TOTAL)
		return -1;
	memcpy(s->got + s->n, p, n);
	s->n += n;
	/* now and then slower than the putting */
	if (++s->calls % 7 == 0)
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	return 0;
}

int
main(void)
{
	unsigned char *want = malloc(TOTAL);
	struct sink s = { malloc(TOTAL), 0, 0, 0 };
	struct ring *r;
	struct rng g = { 7 };
	size_t at = 0;
	int bad = 0;

	if (want == NULL || s.got == NULL || (r = ring_new(take, &s)) == NULL)
		return 2;
	for (size_t i = 0; i < TOTAL; i++)
		want[i] = (unsigned char)rng_next(&g);
	while (at < TOTAL) {
		size_t k = rng_next(&g) % 4 == 0 ? rng_next(&g) % (3u << 20) + 1 : rng_next(&g) % 4096 + 1;
		if (k > TOTAL - at)
			k = TOTAL - at;
		if (ring_put(r, want + at, k) < 0)
			bad |= 1;
		at += k;
	}
	if (ring_end(r) < 0)
		bad |= 2;
	if (s.n != TOTAL || memcmp(s.got, want, TOTAL) != 0)
		bad |= 4;
	/* a take that fails: ring_put says so (soon), ring_end too */
	struct sink f = { s.got, 0, 0, (size_t)5 << 20 };
	int refused = 0;
	if ((r = ring_new(take, &f)) == NULL)
		return 2;
	for (at = 0; at < TOTAL; at += 65536)
		refused |= ring_put(r, want + at, 65536) < 0;
	if (ring_end(r) != -1 || !refused || memcmp(f.got, want, f.n) != 0)
		bad |= 8;
	if (ring_end(NULL) != 0)
		bad |= 16;
	free(want);
	free(s.got);
	if (bad)
		fprintf(stderr, "ring_check: failed (%d)\n", bad);
	return bad ? 1 : 0;
}
