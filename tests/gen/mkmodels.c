/* SPDX-License-Identifier: MIT */
/* Model PACs for the sample archive (see mkmodels.h).
 *
 * Skeletons: the animated joints come first, split into contiguous parts
 * (part 0 the body, each later part one subtree hanging off a body joint),
 * then an unanimated chain on a root of its own (the severed tail).  The
 * bind pose is pure translation.  MHFU packs hold part k's clips in
 * streams 2k and 2k+1, one track per joint of the part, channels in
 * ascending bit order; MHP3rd packs hold whole-rig clip sets with
 * location channels first. */
#include "mkmodels.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "entries.h"
#include "mkpmo.h"
#include "pac.h"
#include "pmo.h"
#include "port.h"
#include "records.h"
#include "rig.h"
#include "rng.h"
#include "skeleton.h"
#include "tmh.h"

const struct mkmodel_place MKMODEL_PLACES[] = {
	{6186, MODEL_TIGREX},       /* file_06185: em75, the Tigrex */
	{6122, MODEL_FOUR_STREAMS}, /* file_06121 */
	{6131, MODEL_TWO_STREAMS},  /* file_06130 */
	{5249, MODEL_P3RD},         /* file_05248: the Brute Tigrex's model */
	{5250, MODEL_P3RD_GEOMETRY},/* file_05249 */
	{5251, MODEL_P3RD_MOVESET}, /* file_05250 */
	{5142, MODEL_EM001_OVERLAY0},   /* file_05141 */
	{5143, MODEL_EM001_OVERLAY1},
	{5144, MODEL_RATHIAN},          /* file_05143 */
	{5145, MODEL_RATHIAN_GEOMETRY},
	{5146, MODEL_RATHIAN_MOVESET},  /* file_05145 */
	{5147, MODEL_RATHALOS},         /* file_05146 */
	{5148, MODEL_RATHALOS_GEOMETRY},
	{5149, MODEL_RATHALOS_MOVESET}, /* file_05148 */
	{5343, MODEL_EM040_OVERLAY0},   /* file_05342 */
	{5344, MODEL_EM040_OVERLAY1},
	{5345, MODEL_ZINOGRE},          /* file_05344 */
	{5346, MODEL_ZINOGRE_GEOMETRY},
	{5347, MODEL_ZINOGRE_MOVESET},  /* file_05346 */
	{6112, MODEL_ODD_STREAMS},  /* file_06111: em01's place */
	{6123, MODEL_STATIC},       /* file_06122: an em id the monster table does not name */
};
const size_t MKMODEL_PLACES_COUNT = sizeof MKMODEL_PLACES / sizeof *MKMODEL_PLACES;

/* The MHP3rd sample: each group's overlays right before its model, the
 * models where codecs/monsters.c's MHP3rd table puts them; the identity
 * donor after the table's last monster (slagtoth-em068, 5458-5460). */
const struct mkmodel_place MKMODEL_P3RD_PLACES[] = {
	{5247, MODEL_EM023_OVERLAY0},        /* file_05246 */
	{5248, MODEL_EM023_OVERLAY1},
	{5249, MODEL_BRUTE_TIGREX},          /* file_05248: brute-tigrex */
	{5250, MODEL_BRUTE_TIGREX_GEOMETRY},
	{5251, MODEL_BRUTE_TIGREX_MOVESET},  /* file_05250 */
	{5338, MODEL_EM040_OVERLAY0},        /* file_05337 */
	{5339, MODEL_EM040_OVERLAY1},
	{5340, MODEL_ZINOGRE_FULL},          /* file_05339: zinogre */
	{5341, MODEL_ZINOGRE_FULL_GEOMETRY},
	{5342, MODEL_ZINOGRE_FULL_MOVESET},  /* file_05341 */
	{5499, MODEL_EM099_OVERLAY0},        /* file_05498 */
	{5500, MODEL_EM099_OVERLAY1},
	{5501, MODEL_TIGREX_DONOR},          /* file_05500: no by-name/ link */
	{5502, MODEL_TIGREX_DONOR_GEOMETRY},
	{5503, MODEL_TIGREX_DONOR_MOVESET},  /* file_05502 */
};
const size_t MKMODEL_P3RD_PLACES_COUNT = sizeof MKMODEL_P3RD_PLACES / sizeof *MKMODEL_P3RD_PLACES;

/* A rig: joint counts of each part, then the unanimated chain. */
struct rig_shape {
	enum skeleton_game game;
	uint32_t parts[4];  /* joints per part; 0 ends the list */
	uint32_t severed;   /* joints of the unanimated root chain */
	bool chain_roots;   /* roots are siblings of each other */
	uint32_t origins;   /* leading joints at the origin (the Tigrex's 0-2, its
			       hip last), the others placed at random */
};

/* An MHP3rd quadruped (quadruped_tree), then the unanimated chain. */
struct quad_shape {
	uint32_t lead, spine, front, rear, severed;
};

/* A rig shaped like MHP3rd's Brute Tigrex (brute_tree), then the
 * unanimated chain: 4 legs of `leg` joints. */
struct brute_shape {
	uint32_t spine, head, tail, leg, severed;
};

static float coord(struct rng *r)
{
	return (float)((int)rng_below(r, 801) - 400) / 2.0f;
}

/* Parents of one part's joints [first, first+n): a chain from `attach`
 * (-1: a root), with a branch back to an earlier joint every few bones. */
static void part_tree(struct skeleton *s, struct rng *r, uint32_t first, uint32_t n,
		      int32_t attach, bool branchy)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = first + i;
		int32_t parent = i == 0 ? attach : (int32_t)b - 1;
		if (branchy && i >= 3 && i % 5 == 0)
			parent = (int32_t)(first + 2 + rng_below(r, i - 2));
		s->bones[b].parent = parent;
	}
}

/* An MHP3rd quadruped's parents: `lead` bones on a root chain of their
 * own, the body's root and `spine` bones down to the body fork (bone
 * lead + spine), a front and a rear branch off it. */
static void quadruped_tree(struct skeleton *s, const struct quad_shape *q)
{
	uint32_t b = 0, fork = q->lead + q->spine;
	for (uint32_t i = 0; i < q->lead; i++, b++)
		s->bones[b].parent = i ? (int32_t)b - 1 : -1;
	for (uint32_t i = 0; i <= q->spine; i++, b++)
		s->bones[b].parent = i ? (int32_t)b - 1 : -1;
	for (uint32_t i = 0; i < q->front + q->rear; i++, b++)
		s->bones[b].parent = i == 0 || i == q->front ? (int32_t)fork : (int32_t)b - 1;
}

/* A chain of n bones from bone *at on, the first one's parent `attach`. */
static void chain(struct skeleton *s, uint32_t *at, uint32_t n, int32_t attach)
{
	for (uint32_t i = 0; i < n; i++, (*at)++)
		s->bones[*at].parent = i ? (int32_t)*at - 1 : attach;
}

static uint32_t brute_animated(const struct brute_shape *q)
{
	return 2 + q->spine + q->head + q->tail + 4 * q->leg;
}

/* The Brute Tigrex's parents: a root and the hip (the body fork, both
 * placed at the origin by the caller), the spine off the hip, the head
 * chain off the spine's end (in the middle of the bone order, as the
 * game's rig has it), the tail off the hip, two front legs off the
 * spine's end, two rear ones off the hip.  q->spine >= 1. */
