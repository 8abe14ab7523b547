/* SPDX-License-Identifier: MIT */
/* The tests' one deterministic PRNG (splitmix64): the sample generator
 * (every byte it writes derives from --seed), the unit tests, clipgen.h,
 * the exercisers and the fuzz driver.  A state seeded directly,
 * `struct rng r = {seed}`, or by rng_init for far-apart streams. */
#ifndef TESTS_RNG_H
#define TESTS_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t x;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A stream per (seed, stream), the plan's and each entry's: the starting
 * points are hashed, so streams sit far apart in the generator's cycle. */
static inline void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->x = seed;
	r->x = rng_next(r) ^ stream * 0xd1b54a32d192ed03u;
	r->x = rng_next(r);
}

/* Uniform in [lo, hi]; the modulo bias is irrelevant for sample data. */
static inline uint32_t rng_range(struct rng *r, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rng_next(r) % ((uint64_t)hi - lo + 1));
}

/* Uniform-ish in [0, n); n > 0. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* Little-endian, so the bytes do not depend on the host. */
static inline void rng_bytes(struct rng *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = rng_next(r);
		for (size_t j = i; j < n && j < i + 8; j++, v >>= 8)
			p[j] = (uint8_t)v;
	}
}

#endif
