/* SPDX-License-Identifier: MIT */
/* Clips: the model's housekeeping and its two binary encodings (clip.h).
 *
 * Offsets and header sizes of both encodings live in the constants below,
 * shared by decoder and encoder.  The decoder checks every count against
 * the bytes its section's size leaves before allocating, so hostile input
 * can make it allocate no more than a small multiple of its own size. */
#include "clip.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

enum {
	KEY_SIZE = 8,
	FU_CLIP_HDR = 0x14, /* tag, count, size, loop, loop_start */
	FU_SEC_HDR = 12,    /* tag, count, size: tracks and channels */
	P3_CLIP_HDR = 0x10, /* tracks, size, loop, loop_start */
	P3_TRACK_HDR = 4,   /* u16 channels, u16 size */
	P3_CHAN_HDR = 8,    /* u16 bit, u16 keys, u32 size */
};

/* ---- model ------------------------------------------------------------ */

static void channel_free(struct clip_channel *ch)
{
	free(ch->keys);
	memset(ch, 0, sizeof *ch);
}

static void track_free(struct clip_track *t)
{
	for (uint32_t i = 0; i < t->nchannels; i++)
		channel_free(&t->channels[i]);
	free(t->channels);
	memset(t, 0, sizeof *t);
}

void clip_free(struct clip *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->ntracks; i++)
		track_free(&c->tracks[i]);
	free(c->tracks);
	memset(c, 0, sizeof *c);
}

static bool keys_equal(const struct clip_key *a, const struct clip_key *b)
{
	return a->value == b->value && a->frame == b->frame &&
	       a->ease_in == b->ease_in && a->ease_out == b->ease_out;
}

bool clip_equal(const struct clip *a, const struct clip *b)
{
	if (a->loop != b->loop || a->ntracks != b->ntracks ||
	    memcmp(&a->loop_start, &b->loop_start, sizeof a->loop_start))
		return false;
	for (uint32_t i = 0; i < a->ntracks; i++) {
		const struct clip_track *s = &a->tracks[i], *t = &b->tracks[i];
		if (s->mask != t->mask || s->nchannels != t->nchannels)
			return false;
		for (uint32_t j = 0; j < s->nchannels; j++) {
			const struct clip_channel *x = &s->channels[j];
			const struct clip_channel *y = &t->channels[j];
			if (x->bit != y->bit || x->nkeys != y->nkeys)
				return false;
			for (uint32_t k = 0; k < x->nkeys; k++)
				if (!keys_equal(&x->keys[k], &y->keys[k]))
					return false;
		}
	}
	return true;
}

/* Grows an array of `size`-byte elements so that it holds n + 1. */
static bool grow(void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return true;
	if (n == UINT32_MAX)
		return false;
	uint32_t want = n < 4 ? 8 : n > UINT32_MAX / 2 ? UINT32_MAX : 2 * n;
	void *p = realloc(*arr, (size_t)want * size);
	if (!p)
		return false;
	*arr = p;
	*cap = want;
	return true;
}

struct clip_track *clip_add_track(struct clip *c, uint32_t mask)
{
	if (!grow((void **)&c->tracks, &c->cap, c->ntracks, sizeof *c->tracks))
		return NULL;
	struct clip_track *t = &c->tracks[c->ntracks++];
	*t = (struct clip_track){.mask = mask};
	return t;
}

struct clip_channel *clip_add_channel(struct clip_track *t, uint32_t bit)
{
	if (!grow((void **)&t->channels, &t->cap, t->nchannels,
		  sizeof *t->channels))
		return NULL;
	struct clip_channel *ch = &t->channels[t->nchannels++];
	*ch = (struct clip_channel){.bit = bit};
	t->mask |= bit;
	return ch;
}

struct clip_key *clip_add_key(struct clip_channel *ch, struct clip_key k)
{
	if (!grow((void **)&ch->keys, &ch->cap, ch->nkeys, sizeof *ch->keys))
		return NULL;
	ch->keys[ch->nkeys] = k;
	return &ch->keys[ch->nkeys++];
}