static void brute_tree(struct skeleton *s, const struct brute_shape *q)
{
	uint32_t b = 0;
	chain(s, &b, 2, -1);
	chain(s, &b, q->spine, 1);
	int32_t shoulders = (int32_t)b - 1;
	chain(s, &b, q->head, shoulders);
	chain(s, &b, q->tail, 1);
	for (int leg = 0; leg < 4; leg++)
		chain(s, &b, q->leg, leg < 2 ? shoulders : 1);
}

static int finish_skeleton(struct skeleton *s, enum skeleton_game game, uint32_t animated,
			   uint32_t origins, bool chain_roots, struct rng *r, uint8_t **out,
			   size_t *len, char *why, size_t why_len);

/* A quadruped's skeleton, bones placed and named as build_skeleton's. */
static int build_quadruped(const struct quad_shape *q, struct rng *r, uint8_t **out,
			   size_t *len, char *why, size_t why_len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	uint32_t animated = q->lead + q->spine + 1 + q->front + q->rear;
	if (skeleton_init(&s, SKELETON_MHP3RD, animated + q->severed, &d)) {
		snprintf(why, why_len, "skeleton: %s", d.msg);
		return -1;
	}
	quadruped_tree(&s, q);
	part_tree(&s, r, animated, q->severed, -1, false);
	return finish_skeleton(&s, SKELETON_MHP3RD, animated, 0, false, r, out, len, why, why_len);
}

/* The Brute Tigrex's skeleton, its first two joints at the origin. */
static int build_brute(const struct brute_shape *q, struct rng *r, uint8_t **out, size_t *len,
		       char *why, size_t why_len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	uint32_t animated = brute_animated(q);
	if (skeleton_init(&s, SKELETON_MHP3RD, animated + q->severed, &d)) {
		snprintf(why, why_len, "skeleton: %s", d.msg);
		return -1;
	}
	brute_tree(&s, q);
	part_tree(&s, r, animated, q->severed, -1, false);
	return finish_skeleton(&s, SKELETON_MHP3RD, animated, 2, false, r, out, len, why, why_len);
}

static int build_skeleton(const struct rig_shape *shape, struct rng *r,
			  uint8_t **out, size_t *len, char *why, size_t why_len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	uint32_t animated = 0, nparts = 0;
	while (nparts < 4 && shape->parts[nparts])
		animated += shape->parts[nparts++];
	if (skeleton_init(&s, shape->game, animated + shape->severed, &d)) {
		snprintf(why, why_len, "skeleton: %s", d.msg);
		return -1;
	}

	uint32_t first = 0;
	for (uint32_t p = 0; p < nparts; p++) {
		/* Later parts hang off a body joint: the head off the spine,
		 * the tail off the hip (joint 2). */
		int32_t attach = p == 0 ? -1 : p == 1 ? (int32_t)(shape->parts[0] / 3) : 2;
		part_tree(&s, r, first, shape->parts[p], attach, p == 0);
		for (uint32_t i = 0; i < shape->parts[p]; i++)
			s.bones[first + i].part = shape->game == SKELETON_MHFU ? p : 0;
		first += shape->parts[p];
	}
	part_tree(&s, r, animated, shape->severed, -1, false);
	for (uint32_t i = 0; i < shape->severed; i++)
		s.bones[animated + i].part = shape->game == SKELETON_MHFU ? nparts : 0;
	return finish_skeleton(&s, shape->game, animated, shape->origins, shape->chain_roots, r,
			       out, len, why,
			       why_len);
}

/* Places, kinds and names the bones of s (its parents set), the first
 * `origins` with a zero offset (a chain from a root: at the origin), links it, sets its params and
 * encodes it; frees s. */
static int finish_skeleton(struct skeleton *s, enum skeleton_game game, uint32_t animated,
			   uint32_t origins, bool chain_roots, struct rng *r, uint8_t **out,
			   size_t *len, char *why, size_t why_len)
{
	struct mh_diag d = {0};
	for (uint32_t b = 0; b < s->nbones; b++) {
		struct skeleton_bone *bone = &s->bones[b];
		bool severed = b >= animated;
		bone->position[0] = coord(r);
		bone->position[1] = coord(r);
		bone->position[2] = severed && b > animated ? -120.0f : coord(r);
		if (b < origins) /* drawn all the same: what follows stays as it was */
			memset(bone->position, 0, 3 * sizeof *bone->position);
		if (b > 0 && rng_below(r, 10) == 0) {
			bone->kind = 2;
			bone->link = (int32_t)rng_below(r, b);
		} else if (rng_below(r, 20) == 0) {
			bone->kind = 3;
		}
		if (game == SKELETON_MHP3RD) {
			/* A name, a NUL, then leftovers as the game's files have. */
			snprintf((char *)bone->rest, SKELETON_NAME_LEN, "b%03u", b % 1000);
			bone->rest[SKELETON_NAME_LEN - 1] = (uint8_t)rng_below(r, 256);
		}
	}
	skeleton_link(s, chain_roots);
	if (game == SKELETON_MHFU) {
		uint32_t params[] = {0, animated};
		skeleton_set_params(s, 2, params);
	} else {
		uint32_t params[] = {0, animated, 0};
		skeleton_set_params(s, 3, params);
		s->params_count = 2; /* disagrees, as on some MHP3rd skeletons */
	}
	int rc = 0;
	if (skeleton_encode(s, out, len, &d)) {
		snprintf(why, why_len, "skeleton: %s", d.msg);
		rc = -1;
	}
	skeleton_free(s);
	return rc;
}

/* One channel of 1..5 keys from frame 0 to `length`, frames ascending. */
static int add_channel(struct clip_track *t, struct rng *r, uint32_t bit,
		       uint32_t length)
{
	struct clip_channel *ch = clip_add_channel(t, bit);
	if (!ch)
		return -1;
	uint32_t nkeys = rng_range(r, 1, 5), frame = 0;
	int range = bit & CLIP_ROT_BITS ? 8192 : bit >= CLIP_LOC_X ? 4000 : 32;
	for (uint32_t k = 0; k < nkeys; k++) {
		struct clip_key key = {
			.value = (int16_t)((int)rng_below(r, 2 * (uint32_t)range + 1) - range),
			.frame = (int16_t)frame,
			.ease_in = (int16_t)((int)rng_below(r, 61) - 30),
			.ease_out = (int16_t)((int)rng_below(r, 61) - 30),
		};
		if (bit < CLIP_ROT_X) /* the unnamed channels hold values near 16 */
			key.value = (int16_t)(16 + (int)rng_below(r, 5) - 2);
		if (!clip_add_key(ch, key))
			return -1;
		frame = k + 2 == nkeys ? length : frame + rng_range(r, 1, length / nkeys + 1);
	}
	return 0;
}

/* A clip of `ntracks` tracks.  Tracks below `located` also move; MHFU
 * channels ascend by bit, MHP3rd ones put location first. */
static int build_clip(struct clip *c, struct rng *r, uint32_t ntracks,
		      uint32_t located, bool p3rd)
{
	static const uint32_t rot[] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	static const uint32_t loc[] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};
	uint32_t length = rng_range(r, 26, 520);
	memset(c, 0, sizeof *c);
	c->loop = rng_below(r, 3) == 0;
	c->loop_start = c->loop ? (float)rng_below(r, 20) : 0.0f;
	for (uint32_t i = 0; i < ntracks; i++) {
		struct clip_track *t = clip_add_track(c, 0);
		if (!t)
			return -1;
		bool moves = i < located, unnamed = !p3rd && rng_below(r, 12) == 0;
		for (uint32_t b = 0; unnamed && b < 3; b++)
			if (rng_below(r, 2) && add_channel(t, r, 1u << b, length))
				return -1;
		for (uint32_t k = 0; p3rd && moves && k < 3; k++)
			if (add_channel(t, r, loc[k], length))
				return -1;
		for (uint32_t k = 0; k < 3; k++)
			if (add_channel(t, r, rot[k], length))
				return -1;
		for (uint32_t k = 0; !p3rd && moves && k < 3; k++)
			if (add_channel(t, r, loc[k], length))
				return -1;
	}
	return 0;
}

