/* SPDX-License-Identifier: MIT */
/* Random and game-shaped clips and animation packs for the tests and fuzz
 * targets of codecs/clip and codecs/anim, built only through the public
 * builders (clip_add_*, anim_init, anim_add_clip, anim_set_slot), so they
 * double as an example for a sample-data generator.
 *
 * Deterministic: everything derives from a tests/rng.h state the caller
 * seeds.  Allocation failures abort() (these are test fixtures). */
#ifndef MH_TEST_CLIPGEN_H
#define MH_TEST_CLIPGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "clip.h"
#include "rng.h"

/* The fuzz targets still name the state by its former name. */
#define gen_rng rng

/* Uniform in [0, n); 0 when n is 0 (a choice among nothing). */
static inline uint32_t gen_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)rng_below(r, n) : 0;
}

static inline int16_t gen_s16(struct rng *r)
{
	switch (gen_below(r, 4)) {
	case 0: return (int16_t)(gen_below(r, 65536) - 32768);
	case 1: return (int16_t)(gen_below(r, 3) ? gen_below(r, 5) : 32767);
	default: return (int16_t)((int)gen_below(r, 8193) - 4096);
	}
}

static inline void *gen_ok(void *p)
{
	if (!p)
		abort();
	return p;
}

/* How a generated clip looks. */
enum gen_style {
	GEN_NATIVE_FU, /* MHFU-like: ascending bits from u1..loc_z, mask = bits */
	GEN_NATIVE_P3, /* MHP3rd-like: location channels before rotation */
	GEN_WILD,      /* any bits, order, duplicates; stray masks (MHFU) */
};

/* Keys of one channel: frames ascending from 0, with eases. */
static inline void gen_keys(struct rng *r, struct clip_channel *ch,
			    uint32_t n)
{
	int frame = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct clip_key key = {.frame = (int16_t)frame,
				       .value = gen_s16(r),
				       .ease_in = (int16_t)((int)gen_below(r, 41) - 20),
				       .ease_out = (int16_t)((int)gen_below(r, 41) - 20)};
		if (gen_below(r, 8) == 0)
			key.ease_in = gen_s16(r);
		gen_ok(clip_add_key(ch, key));
		frame += 1 + (int)gen_below(r, 60);
		if (frame > 32767)
			frame = 32767;
	}
}

/* A clip of ntracks tracks in `style`, at most max_keys keys a channel. */
static inline void gen_clip(struct rng *r, enum gen_style style,
			    uint32_t ntracks, uint32_t max_keys, struct clip *c)
{
	static const uint32_t FU[] = {CLIP_U1, CLIP_U2, CLIP_U4, CLIP_ROT_X,
				      CLIP_ROT_Y, CLIP_ROT_Z, CLIP_LOC_X,
				      CLIP_LOC_Y, CLIP_LOC_Z};
	static const uint32_t P3[] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z,
				      CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	memset(c, 0, sizeof *c);
	c->loop = gen_below(r, 4) ? gen_below(r, 2) : (uint32_t)rng_next(r);
	c->loop_start = gen_below(r, 3) ? 0.0f : (float)gen_below(r, 200) / 4;
	if (style == GEN_WILD && gen_below(r, 4) == 0) {
		uint32_t bits = (uint32_t)rng_next(r);
		memcpy(&c->loop_start, &bits, sizeof bits);
	}
	for (uint32_t t = 0; t < ntracks; t++) {
		struct clip_track *tr = gen_ok(clip_add_track(c, 0));
		if (style == GEN_NATIVE_FU) {
			bool rot_only = gen_below(r, 3) != 0;
			for (size_t i = 0; i < sizeof FU / sizeof *FU; i++) {
				bool rot = FU[i] & CLIP_ROT_BITS;
				bool want = rot ? gen_below(r, 6) != 0 :
					    !rot_only && gen_below(r, 3) == 0;
				if (want)
					gen_keys(r, gen_ok(clip_add_channel(tr, FU[i])),
						 1 + gen_below(r, max_keys));
			}
		} else if (style == GEN_NATIVE_P3) {
			bool loc = gen_below(r, 4) == 0;
			for (size_t i = loc ? 0 : 3; i < sizeof P3 / sizeof *P3; i++)
				gen_keys(r, gen_ok(clip_add_channel(tr, P3[i])),
					 1 + gen_below(r, max_keys));
		} else {
			uint32_t n = gen_below(r, 5);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t bit = gen_below(r, 4) ? 1u << gen_below(r, 12)
							       : gen_below(r, 0x10000);
				gen_keys(r, gen_ok(clip_add_channel(tr, bit)),
					 gen_below(r, max_keys + 1));
			}
			if (gen_below(r, 5) == 0)
				tr->mask = gen_below(r, 2) ? gen_below(r, 0x1000)
							   : (uint32_t)rng_next(r) >> 1;
		}
	}
}