enum mh_err clip_copy(struct clip *dst, const struct clip *src,
		      struct mh_diag *d)
{
	*dst = (struct clip){.loop = src->loop, .loop_start = src->loop_start};
	if (src->ntracks &&
	    !(dst->tracks = calloc(src->ntracks, sizeof *dst->tracks)))
		goto nomem;
	dst->cap = src->ntracks;
	for (uint32_t i = 0; i < src->ntracks; i++, dst->ntracks++) {
		const struct clip_track *s = &src->tracks[i];
		struct clip_track *t = &dst->tracks[i];
		t->mask = s->mask;
		if (s->nchannels &&
		    !(t->channels = calloc(s->nchannels, sizeof *t->channels)))
			goto nomem;
		t->cap = s->nchannels;
		for (uint32_t j = 0; j < s->nchannels; j++, t->nchannels++) {
			const struct clip_channel *x = &s->channels[j];
			struct clip_channel *y = &t->channels[j];
			y->bit = x->bit;
			if (x->nkeys &&
			    !(y->keys = malloc(x->nkeys * sizeof *y->keys)))
				goto nomem;
			if (x->nkeys)
				memcpy(y->keys, x->keys, x->nkeys * sizeof *y->keys);
			y->nkeys = y->cap = x->nkeys;
		}
	}
	return MH_OK;
nomem:
	/* Fully built tracks are counted; the one being built is freed too. */
	if (dst->tracks && dst->ntracks < src->ntracks)
		track_free(&dst->tracks[dst->ntracks]);
	clip_free(dst);
	return mh_fail(d, MH_ENOMEM, 0, "copying a clip");
}

const char *clip_format_name(enum clip_format f)
{
	switch (f) {
	case CLIP_MHFU: return "mhfu";
	case CLIP_P3RD: return "p3rd";
	case CLIP_NONE: break;
	}
	return "none";
}

/* ---- decoding --------------------------------------------------------- */

static int16_t s16(const uint8_t *p)
{
	uint16_t u = le16(p);
	return u < 0x8000 ? (int16_t)u : (int16_t)(u - 0x10000);
}

/* Reads n keys at p (the caller checked the bytes are there). */
static enum mh_err read_keys(struct clip_channel *ch, const uint8_t *p,
			     uint32_t n, uint64_t at, struct mh_diag *d)
{
	if (!n)
		return MH_OK;
	ch->keys = malloc((size_t)n * sizeof *ch->keys);
	if (!ch->keys)
		return mh_fail(d, MH_ENOMEM, at, "%u keyframes", n);
	ch->nkeys = ch->cap = n;
	for (uint32_t k = 0; k < n; k++, p += KEY_SIZE)
		ch->keys[k] = (struct clip_key){.value = s16(p),
						.frame = s16(p + 2),
						.ease_in = s16(p + 4),
						.ease_out = s16(p + 6)};
	return MH_OK;
}

/* Allocates n zeroed elements into *arr (nothing for n == 0). */
static enum mh_err alloc_n(void **arr, uint32_t *cap, uint32_t n, size_t size,
			   uint64_t at, struct mh_diag *d)
{
	if (!n)
		return MH_OK;
	*arr = calloc(n, size);
	if (!*arr)
		return mh_fail(d, MH_ENOMEM, at, "table of %u", n);
	*cap = n;
	return MH_OK;
}

/* One MHFU channel at b[pos..tend). */
static enum mh_err fu_channel(const uint8_t *b, size_t pos, size_t tend,
			      uint32_t ti, uint32_t ci, struct clip_channel *ch,
			      struct mh_diag *d)
{
	if (tend - pos < FU_SEC_HDR)
		return mh_fail(d, MH_ECORRUPT, pos, "track %u: its size leaves "
			       "no room for channel %u's header", ti, ci);
	uint32_t tag = le32(b + pos), n = le32(b + pos + 4);
	uint32_t size = le32(b + pos + 8);
	if ((tag & 0xffff0000u) != CLIP_MHFU_CHANNEL)
		return mh_fail(d, MH_ECORRUPT, pos, "track %u channel %u: tag "
			       "0x%08x is not 0x8012xxxx", ti, ci, tag);
	uint64_t want = FU_SEC_HDR + (uint64_t)KEY_SIZE * n;
	if (size != want)
		return mh_fail(d, MH_ECORRUPT, pos + 8, "track %u channel %u: "
			       "size %u, but %u keyframes make %llu", ti, ci,
			       size, n, (unsigned long long)want);
	if (size > tend - pos)
		return mh_fail(d, MH_ECORRUPT, pos + 8, "track %u channel %u: "
			       "%u bytes run past the track's end at %zu", ti,
			       ci, size, tend);
	ch->bit = tag & 0xffffu;
	return read_keys(ch, b + pos + FU_SEC_HDR, n, pos, d);
}