/* A pack's plan: per stream, its slot count, which slots hold a clip, and
 * how many tracks its clips have. */
struct pack_shape {
	enum clip_format format;
	uint32_t nstreams;
	uint32_t slots[6];
	uint32_t filled[6];       /* the first `filled` slots not skipped */
	uint32_t tracks[6];
	uint32_t only_in[2];      /* slots filled in stream only_stream alone */
	uint32_t only_stream;     /* 0: none */
	uint32_t located;         /* tracks with location channels */
	uint32_t share_across;    /* stream that shares clips of stream - 1 */
	const char *tail;
};

static bool slot_skipped(const struct pack_shape *p, uint32_t s, uint32_t slot)
{
	bool only = p->only_stream && (slot == p->only_in[0] || slot == p->only_in[1]);
	return only && s != p->only_stream;
}

static int build_pack(const struct pack_shape *p, struct rng *r, uint8_t **out,
		      size_t *len, char *why, size_t why_len)
{
	struct anim a;
	struct mh_diag d = {0};
	if (anim_init(&a, p->format, p->nstreams, p->slots, &d))
		goto fail;
	for (uint32_t s = 0; s < p->nstreams; s++) {
		uint32_t filled = 0;
		for (uint32_t slot = 0; slot < p->slots[s] && filled < p->filled[s]; slot++) {
			if (slot_skipped(p, s, slot))
				continue;
			int32_t clip;
			filled++;
			if (slot == 2 && filled > 1) {
				clip = a.streams[s].slots[0]; /* slots 0 and 2 share one clip */
			} else if (s == p->share_across && s > 0 && slot % 7 == 3 &&
				   slot < a.streams[s - 1].nslots &&
				   a.streams[s - 1].slots[slot] >= 0) {
				clip = a.streams[s - 1].slots[slot]; /* same part, shared */
			} else if (slot > 4 && rng_below(r, 16) == 0 &&
				   a.streams[s].slots[slot - 4] >= 0) {
				clip = a.streams[s].slots[slot - 4]; /* a repeat */
			} else {
				struct clip c;
				if (build_clip(&c, r, p->tracks[s], s < 2 ? p->located : 0,
					       p->format == CLIP_P3RD) ||
				    (clip = anim_add_clip(&a, &c)) < 0) {
					clip_free(&c);
					snprintf(why, why_len, "pack: out of memory");
					anim_free(&a);
					return -1;
				}
			}
			if (anim_set_slot(&a, s, slot, clip, &d))
				goto fail;
		}
	}
	if (p->tail) {
		a.tail_len = strlen(p->tail);
		a.tail = (uint8_t *)strdup(p->tail);
	}
	if (anim_compact(&a, &d) || anim_encode(&a, out, len, &d))
		goto fail;
	anim_free(&a);
	return 0;
fail:
	snprintf(why, why_len, "pack: %s", d.msg);
	anim_free(&a);
	return -1;
}

/* ---- textures ------------------------------------------------------------
 * TMH banks of small images in the game's formats and a few it never
 * uses: pictures of bands and noise, so that an edit and its nearest
 * colours mean something. */

struct tex_shape {
	enum tmh_format format;
	enum tmh_format clut_format; /* the indexed formats */
	uint16_t width, height;
};

/* A colour whose channels are those of the format it is stored in. */
static void tex_color(struct rng *r, enum tmh_format f, uint8_t rgba[4])
{
	for (int c = 0; c < 3; c++)
		rgba[c] = (uint8_t)rng_below(r, 256);
	rgba[3] = rng_below(r, 5) ? 255 : (uint8_t)rng_below(r, 256);
	tmh_color_unpack(f, tmh_color_pack(f, rgba), rgba);
}

static int build_image(const struct tex_shape *shape, struct rng *r, struct tmh_image *im)
{
	memset(im, 0, sizeof *im);
	im->format = shape->format;
	im->width = shape->width;
	im->height = shape->height;
	im->pixels_len = (uint32_t)tmh_pixels_needed(im->format, im->width, im->height);
	if (!(im->pixels = calloc(im->pixels_len, 1)))
		return -1;
	if (im->format >= TMH_DXT1) { /* any bytes are blocks */
		rng_bytes(r, im->pixels, im->pixels_len);
		return 0;
	}
	if (im->format == TMH_INDEX4 || im->format == TMH_INDEX8) {
		unsigned bytes = tmh_format_bits(shape->clut_format) / 8;
		im->has_clut = true;
		im->clut_format = shape->clut_format;
		im->clut_entries = im->format == TMH_INDEX4 ? 16 : 256;
		im->clut_len = im->clut_entries * bytes;
		if (!(im->clut = malloc(im->clut_len)))
			return -1;
		for (uint32_t i = 0; i < im->clut_entries; i++) {
			uint8_t c[4];
			tex_color(r, im->clut_format, c);
			uint32_t v = tmh_color_pack(im->clut_format, c);
			for (unsigned b = 0; b < bytes; b++)
				im->clut[i * bytes + b] = (uint8_t)(v >> 8 * b);
		}
	}
	uint8_t band[4][4];
	for (int b = 0; b < 4; b++)
		tex_color(r, im->format, band[b]);
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			uint32_t k = (x / 4 + y / 4) % 4, v;
			if (im->has_clut)
				v = (k * im->clut_entries / 4 + (uint32_t)rng_below(r, 3)) %
				    im->clut_entries;
			else if (rng_below(r, 8) == 0)
				v = (uint32_t)rng_next(r);
			else
				v = tmh_color_pack(im->format, band[k]);
			/* a pixel past a cut band's bytes is not stored */
			(void)tmh_pixel_set(im, x, y, v);
		}
	return 0;
}

/* A bank of `n` images shaped so. */
static int build_tmh(const struct tex_shape *shapes, uint32_t n, struct rng *r,
		     uint8_t **out, size_t *len, char *why, size_t why_len)
{
	struct tmh t = {0};
	struct mh_diag d = {0};
	int rc = -1;
	if (!(t.images = calloc(n, sizeof *t.images)))
		goto out;
	t.count = n;
	for (uint32_t i = 0; i < n; i++)
		if (build_image(&shapes[i], r, &t.images[i]))
			goto out;
	if (!tmh_encode(&t, out, len, &d))
		rc = 0;
out:
	if (rc)
		snprintf(why, why_len, "tmh: %s", d.msg[0] ? d.msg : "out of memory");
	tmh_free(&t);
	return rc;
}

/* A bank's own stream, derived from r's state without drawing from r. */
static struct rng tex_stream(const struct rng *r)
{
	return (struct rng){r->x ^ 0x746578747572ull};
}