/* Sets stream s's slots: `filled` of them, the first `filled` slots
 * except the skipped ones (skip_a..skip_b), each a new clip of ntracks. */
static inline void gen_fill(struct rng *r, struct anim *a, uint32_t s,
			    uint32_t filled, uint32_t skip_a, uint32_t skip_b,
			    uint32_t ntracks, enum gen_style style)
{
	for (uint32_t i = 0, n = 0; n < filled; i++) {
		if (i >= skip_a && i <= skip_b)
			continue;
		struct clip c;
		gen_clip(r, style, ntracks, 4, &c);
		int32_t k = anim_add_clip(a, &c);
		if (k < 0 || anim_set_slot(a, s, i, k, NULL))
			abort();
		n++;
	}
}

/* Points stream s slot i at the clip of stream t slot j. */
static inline void gen_share(struct anim *a, uint32_t s, uint32_t i,
			     uint32_t t, uint32_t j)
{
	if (anim_set_slot(a, s, i, a->streams[t].slots[j], NULL))
		abort();
}

/* A pack shaped like the native Tigrex's (mhfu-archive(5)): 6 streams of 100
 * and 105 slots, filled [62, 0, 64, 0, 62, 0], parts of 31 / 9 / 5
 * tracks, slots 24 and 25 only in stream 2, shared clips within and
 * across streams, and a tail that is not all zeros. */
static inline void gen_tigrex(struct rng *r, struct anim *a)
{
	static const uint32_t SLOTS[6] = {100, 105, 100, 105, 100, 105};
	if (anim_init(a, CLIP_MHFU, 6, SLOTS, NULL))
		abort();
	gen_fill(r, a, 0, 62, 24, 25, 31, GEN_NATIVE_FU);
	gen_fill(r, a, 2, 64, 100, 100, 9, GEN_NATIVE_FU);
	gen_fill(r, a, 4, 62, 24, 25, 5, GEN_NATIVE_FU);
	gen_share(a, 0, 2, 0, 0);   /* the Tigrex's slots 0 and 2 */
	gen_share(a, 0, 40, 0, 3);
	gen_share(a, 2, 2, 2, 0);
	gen_share(a, 4, 2, 4, 0);
	gen_share(a, 4, 50, 2, 50); /* across streams (a bind-pose build) */
	if (anim_compact(a, NULL))
		abort();
	static const uint8_t TAIL[] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
	a->tail_len = 40;
	a->tail = gen_ok(calloc(1, a->tail_len));
	memcpy(a->tail, TAIL, sizeof TAIL);
}

/* A pack shaped like MHP3rd's Brute moveset: 3 streams of 70, 20 and 0
 * slots, 58 clips in stream 0's slots 1..65 and 15 in stream 1, 43
 * tracks, location channels before rotation. */
static inline void gen_p3rd(struct rng *r, struct anim *a)
{
	static const uint32_t SLOTS[3] = {70, 20, 0};
	if (anim_init(a, CLIP_P3RD, 3, SLOTS, NULL))
		abort();
	for (uint32_t i = 1; i <= 65; i++) {
		if (i % 9 == 4)
			continue; /* 7 holes: 58 clips */
		struct clip c;
		gen_clip(r, GEN_NATIVE_P3, 43, 3, &c);
		int32_t k = anim_add_clip(a, &c);
		if (k < 0 || anim_set_slot(a, 0, i, k, NULL))
			abort();
	}
	gen_fill(r, a, 1, 15, 5, 9, 43, GEN_NATIVE_P3);
	gen_share(a, 1, 19, 0, 1);
	if (anim_compact(a, NULL))
		abort();
}