/* One MHFU track at b[pos..cend); its extent goes to *end. */
static enum mh_err fu_track(const uint8_t *b, size_t pos, size_t cend,
			    uint32_t ti, struct clip_track *t, size_t *end,
			    struct mh_diag *d)
{
	if (cend - pos < FU_SEC_HDR)
		return mh_fail(d, MH_ECORRUPT, pos, "the clip's size leaves no "
			       "room for track %u's header", ti);
	uint32_t tag = le32(b + pos), n = le32(b + pos + 4);
	uint32_t size = le32(b + pos + 8);
	if (!(tag & CLIP_MHFU_TRACK))
		return mh_fail(d, MH_ECORRUPT, pos, "track %u: tag 0x%08x is "
			       "not 0x80000000 | mask", ti, tag);
	if (size < FU_SEC_HDR || size > cend - pos)
		return mh_fail(d, MH_ECORRUPT, pos + 8, "track %u: size %u is "
			       "outside %d..%zu (its header to the clip's end)",
			       ti, size, FU_SEC_HDR, cend - pos);
	if (n > (size - FU_SEC_HDR) / FU_SEC_HDR)
		return mh_fail(d, MH_ECORRUPT, pos + 4, "track %u: %u channels "
			       "cannot fit in its %u bytes", ti, n, size);
	t->mask = tag & ~CLIP_MHFU_TRACK;
	enum mh_err err = alloc_n((void **)&t->channels, &t->cap, n,
				  sizeof *t->channels, pos, d);
	size_t tend = pos + size, at = pos + FU_SEC_HDR;
	for (uint32_t i = 0; i < n && !err; i++, t->nchannels++) {
		err = fu_channel(b, at, tend, ti, i, &t->channels[i], d);
		at += FU_SEC_HDR + (size_t)KEY_SIZE * t->channels[i].nkeys;
	}
	if (!err && at != tend)
		err = mh_fail(d, MH_ECORRUPT, pos + 8, "track %u: size %u, but "
			      "its %u channels end %zu bytes in", ti, size, n,
			      at - pos);
	*end = tend;
	return err;
}

static enum mh_err decode_fu(const uint8_t *b, size_t avail, struct clip *c,
			     size_t *used, struct mh_diag *d)
{
	if (avail < FU_CLIP_HDR)
		return mh_fail(d, MH_ETRUNC, 0, "an MHFU clip's header needs "
			       "%d bytes, %zu remain", FU_CLIP_HDR, avail);
	uint32_t tag = le32(b), n = le32(b + 4), size = le32(b + 8);
	if (tag != CLIP_MHFU_TAG)
		return mh_fail(d, MH_EUNKNOWN, 0, "clip tag 0x%08x is not "
			       "0x%08x", tag, CLIP_MHFU_TAG);
	if (size < FU_CLIP_HDR)
		return mh_fail(d, MH_ECORRUPT, 8, "clip size %u is smaller than "
			       "its %d-byte header", size, FU_CLIP_HDR);
	if (size > avail)
		return mh_fail(d, MH_ETRUNC, 8, "clip of %u bytes, %zu remain",
			       size, avail);
	if (n > (size - FU_CLIP_HDR) / FU_SEC_HDR)
		return mh_fail(d, MH_ECORRUPT, 4, "%u tracks cannot fit in the "
			       "clip's %u bytes", n, size);
	c->loop = le32(b + 12);
	uint32_t bits = le32(b + 16);
	memcpy(&c->loop_start, &bits, sizeof bits);
	enum mh_err err = alloc_n((void **)&c->tracks, &c->cap, n,
				  sizeof *c->tracks, 0, d);
	size_t at = FU_CLIP_HDR;
	for (uint32_t i = 0; i < n && !err; i++, c->ntracks++)
		err = fu_track(b, at, size, i, &c->tracks[i], &at, d);
	if (!err && at != size)
		err = mh_fail(d, MH_ECORRUPT, 8, "clip size %u, but its %u "
			      "tracks end at %zu", size, n, at);
	*used = size;
	return err;
}