uint8_t *mkmodel_tmh(const struct rng *from, size_t *len, char *why, size_t why_len)
{
	struct rng own = tex_stream(from), *r = &own;
	static const enum tmh_format FORMATS[] = {TMH_INDEX4, TMH_INDEX8, TMH_INDEX4, TMH_INDEX8,
						  TMH_RGBA5551, TMH_RGBA8888, TMH_DXT1};
	struct tex_shape shapes[3];
	uint32_t n = rng_range(r, 1, 3);
	for (uint32_t i = 0; i < n; i++) {
		shapes[i].format = FORMATS[rng_below(r, sizeof FORMATS / sizeof *FORMATS)];
		shapes[i].clut_format = rng_below(r, 2) ? TMH_RGBA5551 : TMH_RGBA8888;
		shapes[i].width = (uint16_t)(8u << rng_below(r, 3));
		shapes[i].height = (uint16_t)(8u << rng_below(r, 3));
	}
	uint8_t *out = NULL;
	return build_tmh(shapes, n, r, &out, len, why, why_len) ? NULL : out;
}

/* The Tigrex's bank: the game's two indexed formats with CLUTs of both
 * kinds, the one direct format it uses, an image too narrow to be
 * swizzled, and a DXT1 one (read-only). */
static const struct tex_shape TIGREX_TEX[] = {
	{TMH_INDEX4, TMH_RGBA5551, 32, 32}, {TMH_INDEX8, TMH_RGBA8888, 32, 16},
	{TMH_RGBA8888, 0, 16, 8},           {TMH_INDEX4, TMH_RGBA8888, 8, 8},
	{TMH_DXT1, 0, 16, 16},
};
/* The other 16-bit formats, an 8-bit image whose last band of rows is
 * cut short, and a second bank. */
static const struct tex_shape FOUR_TEX[] = {
	{TMH_RGB565, 0, 16, 16}, {TMH_RGBA5551, 0, 8, 8}, {TMH_RGBA4444, 0, 8, 8},
	{TMH_INDEX8, TMH_RGBA5551, 32, 12},
};
static const struct tex_shape FOUR_TEX2[] = {{TMH_INDEX4, TMH_RGBA5551, 64, 32}};
static const struct tex_shape P3RD_TEX[] = {
	{TMH_INDEX8, TMH_RGBA8888, 32, 32}, {TMH_INDEX4, TMH_RGBA5551, 16, 16},
};
static const struct tex_shape P3RD_TEX2[] = {{TMH_INDEX4, TMH_RGBA8888, 32, 8}};
static const struct tex_shape STATIC_TEX[] = {{TMH_INDEX4, TMH_RGBA5551, 16, 16}};
#define TEX_COUNT(shapes) ((uint32_t)(sizeof shapes / sizeof *shapes))
#define TEX(shapes) shapes, TEX_COUNT(shapes)

/* A blob behind a magic: PMO stand-ins. */
static uint8_t *magic_blob(struct rng *r, const char *magic, size_t magic_len,
			   size_t *len)
{
	*len = rng_range(r, 256, 4096);
	uint8_t *p = malloc(*len);
	if (p) {
		rng_bytes(r, p, *len);
		memcpy(p, magic, magic_len);
	}
	return p;
}

/* A model's bank, shaped so (NULL: at random), where the sample had a
 * stand-in: r still makes the stand-in's draws, so every member after it
 * is as it was, and the bank draws from a stream of its own. */
static int tex_member(const struct tex_shape *shapes, uint32_t n, struct rng *r,
		      uint8_t **out, size_t *len, char *why, size_t why_len)
{
	struct rng own = tex_stream(r);
	int rc = shapes ? build_tmh(shapes, n, &own, out, len, why, why_len)
		 : (*out = mkmodel_tmh(r, len, why, why_len)) ? 0 : -1;
	size_t standin_len;
	free(magic_blob(r, TMH_MAGIC, TMH_MAGIC_LEN, &standin_len));
	return rc;
}

/* ---- geometry -------------------------------------------------------------
 * PMOs shaped like the retail ones (mkpmo_body): a surface around each
 * bone of the PAC's skeleton, textured from the PAC's bank. */

struct body_shape {
	bool p3rd, companion, tool;
	unsigned meshes, sides, rings, tail;
};

static const struct body_shape TIGREX_BODY = {false, false, false, 7, 21, 3, 0};
static const struct body_shape FOUR_BODY = {false, false, false, 5, 10, 3, 0};
static const struct body_shape SMALL_BODY = {false, false, false, 3, 8, 3, 0};
/* The two-stream model's PMO went through a modding tool. */
static const struct body_shape TOOL_BODY = {false, false, true, 3, 8, 3, 0};
static const struct body_shape ODD_BODY = {false, false, false, 7, 12, 3, 0};
static const struct body_shape P3RD_BODY = {true, true, false, 7, 12, 3, 0x40};
static const struct body_shape P3RD_SET_BODY = {true, true, false, 6, 10, 3, 0};
static const struct body_shape P3RD_LOW_BODY = {true, false, false, 2, 6, 2, 0};
static const struct body_shape STATIC_BODY = {false, false, false, 3, 8, 3, 0};

/* The PMO's own stream, derived from r's state without drawing from r;
 * `at` is r where the sample had the stand-in. */
static uint64_t body_seed(const struct rng *at)
{
	return at->x ^ 0x706d6f626f6479ull;
}

/* Draws what the stand-in drew, so every member after it is as it was. */
static void skip_standin(struct rng *r)
{
	size_t standin_len;
	free(magic_blob(r, "pmo\0", 4, &standin_len));
}

/* The bind pose's joints of the encoded skeleton in skel. */
static struct mkpmo_bone *joints_of(const uint8_t *skel, size_t len, unsigned *n, char *why,
				    size_t why_len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	struct mkpmo_bone *bones = NULL;
	if (skeleton_decode(skel, len, &s, &d)) {
		snprintf(why, why_len, "skeleton: %s", d.msg);
		return NULL;
	}
	if (!(bones = calloc(s.nbones, sizeof *bones)))
		goto out;
	for (uint32_t b = 0; b < s.nbones; b++) {
		double world[3];
		if (rig_bind_world(&s, b, world, &d)) {
			snprintf(why, why_len, "skeleton: %s", d.msg);
			free(bones);
			bones = NULL;
			goto out;
		}
		bones[b].parent = s.bones[b].parent;
		for (int c = 0; c < 3; c++)
			bones[b].at[c] = (float)world[c];
	}
	*n = s.nbones;
out:
	skeleton_free(&s);
	return bones;
}

/* The images in a bank (0 when it does not decode: untextured). */
static uint32_t bank_images(const uint8_t *bank, size_t len)
{
	struct tmh t;
	uint32_t n = tmh_decode(bank, len, &t, NULL) ? 0 : t.count;
	tmh_free(&t);
	return n;
}

/* Whether codecs/pmo decodes m and encodes it back byte for byte. */
static int check_pmo(const struct mkpmo *m, char *why, size_t why_len)
{
	struct pmo p;
	struct mh_diag d = {0};
	uint8_t *out = NULL, *comp = NULL;
	size_t len = 0, comp_len = 0;
	int rc = -1;
	if (pmo_decode(m->pmo, m->len, m->companion, m->companion_len, &p, &d) ||
	    pmo_encode(&p, &out, &len, &comp, &comp_len, &d))
		snprintf(why, why_len, "pmo: %s", d.msg);
	else if (len != m->len || memcmp(out, m->pmo, len) || comp_len != m->companion_len ||
		 (comp_len && memcmp(comp, m->companion, comp_len)))
		snprintf(why, why_len, "pmo: does not encode back to its bytes");
	else
		rc = 0;
	free(out);
	free(comp);
	pmo_free(&p);
	return rc;
}

/* The PMO of shape around `bones`, its stream from `at`, textured from
 * `textures` images, skinned to them or static; checked with codecs/pmo. */
