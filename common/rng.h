/* rng.h: the seeded streams of every resampling in cohort.
 *
 * A replicate never shares a stream: its stream is seeded from (seed,
 * what, replicate) alone, so results are the same on any number of
 * threads and in any order.  The generator is splitmix64 (Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", 2014): small,
 * exactly specified, easy to write again in a test.  No state outside the
 * caller's struct.
 */
#ifndef COHORT_RNG_H
#define COHORT_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

/* The next 64 bits. */
static inline uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stream of replicate rep of what (a cell, a family) under seed: its
 * state is splitmix64's output for seed, then for that xor what, then for
 * that xor rep. */
static inline struct rng
rng_stream(uint64_t seed, uint64_t what, uint64_t rep)
{
	struct rng r = { seed };

	r.s = rng_next(&r) ^ what;
	r.s = rng_next(&r) ^ rep;
	r.s = rng_next(&r);
	return r;
}

/* A whole number in [0, n): the high 32 bits times n, shifted (n < 2^32;
 * the bias is below n / 2^32). */
static inline uint32_t
rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

#endif