/* One MHP3rd channel at b[pos..tend). */
static enum mh_err p3_channel(const uint8_t *b, size_t pos, size_t tend,
			      uint32_t ti, uint32_t ci, struct clip_channel *ch,
			      struct mh_diag *d)
{
	if (tend - pos < P3_CHAN_HDR)
		return mh_fail(d, MH_ECORRUPT, pos, "track %u: its size leaves "
			       "no room for channel %u's header", ti, ci);
	uint32_t n = le16(b + pos + 2), size = le32(b + pos + 4);
	uint32_t want = P3_CHAN_HDR + KEY_SIZE * n;
	if (size != want)
		return mh_fail(d, MH_ECORRUPT, pos + 4, "track %u channel %u: "
			       "size %u, but %u keyframes make %u", ti, ci,
			       size, n, want);
	if (size > tend - pos)
		return mh_fail(d, MH_ECORRUPT, pos + 4, "track %u channel %u: "
			       "%u bytes run past the track's end at %zu", ti,
			       ci, size, tend);
	ch->bit = le16(b + pos);
	return read_keys(ch, b + pos + P3_CHAN_HDR, n, pos, d);
}

static enum mh_err p3_track(const uint8_t *b, size_t pos, size_t cend,
			    uint32_t ti, struct clip_track *t, size_t *end,
			    struct mh_diag *d)
{
	if (cend - pos < P3_TRACK_HDR)
		return mh_fail(d, MH_ECORRUPT, pos, "the clip's size leaves no "
			       "room for track %u's header", ti);
	uint32_t n = le16(b + pos), size = le16(b + pos + 2);
	if (size < P3_TRACK_HDR || size > cend - pos)
		return mh_fail(d, MH_ECORRUPT, pos + 2, "track %u: size %u is "
			       "outside %d..%zu (its header to the clip's end)",
			       ti, size, P3_TRACK_HDR, cend - pos);
	if (n > (size - P3_TRACK_HDR) / P3_CHAN_HDR)
		return mh_fail(d, MH_ECORRUPT, pos, "track %u: %u channels "
			       "cannot fit in its %u bytes", ti, n, size);
	enum mh_err err = alloc_n((void **)&t->channels, &t->cap, n,
				  sizeof *t->channels, pos, d);
	size_t tend = pos + size, at = pos + P3_TRACK_HDR;
	for (uint32_t i = 0; i < n && !err; i++, t->nchannels++) {
		err = p3_channel(b, at, tend, ti, i, &t->channels[i], d);
		at += P3_CHAN_HDR + (size_t)KEY_SIZE * t->channels[i].nkeys;
		t->mask |= t->channels[i].bit;
	}
	if (!err && at != tend)
		err = mh_fail(d, MH_ECORRUPT, pos + 2, "track %u: size %u, but "
			      "its %u channels end %zu bytes in", ti, size, n,
			      at - pos);
	*end = tend;
	return err;
}

static enum mh_err decode_p3(const uint8_t *b, size_t avail, struct clip *c,
			     size_t *used, struct mh_diag *d)
{
	if (avail < P3_CLIP_HDR)
		return mh_fail(d, MH_ETRUNC, 0, "an MHP3rd clip's header needs "
			       "%d bytes, %zu remain", P3_CLIP_HDR, avail);
	uint32_t n = le32(b), size = le32(b + 4);
	if (size < P3_CLIP_HDR)
		return mh_fail(d, MH_ECORRUPT, 4, "clip size %u is smaller than "
			       "its %d-byte header", size, P3_CLIP_HDR);
	if (size > avail)
		return mh_fail(d, MH_ETRUNC, 4, "clip of %u bytes, %zu remain",
			       size, avail);
	if (n > (size - P3_CLIP_HDR) / P3_TRACK_HDR)
		return mh_fail(d, MH_ECORRUPT, 0, "%u tracks cannot fit in the "
			       "clip's %u bytes", n, size);
	c->loop = le32(b + 8);
	uint32_t bits = le32(b + 12);
	memcpy(&c->loop_start, &bits, sizeof bits);
	enum mh_err err = alloc_n((void **)&c->tracks, &c->cap, n,
				  sizeof *c->tracks, 0, d);
	size_t at = P3_CLIP_HDR;
	for (uint32_t i = 0; i < n && !err; i++, c->ntracks++)
		err = p3_track(b, at, size, i, &c->tracks[i], &at, d);
	if (!err && at != size)
		err = mh_fail(d, MH_ECORRUPT, 4, "clip size %u, but its %u "
			      "tracks end at %zu", size, n, at);
	*used = size;
	return err;
}