static int build_body(const struct body_shape *shape, const struct rng *at,
		      const struct mkpmo_bone *bones, unsigned n, bool skinned, uint32_t textures,
		      struct mkpmo *out, char *why, size_t why_len)
{
	struct mkpmo_body b = {
		.p3rd = shape->p3rd, .companion = shape->companion, .skinned = skinned,
		.tool = shape->tool, .meshes = shape->meshes, .sides = shape->sides,
		.rings = shape->rings, .textures = textures, .tail = shape->tail,
		.bones = bones, .nbones = n,
	};
	mkpmo_body(body_seed(at), &b, out);
	if (check_pmo(out, why, why_len)) {
		mkpmo_free(out);
		return -1;
	}
	return 0;
}

/* build_body on the skeleton in skel, skinned. */
static int build_skinned(const struct body_shape *shape, const struct rng *at,
			 const uint8_t *skel, size_t skel_len, uint32_t textures, struct mkpmo *out,
			 char *why, size_t why_len)
{
	unsigned n = 0;
	struct mkpmo_bone *bones = joints_of(skel, skel_len, &n, why, why_len);
	if (!bones)
		return -1;
	int rc = build_body(shape, at, bones, n, true, textures, out, why, why_len);
	free(bones);
	return rc;
}

/* A model PAC's PMO member: build_body's PMO, its bytes the caller's. */
static int body_member(const struct body_shape *shape, const struct rng *at, uint8_t *const *bytes,
		       const size_t *sizes, uint32_t skel, uint32_t bank, uint8_t **out,
		       size_t *len, char *why, size_t why_len)
{
	struct mkpmo m;
	if (build_skinned(shape, at, bytes[skel], sizes[skel], bank_images(bytes[bank], sizes[bank]),
			  &m, why, why_len))
		return -1;
	*out = m.pmo;
	*len = m.len;
	m.pmo = NULL;
	mkpmo_free(&m);
	return 0;
}

/* A model PAC: its members in order ({NULL, 0} empty), 16-aligned, padded
 * with a tail to the next block, as a PAC cut from DATA.BIN is. */
static uint8_t *model_pac(struct pac_blob *members, uint32_t count,
			  const char *tail_mark, size_t *len, char *why, size_t why_len)
{
	uint8_t *body, *out;
	size_t body_len;
	struct mh_diag d = {0};
	if (pac_encode(members, count, 16, NULL, 0, &body, &body_len, &d)) {
		snprintf(why, why_len, "pac: %s", d.msg);
		return NULL;
	}
	size_t tail_len = 2048 - body_len % 2048;
	uint8_t *tail = calloc(1, tail_len);
	if (tail && tail_mark)
		memcpy(tail, tail_mark, strlen(tail_mark) < tail_len ? strlen(tail_mark) : tail_len);
	if (!tail || pac_encode(members, count, 16, tail, tail_len, &out, len, &d)) {
		snprintf(why, why_len, "pac: %s", tail ? d.msg : "out of memory");
		out = NULL;
	}
	free(body);
	free(tail);
	return out;
}

static const struct rig_shape TIGREX_RIG = {SKELETON_MHFU, {31, 9, 5}, 3, false, 3};
static const struct pack_shape TIGREX_PACK = {
	CLIP_MHFU, 6, {100, 105, 100, 105, 100, 105}, {62, 0, 64, 0, 62, 0},
	{31, 31, 9, 9, 5, 5}, {24, 25}, 2, 1, 0, "tail\x01\x02\x03\x04mhfufs tigrex",
};
static const struct rig_shape FOUR_RIG = {SKELETON_MHFU, {20, 8}, 2, true, 0};
static const struct pack_shape FOUR_PACK = {
	CLIP_MHFU, 4, {100, 100, 100, 100}, {30, 12, 20, 8}, {20, 20, 8, 8},
	{0, 0}, 0, 1, 1, NULL,
};
static const struct rig_shape SMALL_RIG = {SKELETON_MHFU, {17}, 0, false, 0};
static const struct pack_shape TWO_PACK = {
	CLIP_MHFU, 2, {100, 105}, {25, 10}, {17, 17}, {0, 0}, 0, 1, 0, NULL,
};
/* Odd streams filled in every part, as many natives have them: entries
 * 100-119 and 122 play everywhere, 120 and 121 the head's stream 3
 * alone, 123 and 124 every part but the head; 20 and 21 no part. */
static const struct rig_shape ODD_RIG = {SKELETON_MHFU, {26, 8, 6}, 2, false, 0};
static const struct pack_shape ODD_PACK = {
	CLIP_MHFU, 6, {100, 105, 100, 105, 100, 105}, {40, 23, 40, 23, 40, 23},
	{26, 26, 8, 8, 6, 6}, {20, 21}, 3, 1, 1, NULL,
};
static const struct rig_shape P3RD_RIG = {SKELETON_MHP3RD, {43}, 3, false, 0};
static const struct pack_shape P3RD_PACK = {
	CLIP_P3RD, 3, {100, 30, 0}, {70, 20, 0}, {43, 43, 0}, {0, 0}, 0, 6, 0, NULL,
};

/* An MHP3rd model's rig: one of the three shapes. */
struct p3rd_rig {
	const struct rig_shape *parts;
	const struct quad_shape *quad;
	const struct brute_shape *brute;
};

static const struct p3rd_rig P3RD_MODEL_RIG = {&P3RD_RIG, NULL, NULL};

static const struct quad_shape RATHIAN_RIG = {2, 2, 12, 12, 2};
static const struct quad_shape RATHALOS_RIG = {1, 3, 12, 12, 2};
/* 51 bones: em040's skip list reaches bone 47. */
static const struct quad_shape ZINOGRE_RIG = {0, 1, 23, 21, 5};
/* 47 bones, 44 animated. */
static const struct brute_shape BRUTE_RIG = {4, 8, 10, 5, 3};

/* The MHP3rd groups' sets: a rig, a moveset of as many records as the
 * rig's animated joints the skip list leaves, the first ones moving (on
 * the fork or above it). */
static const struct {
	enum mkmodel model;
	struct p3rd_rig rig;
	struct pack_shape pack;
} P3RD_SETS[] = {
	{MODEL_RATHIAN, {NULL, &RATHIAN_RIG, NULL},
	 {CLIP_P3RD, 2, {40, 10}, {12, 4}, {24, 24}, {0, 0}, 0, 2, 0, NULL}},
	{MODEL_RATHALOS, {NULL, &RATHALOS_RIG, NULL},
	 {CLIP_P3RD, 2, {40, 10}, {12, 4}, {25, 25}, {0, 0}, 0, 3, 0, NULL}},
	{MODEL_ZINOGRE, {NULL, &ZINOGRE_RIG, NULL},
	 {CLIP_P3RD, 3, {60, 20, 0}, {16, 6, 0}, {37, 37, 0}, {0, 0}, 0, 2, 0, NULL}},
	/* Clip ids 0-57 and 100-118: 24 among them, which the Tigrex's
	 * head plays alone. */
	{MODEL_BRUTE_TIGREX, {NULL, NULL, &BRUTE_RIG},
	 {CLIP_P3RD, 2, {100, 30}, {58, 19}, {44, 44}, {0, 0}, 0, 2, 0, NULL}},
	/* Every slot filled: more clip ids than the Tigrex has entries. */
	{MODEL_ZINOGRE_FULL, {NULL, &ZINOGRE_RIG, NULL},
	 {CLIP_P3RD, 3, {100, 30, 10}, {100, 30, 10}, {37, 37, 37}, {0, 0}, 0, 2, 0, NULL}},
};

