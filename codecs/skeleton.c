/* SPDX-License-Identifier: MIT */
/* Skeleton bytes <-> model (skeleton.h has the layout and the
 * invariants); the text form is in skeleton_print.c and
 * skeleton_parse.c. */
#include "skeleton.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* Offsets in the header and in a bone section: the one place they live. */
enum {
	H_MAGIC = 0x00,
	H_SECTIONS = 0x04,
	H_SIZE = 0x08,
	H_PTAG = 0x0C,
	H_PCOUNT = 0x10,
	H_PSIZE = 0x14,
	H_VALUES = 0x18,
	B_TAG = 0x00,
	B_COUNT = 0x04,
	B_SIZE = 0x08,
	B_INDEX = 0x0C,
	B_PARENT = 0x10,
	B_CHILD = 0x14,
	B_SIBLING = 0x18,
	B_SCALE = 0x1C,
	B_ROTATION = 0x2C,
	B_POSITION = 0x3C,
	B_LINK = 0x4C,
	B_PART = 0x50,
	B_REST = SKELETON_REST_OFF,
};

#define PSIZE_BASE 12u /* the params section's header */

static uint32_t f32_bits(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

static float bits_f32(uint32_t b)
{
	float v;
	memcpy(&v, &b, sizeof v);
	return v;
}

uint32_t skeleton_section_size(enum skeleton_game game)
{
	return game == SKELETON_MHP3RD ? SKELETON_SECTION_MHP3RD
				       : SKELETON_SECTION_MHFU;
}

uint32_t skeleton_rest_len(enum skeleton_game game)
{
	return skeleton_section_size(game) - SKELETON_REST_OFF;
}

const char *skeleton_game_name(enum skeleton_game game)
{
	return game == SKELETON_MHP3RD ? "mhp3rd" : "mhfu";
}

static uint64_t sections_start(uint32_t nparams)
{
	return H_VALUES + 4 * (uint64_t)nparams;
}

uint64_t skeleton_size(const struct skeleton *s)
{
	return sections_start(s->nparams) +
	       (uint64_t)s->nbones * skeleton_section_size(s->game);
}

/* ---- header checks shared by sniff and decode --------------------------- */

struct head {
	enum skeleton_game game;
	uint32_t nbones, nparams, secsize;
	uint64_t end; /* of the last bone section */
};

/* Checks the header in buf[0..len) of a skeleton `size` bytes long (len
 * may be less than size, never less than what it must hold: the caller
 * guarantees min(size, SKELETON_HEAD_MAX)). */
static enum mh_err check_head(const uint8_t *buf, size_t len, uint64_t size,
			      struct head *h, struct mh_diag *d)
{
	if (len < 4)
		return mh_fail(d, MH_ETRUNC, len, "%zu bytes: shorter than the "
			       "magic", len);
	uint32_t magic = le32(buf + H_MAGIC);
	if (magic == SKELETON_MAGIC_MHFU)
		h->game = SKELETON_MHFU;
	else if (magic == SKELETON_MAGIC_MHP3RD)
		h->game = SKELETON_MHP3RD;
	else
		return mh_fail(d, MH_EUNKNOWN, H_MAGIC, "magic 0x%08x is neither "
			       "0xc0000000 (MHFU) nor 0x80000000 (MHP3rd)", magic);
	if (len < H_VALUES || size < H_VALUES)
		return mh_fail(d, MH_ETRUNC, len, "%zu bytes: the header needs "
			       "%u", len, H_VALUES);
	uint32_t sections = le32(buf + H_SECTIONS);
	if (sections == 0 || sections - 1 > SKELETON_MAX_BONES)
		return mh_fail(d, MH_ECORRUPT, H_SECTIONS, "section count %u is "
			       "outside 1..%u (bones + 1)", sections,
			       SKELETON_MAX_BONES + 1);
	if (le32(buf + H_PTAG) != 0)
		return mh_fail(d, MH_ECORRUPT, H_PTAG, "params section tag "
			       "0x%08x is not 0", le32(buf + H_PTAG));
	uint32_t psize = le32(buf + H_PSIZE);
	if (psize < PSIZE_BASE + 4 || psize > PSIZE_BASE + 4 * SKELETON_MAX_PARAMS ||
	    psize % 4)
		return mh_fail(d, MH_ECORRUPT, H_PSIZE, "params section size %u "
			       "is not 16, 20 or 24 (12 + 4 per value, 1 to 3 "
			       "values)", psize);
	h->nbones = sections - 1;
	h->nparams = (psize - PSIZE_BASE) / 4;
	h->secsize = skeleton_section_size(h->game);
	uint64_t start = sections_start(h->nparams);
	if (size < start)
		return mh_fail(d, MH_ETRUNC, size, "%llu bytes: the %u params "
			       "values end at %llu", (unsigned long long)size,
			       h->nparams, (unsigned long long)start);
	h->end = start + (uint64_t)h->nbones * h->secsize;
	if (h->end > size) {
		uint32_t fit = (uint32_t)((size - start) / h->secsize);
		return mh_fail(d, MH_ETRUNC, start + (uint64_t)fit * h->secsize,
			       "bone %u of %u: its section ends at %llu, past "
			       "the %llu bytes", fit, h->nbones,
			       (unsigned long long)(start + (uint64_t)(fit + 1) *
						    h->secsize),
			       (unsigned long long)size);
	}
	return MH_OK;
}

/* Checks the words of bone i's section at p (file offset `at`) that the
 * model derives rather than holds. */
static enum mh_err check_bone(const uint8_t *p, uint64_t at, uint32_t i,
			      uint32_t secsize, struct mh_diag *d)
{
	uint32_t tag = le32(p + B_TAG), kind = tag & ~SKELETON_BONE_TAG;
	if ((tag & SKELETON_BONE_TAG) == 0 || kind < 1 || kind > 3)
		return mh_fail(d, MH_ECORRUPT, at + B_TAG, "bone %u: section tag "
			       "0x%08x is not 0x40000001..3", i, tag);
	if (le32(p + B_SIZE) != secsize)
		return mh_fail(d, MH_ECORRUPT, at + B_SIZE, "bone %u: section "
			       "size 0x%x, the game's are 0x%x", i,
			       le32(p + B_SIZE), secsize);
	if (le32(p + B_INDEX) != i)
		return mh_fail(d, MH_ECORRUPT, at + B_INDEX, "bone %u: index "
			       "field says %d", i, (int32_t)le32(p + B_INDEX));
	return MH_OK;
}

int skeleton_sniff(const uint8_t *head, size_t len, uint64_t size)
{
	struct head h = {0};
	if (len > size)
		len = (size_t)size;
	if (check_head(head, len, size, &h, NULL))
		return 0;
	uint64_t start = sections_start(h.nparams);
	if (h.nbones) {
		/* The first bone's tag, count and index words. */
		if (len < start + B_INDEX + 4 ||
		    check_bone(head + start, start, 0, h.secsize, NULL))
			return 0;
	}
	return le32(head + H_SIZE) == h.end ? 100 : 60;
}

/* ---- decode -------------------------------------------------------------- */

static void get_vec(const uint8_t *p, float v[4])
{
	for (int k = 0; k < 4; k++)
		v[k] = bits_f32(le32(p + 4 * k));
}

static void put_vec(uint8_t *p, const float v[4])
{
	for (int k = 0; k < 4; k++)
		put_le32(p + 4 * k, f32_bits(v[k]));
}

enum mh_err skeleton_decode(const uint8_t *buf, size_t len, struct skeleton *s,
			    struct mh_diag *d)
{
	memset(s, 0, sizeof *s);
	struct head h = {0};
	enum mh_err err = check_head(buf, len, len, &h, d);
	if (err)
		return err;
	if (len - h.end > SKELETON_MAX_TAIL)
		return mh_fail(d, MH_ERANGE, h.end, "tail of %llu bytes after "
			       "the last bone: more than %u",
			       (unsigned long long)(len - h.end),
			       SKELETON_MAX_TAIL);
	uint64_t at = sections_start(h.nparams);
	for (uint32_t i = 0; i < h.nbones; i++, at += h.secsize) {
		err = check_bone(buf + at, at, i, h.secsize, d);
		if (err)
			return err;
	}

	struct skeleton m = {
		.game = h.game,
		.nbones = h.nbones,
		.nparams = h.nparams,
		.params_count = le32(buf + H_PCOUNT),
		.tail_len = len - (size_t)h.end,
	};
	for (uint32_t k = 0; k < h.nparams; k++)
		m.params[k] = le32(buf + H_VALUES + 4 * k);
	uint32_t size_word = le32(buf + H_SIZE);
	if (size_word != h.end) {
		m.size_fixed = true;
		m.size_word = size_word;
	}
	m.bones = calloc(h.nbones ? h.nbones : 1, sizeof *m.bones);
	m.tail = malloc(m.tail_len ? m.tail_len : 1);
	if (!m.bones || !m.tail) {
		free(m.bones);
		free(m.tail);
		return mh_fail(d, MH_ENOMEM, 0, "%u bones and a tail of %zu bytes",
			       h.nbones, m.tail_len);
	}
	memcpy(m.tail, buf + h.end, m.tail_len);

	at = sections_start(h.nparams);
	uint32_t rest_len = h.secsize - B_REST;
	for (uint32_t i = 0; i < h.nbones; i++, at += h.secsize) {
		const uint8_t *p = buf + at;
		struct skeleton_bone *b = &m.bones[i];
		b->kind = le32(p + B_TAG) & ~SKELETON_BONE_TAG;
		b->count = le32(p + B_COUNT);
		b->parent = (int32_t)le32(p + B_PARENT);
		b->child = (int32_t)le32(p + B_CHILD);
		b->sibling = (int32_t)le32(p + B_SIBLING);
		get_vec(p + B_SCALE, b->scale);
		get_vec(p + B_ROTATION, b->rotation);
		get_vec(p + B_POSITION, b->position);
		b->link = (int32_t)le32(p + B_LINK);
		b->part = le32(p + B_PART);
		memcpy(b->rest, p + B_REST, rest_len);
	}
	*s = m;
	return MH_OK;
}

/* ---- encode -------------------------------------------------------------- */

static enum mh_err check_model(const struct skeleton *s, struct mh_diag *d)
{
	if (s->game != SKELETON_MHFU && s->game != SKELETON_MHP3RD)
		return mh_fail(d, MH_ERANGE, 0, "game %d is neither MHFU nor "
			       "MHP3rd", (int)s->game);
	if (s->nbones > SKELETON_MAX_BONES || (s->nbones && !s->bones))
		return mh_fail(d, MH_ERANGE, 0, "%u bones: at most %u",
			       s->nbones, SKELETON_MAX_BONES);
	if (s->nparams < 1 || s->nparams > SKELETON_MAX_PARAMS)
		return mh_fail(d, MH_ERANGE, 0, "%u params values: 1 to %u",
			       s->nparams, SKELETON_MAX_PARAMS);
	if (s->tail_len > SKELETON_MAX_TAIL || (s->tail_len && !s->tail))
		return mh_fail(d, MH_ERANGE, 0, "tail of %zu bytes: at most %u",
			       s->tail_len, SKELETON_MAX_TAIL);
	for (uint32_t i = 0; i < s->nbones; i++)
		if (s->bones[i].kind < 1 || s->bones[i].kind > 3)
			return mh_fail(d, MH_ERANGE, 0, "bone %u: kind %u is not "
				       "1, 2 or 3", i, s->bones[i].kind);
	return MH_OK;
}

enum mh_err skeleton_encode(const struct skeleton *s, uint8_t **out, size_t *len,
			    struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	enum mh_err err = check_model(s, d);
	if (err)
		return err;
	uint64_t end = skeleton_size(s);
	size_t total = (size_t)end + s->tail_len;
	uint8_t *buf = calloc(1, total);
	if (!buf)
		return mh_fail(d, MH_ENOMEM, 0, "skeleton of %zu bytes", total);

	put_le32(buf + H_MAGIC, s->game == SKELETON_MHP3RD ? SKELETON_MAGIC_MHP3RD
							   : SKELETON_MAGIC_MHFU);
	put_le32(buf + H_SECTIONS, s->nbones + 1);
	put_le32(buf + H_SIZE, s->size_fixed ? s->size_word : (uint32_t)end);
	put_le32(buf + H_PTAG, 0);
	put_le32(buf + H_PCOUNT, s->params_count);
	put_le32(buf + H_PSIZE, PSIZE_BASE + 4 * s->nparams);
	for (uint32_t k = 0; k < s->nparams; k++)
		put_le32(buf + H_VALUES + 4 * k, s->params[k]);

	uint32_t secsize = skeleton_section_size(s->game);
	uint8_t *p = buf + sections_start(s->nparams);
	for (uint32_t i = 0; i < s->nbones; i++, p += secsize) {
		const struct skeleton_bone *b = &s->bones[i];
		put_le32(p + B_TAG, SKELETON_BONE_TAG | b->kind);
		put_le32(p + B_COUNT, b->count);
		put_le32(p + B_SIZE, secsize);
		put_le32(p + B_INDEX, i);
		put_le32(p + B_PARENT, (uint32_t)b->parent);
		put_le32(p + B_CHILD, (uint32_t)b->child);
		put_le32(p + B_SIBLING, (uint32_t)b->sibling);
		put_vec(p + B_SCALE, b->scale);
		put_vec(p + B_ROTATION, b->rotation);
		put_vec(p + B_POSITION, b->position);
		put_le32(p + B_LINK, (uint32_t)b->link);
		put_le32(p + B_PART, b->part);
		memcpy(p + B_REST, b->rest, secsize - B_REST);
	}
	if (s->tail_len)
		memcpy(buf + end, s->tail, s->tail_len);
	*out = buf;
	*len = total;
	return MH_OK;
}

void skeleton_free(struct skeleton *s)
{
	if (!s)
		return;
	free(s->bones);
	free(s->tail);
	memset(s, 0, sizeof *s);
}

/* ---- building ------------------------------------------------------------ */

enum mh_err skeleton_init(struct skeleton *s, enum skeleton_game game,
			  uint32_t nbones, struct mh_diag *d)
{
	memset(s, 0, sizeof *s);
	if (game != SKELETON_MHFU && game != SKELETON_MHP3RD)
		return mh_fail(d, MH_ERANGE, 0, "game %d is neither MHFU nor "
			       "MHP3rd", (int)game);
	if (nbones > SKELETON_MAX_BONES)
		return mh_fail(d, MH_ERANGE, 0, "%u bones: at most %u", nbones,
			       SKELETON_MAX_BONES);
	struct skeleton_bone *bones = calloc(nbones ? nbones : 1, sizeof *bones);
	if (!bones)
		return mh_fail(d, MH_ENOMEM, 0, "%u bones", nbones);
	for (uint32_t i = 0; i < nbones; i++)
		bones[i] = (struct skeleton_bone){
			.kind = 1,
			.count = 1,
			.parent = -1,
			.child = -1,
			.sibling = -1,
			.scale = {1, 1, 1, 1},
			.rotation = {0, 0, 0, 1},
			.position = {0, 0, 0, 1},
			.link = -1,
		};
	s->game = game;
	s->nbones = nbones;
	s->bones = bones;
	s->nparams = 1;
	s->params_count = 1;
	return MH_OK;
}

void skeleton_link(struct skeleton *s, bool chain_roots)
{
	uint32_t n = s->nbones;
	for (uint32_t i = 0; i < n; i++)
		s->bones[i].child = s->bones[i].sibling = -1;
	/* Walking backwards, each bone becomes the newest first child of its
	 * parent, ahead of the later ones already linked. */
	int32_t first_root = -1;
	for (uint32_t j = n; j-- > 0;) {
		struct skeleton_bone *b = &s->bones[j];
		bool root = b->parent < 0 || (uint32_t)b->parent >= n ||
			    (uint32_t)b->parent == j;
		if (root) {
			if (chain_roots)
				b->sibling = first_root;
			first_root = (int32_t)j;
		} else {
			b->sibling = s->bones[b->parent].child;
			s->bones[b->parent].child = (int32_t)j;
		}
	}
}

void skeleton_set_params(struct skeleton *s, uint32_t n, const uint32_t *values)
{
	if (n < 1 || n > SKELETON_MAX_PARAMS)
		return;
	memset(s->params, 0, sizeof s->params);
	memcpy(s->params, values, n * sizeof *values);
	s->nparams = s->params_count = n;
}