enum mh_err clip_decode(enum clip_format f, const uint8_t *buf, size_t avail,
			struct clip *c, size_t *used, struct mh_diag *d)
{
	enum mh_err err;
	size_t n = 0;
	memset(c, 0, sizeof *c);
	if (f == CLIP_MHFU)
		err = decode_fu(buf, avail, c, &n, d);
	else if (f == CLIP_P3RD)
		err = decode_p3(buf, avail, c, &n, d);
	else
		err = mh_fail(d, MH_EUNKNOWN, 0, "no clip format given");
	if (err) {
		/* A failing track or channel was counted as it was tried. */
		clip_free(c);
		n = 0;
	}
	if (used)
		*used = n;
	return err;
}

/* ---- encoding --------------------------------------------------------- */

static uint64_t channel_size(enum clip_format f, const struct clip_channel *ch)
{
	return (f == CLIP_MHFU ? FU_SEC_HDR : P3_CHAN_HDR) +
	       (uint64_t)KEY_SIZE * ch->nkeys;
}

static uint64_t track_size(enum clip_format f, const struct clip_track *t)
{
	uint64_t n = f == CLIP_MHFU ? FU_SEC_HDR : P3_TRACK_HDR;
	for (uint32_t i = 0; i < t->nchannels; i++)
		n += channel_size(f, &t->channels[i]);
	return n;
}

uint64_t clip_size(enum clip_format f, const struct clip *c)
{
	uint64_t n = f == CLIP_MHFU ? FU_CLIP_HDR : P3_CLIP_HDR;
	for (uint32_t i = 0; i < c->ntracks; i++)
		n += track_size(f, &c->tracks[i]);
	return n;
}

/* Whether every value of c fits format f; at is where each would go. */
static enum mh_err check_ranges(enum clip_format f, const struct clip *c,
				struct mh_diag *d)
{
	bool fu = f == CLIP_MHFU;
	uint64_t at = fu ? FU_CLIP_HDR : P3_CLIP_HDR;
	uint64_t total = clip_size(f, c);
	if (total > UINT32_MAX)
		return mh_fail(d, MH_ERANGE, 0, "clip of %llu bytes is over "
			       "4 GiB", (unsigned long long)total);
	for (uint32_t i = 0; i < c->ntracks; i++) {
		const struct clip_track *t = &c->tracks[i];
		uint64_t ts = track_size(f, t);
		if (fu && (t->mask & CLIP_MHFU_TRACK))
			return mh_fail(d, MH_ERANGE, at, "track %u: mask "
				       "0x%08x has bit 31 set", i, t->mask);
		if (!fu && (t->nchannels > 0xffff || ts > 0xffff))
			return mh_fail(d, MH_ERANGE, at, "track %u: %u channels "
				       "in %llu bytes exceed MHP3rd's 16-bit "
				       "fields", i, t->nchannels,
				       (unsigned long long)ts);
		uint64_t cat = at + (fu ? FU_SEC_HDR : P3_TRACK_HDR);
		for (uint32_t j = 0; j < t->nchannels; j++) {
			const struct clip_channel *ch = &t->channels[j];
			if (ch->bit > 0xffff)
				return mh_fail(d, MH_ERANGE, cat, "track %u "
					       "channel %u: bit 0x%x is over "
					       "0xffff", i, j, ch->bit);
			if (!fu && ch->nkeys > 0xffff)
				return mh_fail(d, MH_ERANGE, cat, "track %u "
					       "channel %u: %u keyframes, "
					       "MHP3rd holds 65535", i, j,
					       ch->nkeys);
			cat += channel_size(f, ch);
		}
		at += ts;
	}
	return MH_OK;
}