/* The identity donor's monster: an id no table or skip list knows. */
#define TIGREX_DONOR_EM 99

/* The overlays opening the groups: their names. */
static const struct {
	enum mkmodel model;
	const char *name;
} OVERLAYS[] = {
	{MODEL_EM001_OVERLAY0, "em001m0.ovl"}, {MODEL_EM001_OVERLAY1, "em001m1.ovl"},
	{MODEL_EM040_OVERLAY0, "em040m0.ovl"}, {MODEL_EM040_OVERLAY1, "em040m1.ovl"},
	{MODEL_EM023_OVERLAY0, "em023m0.ovl"}, {MODEL_EM023_OVERLAY1, "em023m1.ovl"},
	{MODEL_EM099_OVERLAY0, "em099m0.ovl"}, {MODEL_EM099_OVERLAY1, "em099m1.ovl"},
};

/* An AI overlay: "MWo3", a header whose name sits at RECORDS_OVERLAY_NAME_AT, code. */
static uint8_t *overlay(struct rng *r, const char *name, size_t *len)
{
	uint8_t *p = magic_blob(r, "MWo3", 4, len);
	if (p) {
		memset(p + RECORDS_OVERLAY_NAME_AT, 0, RECORDS_OVERLAY_HEAD - RECORDS_OVERLAY_NAME_AT);
		memcpy(p + RECORDS_OVERLAY_NAME_AT, name, strlen(name));
	}
	return p;
}

/* An MHP3rd model's skeleton. */
static int p3rd_skeleton(const struct p3rd_rig *rig, struct rng *r, uint8_t **out, size_t *len,
			 char *why, size_t why_len)
{
	return rig->parts ? build_skeleton(rig->parts, r, out, len, why, why_len)
	       : rig->quad ? build_quadruped(rig->quad, r, out, len, why, why_len)
			   : build_brute(rig->brute, r, out, len, why, why_len);
}

/* An MHP3rd model PAC's members: skeleton, PMO (its region in the
 * companion entry after the PAC), TMH, low-detail PMO, TMH. */
static int p3rd_members(const struct p3rd_rig *rig, const struct body_shape *body, struct rng *r,
			uint8_t **bytes, size_t *sizes, char *why, size_t why_len)
{
	if (p3rd_skeleton(rig, r, &bytes[0], &sizes[0], why, why_len))
		return -1;
	struct rng at_body = *r;
	skip_standin(r);
	if (tex_member(TEX(P3RD_TEX), r, &bytes[2], &sizes[2], why, why_len))
		return -1;
	struct rng at_low = *r;
	skip_standin(r);
	return tex_member(TEX(P3RD_TEX2), r, &bytes[4], &sizes[4], why, why_len) ||
	       body_member(body, &at_body, bytes, sizes, 0, 2, &bytes[1], &sizes[1], why,
			   why_len) ||
	       body_member(&P3RD_LOW_BODY, &at_low, bytes, sizes, 0, 4, &bytes[3], &sizes[3],
			   why, why_len);
}

/* The companion entry after an MHP3rd model PAC (`model`, built from
 * seed): its PMO's region and tail, made again as the PAC makes it. */
static uint8_t *p3rd_geometry(enum mkmodel model, const struct p3rd_rig *rig,
			      const struct body_shape *body, uint64_t seed, size_t *len, char *why,
			      size_t why_len)
{
	struct rng r;
	uint8_t *skel = NULL;
	size_t skel_len = 0;
	struct mkpmo m;
	rng_init(&r, seed, 0x6d6f64656c00u + model);
	if (p3rd_skeleton(rig, &r, &skel, &skel_len, why, why_len))
		return NULL;
	int rc = build_skinned(body, &r, skel, skel_len, TEX_COUNT(P3RD_TEX), &m, why, why_len);
	free(skel);
	if (rc)
		return NULL;
	uint8_t *out = m.companion;
	*len = m.companion_len;
	m.companion = NULL;
	mkpmo_free(&m);
	return out;
}

/* A small monster's body without a skeleton: a trunk, a head, a tail and
 * four two-joint legs, each joint moved a little at random. */
static void critter(struct rng *r, struct mkpmo_bone bones[12])
{
	static const struct mkpmo_bone SHAPE[12] = {
		{-1, {0, 60, 0}},   {0, {0, 70, 50}},   {1, {0, 85, 90}},  {0, {0, 55, -60}},
		{1, {15, 30, 35}},  {4, {15, 0, 35}},   {1, {-15, 30, 35}}, {6, {-15, 0, 35}},
		{0, {15, 30, -25}}, {8, {15, 0, -25}},  {0, {-15, 30, -25}}, {10, {-15, 0, -25}},
	};
	for (int b = 0; b < 12; b++) {
		bones[b] = SHAPE[b];
		for (int c = 0; c < 3; c++)
			bones[b].at[c] += (float)((int)rng_below(r, 11) - 5);
	}
}

/* The small monster's PAC members: its static PMO and its bank. */
static int static_members(struct rng *r, uint8_t **bytes, size_t *sizes, char *why,
			  size_t why_len)
{
	struct mkpmo_bone bones[12];
	struct mkpmo m;
	critter(r, bones);
	struct rng at = *r;
	if (tex_member(TEX(STATIC_TEX), r, &bytes[1], &sizes[1], why, why_len) ||
	    build_body(&STATIC_BODY, &at, bones, 12, false, TEX_COUNT(STATIC_TEX), &m, why,
		       why_len))
		return -1;
	bytes[0] = m.pmo;
	sizes[0] = m.len;
	m.pmo = NULL;
	mkpmo_free(&m);
	return 0;
}

/* ---- the identity donor -----------------------------------------------------
 * The MHFU sample's Tigrex offered as an MHP3rd donor: its rig as an
 * MHP3rd skeleton of the same bones, an MHP3rd PMO around it textured
 * from its bank, and a moveset whose clip id e (stream e / 100, slot
 * e % 100) is the whole-rig clip the Tigrex plays as entry e, for each
 * entry its part 0 fills: the parts' tracks in joint order, the part-0
 * clip's loop.  A part whose slot for the entry is empty (none, on this
 * Tigrex) gets rest tracks, as a port gives a joint no record drives
 * (port.h): the engine would keep whatever that part played before,
 * which no clip of its own says.  Its overlays name an id no table
 * knows, so its record map is offset 0 without skips: porting it back
 * onto the Tigrex gives the Tigrex's motions. */

/* What the donor is made of: the Tigrex's rig, pack and bank, and the
 * rig as MHP3rd's, encoded. */
struct tigrex_donor_parts {
	struct skeleton rig;
	struct anim pack;
	uint8_t *bank, *skel;
	size_t bank_len, skel_len;
};

static void tigrex_donor_parts_free(struct tigrex_donor_parts *t)
{
	skeleton_free(&t->rig);
	anim_free(&t->pack);
	free(t->bank);
	free(t->skel);
	memset(t, 0, sizeof *t);
}

/* The Tigrex's rig as an MHP3rd skeleton: the same bones (parents,
 * links, kinds, bind offsets), named as finish_skeleton names them, all
 * in part 0; params as finish_skeleton sets MHP3rd's. */