/* A random pack: 1..max_streams (<= 7) streams (some without slots), of
 * fewer than max_slots slots, mostly fewer than 12; random filling and
 * sharing, wild or native clips of fewer than max_tracks tracks, a random
 * tail; format MHFU or MHP3rd (CLIP_NONE possible when nothing is
 * filled). */
static inline void gen_pack_within(struct rng *r, struct anim *a, uint32_t max_streams,
				   uint32_t max_slots, uint32_t max_tracks)
{
	uint32_t n = 1 + gen_below(r, max_streams), slots[7];
	enum clip_format f = gen_below(r, 2) ? CLIP_MHFU : CLIP_P3RD;
	for (uint32_t s = 0; s < n; s++)
		slots[s] = gen_below(r, 4) ? gen_below(r, max_slots < 12 ? max_slots : 12)
					   : gen_below(r, max_slots);
	if (anim_init(a, f, n, slots, NULL))
		abort();
	enum gen_style style = gen_below(r, 2) ? GEN_WILD :
			       f == CLIP_MHFU ? GEN_NATIVE_FU : GEN_NATIVE_P3;
	uint32_t density = gen_below(r, 5);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t i = 0; i < slots[s]; i++) {
			if (gen_below(r, 4) >= density)
				continue;
			if (a->nclips && gen_below(r, 4) == 0) {
				int32_t k = (int32_t)gen_below(r, a->nclips);
				if (anim_set_slot(a, s, i, k, NULL))
					abort();
				continue;
			}
			struct clip c;
			gen_clip(r, style, gen_below(r, max_tracks), 3, &c);
			int32_t k = anim_add_clip(a, &c);
			if (k < 0 || anim_set_slot(a, s, i, k, NULL))
				abort();
		}
	if (anim_compact(a, NULL))
		abort();
	if (!a->nclips && gen_below(r, 3) == 0)
		a->format = CLIP_NONE;
	if (gen_below(r, 2)) {
		a->tail_len = gen_below(r, 3) ? gen_below(r, 40) : gen_below(r, 300);
		a->tail = gen_ok(malloc(a->tail_len + 1));
		for (size_t i = 0; i < a->tail_len; i++)
			a->tail[i] = gen_below(r, 3) ? 0 : (uint8_t)rng_next(r);
	}
}

/* The tests' random pack: up to 7 streams of up to 119 slots, clips of
 * up to 5 tracks. */
static inline void gen_pack(struct rng *r, struct anim *a)
{
	gen_pack_within(r, a, 7, 120, 6);
}

/* A small MHFU pack for entry texts and commits: nparts (1..3) parts in
 * 2 * nparts streams of fewer than max_slots slots, native clips of
 * 1..max_tracks tracks in about half the slots, a few slots sharing an
 * earlier slot's clip. */
static inline void gen_mhfu_pack(struct rng *r, struct anim *a, uint32_t nparts,
				 uint32_t max_slots, uint32_t max_tracks)
{
	uint32_t slots[6];
	for (uint32_t s = 0; s < 2 * nparts; s++)
		slots[s] = gen_below(r, max_slots);
	if (anim_init(a, CLIP_MHFU, 2 * nparts, slots, NULL))
		abort();
	for (uint32_t s = 0; s < 2 * nparts; s++)
		for (uint32_t i = 0; i < slots[s]; i++) {
			uint32_t roll = gen_below(r, 8);
			if (roll < 3)
				continue;
			if (roll == 3 && a->nclips) {
				if (anim_set_slot(a, s, i, (int32_t)gen_below(r, a->nclips), NULL))
					abort();
				continue;
			}
			struct clip c;
			gen_clip(r, GEN_NATIVE_FU, 1 + gen_below(r, max_tracks), 3, &c);
			int32_t k = anim_add_clip(a, &c);
			if (k < 0 || anim_set_slot(a, s, i, k, NULL))
				abort();
		}
	if (anim_compact(a, NULL))
		abort();
}

/* Applies fuzzer-chosen edits to p[0..len): each 3 bytes of `edits` put
 * a byte value at a 16-bit position (modulo len). */
static inline void gen_apply_edits(uint8_t *p, size_t len, const uint8_t *edits,
				   size_t n)
{
	for (size_t i = 0; len && i + 3 <= n; i += 3)
		p[(size_t)(edits[i] | edits[i + 1] << 8) % len] = edits[i + 2];
}

#endif