static uint8_t *put_keys(uint8_t *p, const struct clip_channel *ch)
{
	for (uint32_t k = 0; k < ch->nkeys; k++, p += KEY_SIZE) {
		const struct clip_key *key = &ch->keys[k];
		put_le16(p, (uint16_t)key->value);
		put_le16(p + 2, (uint16_t)key->frame);
		put_le16(p + 4, (uint16_t)key->ease_in);
		put_le16(p + 6, (uint16_t)key->ease_out);
	}
	return p;
}

static void write_fu(const struct clip *c, uint8_t *p)
{
	uint32_t bits;
	memcpy(&bits, &c->loop_start, sizeof bits);
	put_le32(p, CLIP_MHFU_TAG);
	put_le32(p + 4, c->ntracks);
	put_le32(p + 8, (uint32_t)clip_size(CLIP_MHFU, c));
	put_le32(p + 12, c->loop);
	put_le32(p + 16, bits);
	p += FU_CLIP_HDR;
	for (uint32_t i = 0; i < c->ntracks; i++) {
		const struct clip_track *t = &c->tracks[i];
		put_le32(p, CLIP_MHFU_TRACK | t->mask);
		put_le32(p + 4, t->nchannels);
		put_le32(p + 8, (uint32_t)track_size(CLIP_MHFU, t));
		p += FU_SEC_HDR;
		for (uint32_t j = 0; j < t->nchannels; j++) {
			const struct clip_channel *ch = &t->channels[j];
			put_le32(p, CLIP_MHFU_CHANNEL | ch->bit);
			put_le32(p + 4, ch->nkeys);
			put_le32(p + 8, (uint32_t)channel_size(CLIP_MHFU, ch));
			p = put_keys(p + FU_SEC_HDR, ch);
		}
	}
}

static void write_p3(const struct clip *c, uint8_t *p)
{
	uint32_t bits;
	memcpy(&bits, &c->loop_start, sizeof bits);
	put_le32(p, c->ntracks);
	put_le32(p + 4, (uint32_t)clip_size(CLIP_P3RD, c));
	put_le32(p + 8, c->loop);
	put_le32(p + 12, bits);
	p += P3_CLIP_HDR;
	for (uint32_t i = 0; i < c->ntracks; i++) {
		const struct clip_track *t = &c->tracks[i];
		put_le16(p, (uint16_t)t->nchannels);
		put_le16(p + 2, (uint16_t)track_size(CLIP_P3RD, t));
		p += P3_TRACK_HDR;
		for (uint32_t j = 0; j < t->nchannels; j++) {
			const struct clip_channel *ch = &t->channels[j];
			put_le16(p, (uint16_t)ch->bit);
			put_le16(p + 2, (uint16_t)ch->nkeys);
			put_le32(p + 4, (uint32_t)channel_size(CLIP_P3RD, ch));
			p = put_keys(p + P3_CHAN_HDR, ch);
		}
	}
}

enum mh_err clip_encode_to(enum clip_format f, const struct clip *c,
			   uint8_t *dst, size_t room, size_t *used,
			   struct mh_diag *d)
{
	*used = 0;
	if (f != CLIP_MHFU && f != CLIP_P3RD)
		return mh_fail(d, MH_ERANGE, 0, "no clip format given");
	enum mh_err err = check_ranges(f, c, d);
	if (err)
		return err;
	uint64_t size = clip_size(f, c);
	if (size > room)
		return mh_fail(d, MH_ERANGE, 0, "clip of %llu bytes, room for "
			       "%zu", (unsigned long long)size, room);
	if (f == CLIP_MHFU)
		write_fu(c, dst);
	else
		write_p3(c, dst);
	*used = (size_t)size;
	return MH_OK;
}

enum mh_err clip_encode(enum clip_format f, const struct clip *c,
			uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (f != CLIP_MHFU && f != CLIP_P3RD)
		return mh_fail(d, MH_ERANGE, 0, "no clip format given");
	enum mh_err err = check_ranges(f, c, d);
	if (err)
		return err;
	size_t size = (size_t)clip_size(f, c);
	uint8_t *buf = malloc(size);
	if (!buf)
		return mh_fail(d, MH_ENOMEM, 0, "clip of %zu bytes", size);
	err = clip_encode_to(f, c, buf, size, len, d);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return MH_OK;
}