static int donor_skeleton(const struct skeleton *fu, uint8_t **out, size_t *len, char *why,
			  size_t why_len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	if (skeleton_init(&s, SKELETON_MHP3RD, fu->nbones, &d)) {
		snprintf(why, why_len, "donor skeleton: %s", d.msg);
		return -1;
	}
	for (uint32_t b = 0; b < fu->nbones; b++) {
		struct skeleton_bone *bone = &s.bones[b];
		*bone = fu->bones[b];
		bone->part = 0;
		memset(bone->rest, 0, sizeof bone->rest);
		snprintf((char *)bone->rest, SKELETON_NAME_LEN, "b%03u", b % 1000);
	}
	uint32_t params[] = {0, fu->nparams > 1 ? fu->params[1] : fu->nbones, 0};
	skeleton_set_params(&s, 3, params);
	s.params_count = 2;
	int rc = 0;
	if (skeleton_encode(&s, out, len, &d)) {
		snprintf(why, why_len, "donor skeleton: %s", d.msg);
		rc = -1;
	}
	skeleton_free(&s);
	return rc;
}

/* The Tigrex of the MHFU sample built from `seed`, taken apart. */
static int tigrex_donor_parts(uint64_t seed, struct tigrex_donor_parts *t, char *why,
			      size_t why_len)
{
	struct pac pac;
	struct mh_diag d = {0};
	size_t len;
	memset(t, 0, sizeof *t);
	uint8_t *p = mkmodel_build(MODEL_TIGREX, seed, &len, why, why_len);
	if (!p)
		return -1;
	int rc = -1;
	if (pac_decode(p, len, &pac, &d)) {
		snprintf(why, why_len, "tigrex: %s", d.msg);
		free(p);
		return -1;
	}
	/* Its members: skeleton, PMO, bank, pack (mkmodel_build). */
	const struct pac_entry *e = pac.entries;
	if (pac.count < 4 || skeleton_decode(p + e[0].offset, e[0].size, &t->rig, &d) ||
	    anim_decode(p + e[3].offset, e[3].size, CLIP_NONE, &t->pack, &d))
		snprintf(why, why_len, "tigrex: %s", d.msg[0] ? d.msg : "not a model PAC");
	else if (!(t->bank = malloc(e[2].size)))
		snprintf(why, why_len, "out of memory");
	else {
		memcpy(t->bank, p + e[2].offset, e[2].size);
		t->bank_len = e[2].size;
		rc = donor_skeleton(&t->rig, &t->skel, &t->skel_len, why, why_len);
	}
	pac_free(&pac);
	free(p);
	if (rc)
		tigrex_donor_parts_free(t);
	return rc;
}

/* A copy of track t appended to c: channels and keys as they are. */
static int copy_track(struct clip *c, const struct clip_track *t)
{
	struct clip_track *to = clip_add_track(c, t->mask);
	for (uint32_t k = 0; to && k < t->nchannels; k++) {
		struct clip_channel *ch = clip_add_channel(to, t->channels[k].bit);
		for (uint32_t i = 0; ch && i < t->channels[k].nkeys; i++)
			if (!clip_add_key(ch, t->channels[k].keys[i]))
				ch = NULL;
		if (!ch)
			to = NULL;
	}
	return to ? 0 : -1;
}

/* A rest track appended to c: rotation X, Y and Z keyed 0 at frame 0
 * and at `last` (at least PORT_REST_SPAN), as a port makes one. */
static int rest_track(struct clip *c, int32_t last)
{
	static const uint32_t rot[] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	struct clip_track *t = clip_add_track(c, 0);
	int16_t end = (int16_t)(last > PORT_REST_SPAN ? last : PORT_REST_SPAN);
	for (int k = 0; t && k < 3; k++) {
		struct clip_channel *ch = clip_add_channel(t, rot[k]);
		if (!ch || !clip_add_key(ch, (struct clip_key){0, 0, 0, 0}) ||
		    !clip_add_key(ch, (struct clip_key){0, end, 0, 0}))
			t = NULL;
	}
	return t ? 0 : -1;
}

/* Entry e of the Tigrex's pack as one whole-rig clip into *c; false
 * when part 0 does not fill it. */
static int donor_clip(const struct tigrex_donor_parts *t, uint32_t e, struct clip *c, bool *filled,
		      char *why, size_t why_len)
{
	const struct anim *fu = &t->pack;
	uint32_t stream, slot;
	int32_t lead = entries_part_clip(fu, e, 0, &stream, &slot);
	memset(c, 0, sizeof *c);
	if (!(*filled = lead >= 0))
		return 0;
	c->loop = fu->clips[lead].loop;
	c->loop_start = fu->clips[lead].loop_start;
	for (uint32_t k = 0, at = 0; k < entries_parts(fu); k++) {
		uint32_t first, count;
		if (!rig_part_joints(&t->rig, k, &first, &count) || first != at) {
			snprintf(why, why_len, "tigrex: part %u is not the joints after part %u", k,
				 k - 1);
			return -1;
		}
		int32_t clip = entries_part_clip(fu, e, k, &stream, &slot);
		const struct clip *from = clip >= 0 ? &fu->clips[clip] : NULL;
		for (uint32_t j = 0; j < count; j++)
			if (from && j < from->ntracks ? copy_track(c, &from->tracks[j])
						      : rest_track(c, entries_clip_frames(
									 &fu->clips[lead]))) {
				snprintf(why, why_len, "out of memory");
				return -1;
			}
		at += count;
	}
	return 0;
}

/* The donor's moveset: clip id e for each entry e part 0 fills, in as
 * many streams (of the same slots) as part 0 has. */
static int donor_moveset(const struct tigrex_donor_parts *t, uint8_t **out, size_t *len,
			 char *why, size_t why_len)
{
	const struct anim *fu = &t->pack;
	struct anim a;
	struct mh_diag d = {0};
	uint32_t nstreams = fu->nstreams < 2 ? fu->nstreams : 2, slots[2] = {0, 0};
	for (uint32_t s = 0; s < nstreams; s++)
		slots[s] = fu->streams[s].nslots;
	if (anim_init(&a, CLIP_P3RD, nstreams, slots, &d))
		goto fail;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		struct clip c;
		bool filled;
		int32_t clip;
		if (donor_clip(t, e, &c, &filled, why, why_len)) {
			clip_free(&c);
			anim_free(&a);
			return -1;
		}
		if (!filled)
			continue;
		if ((clip = anim_add_clip(&a, &c)) < 0) {
			clip_free(&c);
			snprintf(d.msg, sizeof d.msg, "out of memory");
			goto fail;
		}
		if (anim_set_slot(&a, e / 100, e % 100, clip, &d))
			goto fail;
	}
	if (anim_compact(&a, &d) || anim_encode(&a, out, len, &d))
		goto fail;
	anim_free(&a);
	return 0;
fail:
	snprintf(why, why_len, "donor moveset: %s", d.msg);
	anim_free(&a);
	return -1;
}

/* Fails unless the donor's record map, as the mount makes it, is the
 * identity: offset 0 by the fork rule, no skips. */
static int check_identity_map(const struct tigrex_donor_parts *t, const uint8_t *moveset,
			      size_t len, char *why, size_t why_len)
{
	struct skeleton s;
	struct anim a;
	struct records map = {0};
	struct mh_diag d = {0};
	int rc = -1;
	if (skeleton_decode(t->skel, t->skel_len, &s, &d)) {
		snprintf(why, why_len, "donor skeleton: %s", d.msg);
		return -1;
	}
	if (anim_decode(moveset, len, CLIP_NONE, &a, &d) ||
	    records_init(&map, &s, &a, TIGREX_DONOR_EM, &d))
		snprintf(why, why_len, "donor moveset: %s", d.msg);
	else if (map.offset || map.nskip || !map.fork_kept)
		snprintf(why, why_len,
			 "the identity donor's record map has offset %u and %u skips (fork %d%s), "
			 "not offset 0 and none", map.offset, map.nskip, (int)map.fork,
			 map.fork_kept ? "" : ", rule broken");
	else
		rc = 0;
	records_free(&map);
	anim_free(&a);
	skeleton_free(&s);
	return rc;
}

/* The identity donor's model PAC (skeleton, PMO, bank), its geometry or
 * its moveset. */
static uint8_t *tigrex_donor(enum mkmodel model, uint64_t seed, size_t *len, char *why,
			     size_t why_len)
{
	struct tigrex_donor_parts t;
	struct mkpmo body;
	struct rng at;
	uint8_t *out = NULL;
	if (tigrex_donor_parts(seed, &t, why, why_len))
		return NULL;
	if (model == MODEL_TIGREX_DONOR_MOVESET) {
		if (!donor_moveset(&t, &out, len, why, why_len) &&
		    check_identity_map(&t, out, *len, why, why_len)) {
			free(out);
			out = NULL;
		}
		tigrex_donor_parts_free(&t);
		return out;
	}
	rng_init(&at, seed, 0x6d6f64656c00u + MODEL_TIGREX_DONOR);
	if (build_skinned(&P3RD_SET_BODY, &at, t.skel, t.skel_len, bank_images(t.bank, t.bank_len),
			  &body, why, why_len)) {
		tigrex_donor_parts_free(&t);
		return NULL;
	}
	if (model == MODEL_TIGREX_DONOR_GEOMETRY) {
		out = body.companion;
		*len = body.companion_len;
		body.companion = NULL;
	} else {
		struct pac_blob m[3] = {
			{t.skel, (uint32_t)t.skel_len},
			{body.pmo, (uint32_t)body.len},
			{t.bank, (uint32_t)t.bank_len},
		};
		out = model_pac(m, 3, NULL, len, why, why_len);
	}
	mkpmo_free(&body);
	tigrex_donor_parts_free(&t);
	return out;
}

/* The set whose model, geometry or moveset `model` is: its index, and
 * which of the three (0, 1, 2); -1 when none. */
static int p3rd_set_of(enum mkmodel model, int *which)
{
	for (size_t i = 0; i < sizeof P3RD_SETS / sizeof *P3RD_SETS; i++)
		if (model >= P3RD_SETS[i].model && model <= P3RD_SETS[i].model + 2) {
			*which = (int)(model - P3RD_SETS[i].model);
			return (int)i;
		}
	return -1;
}

uint8_t *mkmodel_build(enum mkmodel model, uint64_t seed, size_t *len,
		       char *why, size_t why_len)
{
	struct rng r;
	struct pac_blob m[7] = {{0}};
	uint8_t *bytes[7] = {0}, *out = NULL;
	size_t sizes[7] = {0};
	uint32_t count = 0;
	const char *mark = NULL;
	rng_init(&r, seed, 0x6d6f64656c00u + model);

	switch (model) {
	case MODEL_TIGREX:
	case MODEL_FOUR_STREAMS:
	case MODEL_TWO_STREAMS:
	case MODEL_ODD_STREAMS: {
		const struct rig_shape *rig = model == MODEL_TIGREX ? &TIGREX_RIG
					      : model == MODEL_FOUR_STREAMS ? &FOUR_RIG
					      : model == MODEL_ODD_STREAMS ? &ODD_RIG : &SMALL_RIG;
		const struct pack_shape *pack = model == MODEL_TIGREX ? &TIGREX_PACK
						: model == MODEL_FOUR_STREAMS ? &FOUR_PACK
						: model == MODEL_ODD_STREAMS ? &ODD_PACK : &TWO_PACK;
		const struct body_shape *body = model == MODEL_TIGREX ? &TIGREX_BODY
						: model == MODEL_FOUR_STREAMS ? &FOUR_BODY
						: model == MODEL_ODD_STREAMS ? &ODD_BODY : &TOOL_BODY;
		count = 7;
		if (build_skeleton(rig, &r, &bytes[0], &sizes[0], why, why_len))
			goto out;
		struct rng at_body = r, at_second;
		skip_standin(&r);
		if (tex_member(model == MODEL_TIGREX ? TIGREX_TEX
			       : model == MODEL_FOUR_STREAMS ? FOUR_TEX : NULL,
			       model == MODEL_TIGREX ? TEX_COUNT(TIGREX_TEX) : TEX_COUNT(FOUR_TEX),
			       &r, &bytes[2], &sizes[2], why,
			       why_len) ||
		    build_pack(pack, &r, &bytes[3], &sizes[3], why, why_len) ||
		    body_member(body, &at_body, bytes, sizes, 0, 2, &bytes[1], &sizes[1], why,
				why_len))
			goto out;
		if (model == MODEL_FOUR_STREAMS) { /* a second, small model set */
			if (build_skeleton(&SMALL_RIG, &r, &bytes[4], &sizes[4], why, why_len))
				goto out;
			at_second = r;
			skip_standin(&r);
			if (tex_member(TEX(FOUR_TEX2), &r, &bytes[6], &sizes[6], why, why_len) ||
			    body_member(&SMALL_BODY, &at_second, bytes, sizes, 4, 6, &bytes[5],
					&sizes[5], why, why_len))
				goto out;
		}
		mark = model == MODEL_TIGREX ? "em75 tail" : NULL;
		break;
	}
	case MODEL_P3RD:
		count = 5;
		if (p3rd_members(&P3RD_MODEL_RIG, &P3RD_BODY, &r, bytes, sizes, why, why_len))
			goto out;
		break;
	case MODEL_P3RD_GEOMETRY:
		out = p3rd_geometry(MODEL_P3RD, &P3RD_MODEL_RIG, &P3RD_BODY, seed, len, why,
				    why_len);
		goto out;
	case MODEL_STATIC:
		count = 2;
		if (static_members(&r, bytes, sizes, why, why_len))
			goto out;
		break;
	case MODEL_P3RD_MOVESET:
		build_pack(&P3RD_PACK, &r, &out, len, why, why_len);
		goto out;
	case MODEL_TIGREX_DONOR:
	case MODEL_TIGREX_DONOR_GEOMETRY:
	case MODEL_TIGREX_DONOR_MOVESET:
		out = tigrex_donor(model, seed, len, why, why_len);
		goto out;
	case MODEL_COUNT:
		goto out;
	default: {
		int which, set = p3rd_set_of(model, &which);
		for (size_t i = 0; i < sizeof OVERLAYS / sizeof *OVERLAYS; i++)
			if (OVERLAYS[i].model == model)
				out = overlay(&r, OVERLAYS[i].name, len);
		if (set < 0 || which == 1) {
			if (set >= 0)
				out = p3rd_geometry(P3RD_SETS[set].model, &P3RD_SETS[set].rig,
						    &P3RD_SET_BODY, seed, len, why, why_len);
			goto out;
		}
		if (which == 2) {
			build_pack(&P3RD_SETS[set].pack, &r, &out, len, why, why_len);
			goto out;
		}
		count = 5;
		if (p3rd_members(&P3RD_SETS[set].rig, &P3RD_SET_BODY, &r, bytes, sizes, why, why_len))
			goto out;
		break;
	}
	}
	for (uint32_t i = 0; i < count; i++)
		m[i] = (struct pac_blob){bytes[i], (uint32_t)sizes[i]};
	out = model_pac(m, count, mark, len, why, why_len);
out:
	for (uint32_t i = 0; i < 7; i++)
		free(bytes[i]);
	if (!out && !why[0])
		snprintf(why, why_len, "out of memory");
	return out;
}
