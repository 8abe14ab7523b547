/* SPDX-License-Identifier: MIT */
/* Animation packs: decode, encode, sniff and the builders (anim.h).
 *
 * The layout is a pure function of the model: header at 0, slot tables at
 * 8(N+1), clips from data_start in first-use order, then the tail.  The
 * decoder walks the slots in that order keeping the running end of the
 * clips: a slot's word is either empty, an offset already seen (a shared
 * clip), or exactly the running end (the next clip); anything else could
 * not be reproduced and is rejected. */
#include "anim.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

static uint64_t header_size(uint32_t nstreams)
{
	return 8 * ((uint64_t)nstreams + 1);
}

void anim_free(struct anim *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->nstreams; i++)
		free(a->streams[i].slots);
	free(a->streams);
	for (uint32_t i = 0; i < a->nclips; i++)
		clip_free(&a->clips[i]);
	free(a->clips);
	free(a->tail);
	memset(a, 0, sizeof *a);
}

bool anim_equal(const struct anim *a, const struct anim *b)
{
	if (a->format != b->format || a->nstreams != b->nstreams ||
	    a->nclips != b->nclips || a->tail_len != b->tail_len ||
	    (a->tail_len && memcmp(a->tail, b->tail, a->tail_len)))
		return false;
	for (uint32_t s = 0; s < a->nstreams; s++) {
		const struct anim_stream *x = &a->streams[s], *y = &b->streams[s];
		if (x->nslots != y->nslots ||
		    (x->nslots && memcmp(x->slots, y->slots,
					 x->nslots * sizeof *x->slots)))
			return false;
	}
	for (uint32_t i = 0; i < a->nclips; i++)
		if (!clip_equal(&a->clips[i], &b->clips[i]))
			return false;
	return true;
}

/* ---- building --------------------------------------------------------- */

enum mh_err anim_init(struct anim *a, enum clip_format format,
		      uint32_t nstreams, const uint32_t *slots,
		      struct mh_diag *d)
{
	memset(a, 0, sizeof *a);
	a->format = format;
	if (nstreams && !(a->streams = calloc(nstreams, sizeof *a->streams)))
		return mh_fail(d, MH_ENOMEM, 0, "%u streams", nstreams);
	for (; a->nstreams < nstreams; a->nstreams++) {
		struct anim_stream *st = &a->streams[a->nstreams];
		uint32_t n = slots[a->nstreams];
		if (n > (UINT32_MAX - header_size(nstreams)) / 4) {
			anim_free(a);
			return mh_fail(d, MH_ERANGE, 0, "%u slots", n);
		}
		if (n && !(st->slots = malloc(n * sizeof *st->slots))) {
			anim_free(a);
			return mh_fail(d, MH_ENOMEM, 0, "%u slots", n);
		}
		for (uint32_t i = 0; i < n; i++)
			st->slots[i] = ANIM_EMPTY;
		st->nslots = n;
	}
	return MH_OK;
}

int32_t anim_add_clip(struct anim *a, struct clip *c)
{
	if (a->nclips >= INT32_MAX)
		return -1;
	if (a->nclips >= a->cap) {
		uint32_t cap = a->nclips < 8 ? 16 : 2 * a->nclips;
		struct clip *p = realloc(a->clips, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		a->clips = p;
		a->cap = cap;
	}
	a->clips[a->nclips] = *c;
	memset(c, 0, sizeof *c);
	return (int32_t)a->nclips++;
}

enum mh_err anim_set_slot(struct anim *a, uint32_t stream, uint32_t slot,
			  int32_t clip, struct mh_diag *d)
{
	if (stream >= a->nstreams || slot >= a->streams[stream].nslots)
		return mh_fail(d, MH_ERANGE, 0, "no slot %u in stream %u", slot,
			       stream);
	if (clip != ANIM_EMPTY && (clip < 0 || (uint32_t)clip >= a->nclips))
		return mh_fail(d, MH_ERANGE, 0, "no clip %d (the pack has %u)",
			       clip, a->nclips);
	a->streams[stream].slots[slot] = clip;
	return MH_OK;
}

/* Checks that every slot names a clip or is empty. */
static enum mh_err check_slots(const struct anim *a, struct mh_diag *d)
{
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++) {
			int32_t c = a->streams[s].slots[i];
			if (c != ANIM_EMPTY && (c < 0 || (uint32_t)c >= a->nclips))
				return mh_fail(d, MH_ERANGE, 0, "stream %u slot "
					       "%u names clip %d of %u", s, i,
					       c, a->nclips);
		}
	return MH_OK;
}

enum mh_err anim_compact(struct anim *a, struct mh_diag *d)
{
	enum mh_err err = check_slots(a, d);
	if (err || !a->nclips)
		return err;
	int32_t *map = malloc(a->nclips * sizeof *map);
	struct clip *clips = malloc(a->nclips * sizeof *clips);
	if (!map || !clips) {
		free(map);
		free(clips);
		return mh_fail(d, MH_ENOMEM, 0, "renumbering %u clips",
			       a->nclips);
	}
	for (uint32_t i = 0; i < a->nclips; i++)
		map[i] = ANIM_EMPTY;
	int32_t next = 0;
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++) {
			int32_t *c = &a->streams[s].slots[i];
			if (*c == ANIM_EMPTY)
				continue;
			if (map[*c] == ANIM_EMPTY)
				map[*c] = next++;
			*c = map[*c];
		}
	for (uint32_t i = 0; i < a->nclips; i++) {
		if (map[i] == ANIM_EMPTY)
			clip_free(&a->clips[i]);
		else
			clips[map[i]] = a->clips[i];
	}
	free(a->clips);
	free(map);
	a->clips = clips;
	a->cap = a->nclips;
	a->nclips = (uint32_t)next;
	return MH_OK;
}

bool anim_first_use(const struct anim *a, uint32_t clip, uint32_t *stream,
		    uint32_t *slot)
{
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++)
			if (a->streams[s].slots[i] == (int32_t)clip) {
				*stream = s;
				*slot = i;
				return true;
			}
	return false;
}

bool anim_part_joints_of(const uint32_t *part0, size_t stride, uint32_t njoints,
			 uint32_t part, uint32_t *first, uint32_t *count)
{
#define PART_OF(j) (*(const uint32_t *)((const char *)part0 + (size_t)(j) * stride))
	uint32_t j = 0, n = 0;
	while (j < njoints && PART_OF(j) != part)
		j++;
	*first = j;
	while (j + n < njoints && PART_OF(j + n) == part)
		n++;
	*count = n;
	for (uint32_t k = j + n; k < njoints; k++)
		if (PART_OF(k) == part)
			return false;
	return n > 0;
#undef PART_OF
}

bool anim_part_joints(const uint32_t *parts, uint32_t njoints, uint32_t part,
		      uint32_t *first, uint32_t *count)
{
	return anim_part_joints_of(parts, sizeof *parts, njoints, part, first, count);
}

void anim_mhfu_entry_slot(uint32_t part, uint32_t entry, uint32_t *stream,
			  uint32_t *slot)
{
	*stream = 2 * part + entry / 100;
	*slot = entry % 100;
}

/* ---- decoding --------------------------------------------------------- */

/* Reads the header and checks its chain; sets *n (streams) and *start. */
static enum mh_err read_header(const uint8_t *buf, size_t len, uint32_t *n,
			       uint64_t *start, struct mh_diag *d)
{
	if (len < 16)
		return mh_fail(d, MH_ETRUNC, 0, "a pack's header needs 16 bytes, "
			       "it has %zu", len);
	uint32_t t0 = le32(buf + 4);
	if (t0 % 8 || t0 < 16)
		return mh_fail(d, MH_ECORRUPT, 4, "stream 0's table offset %u is "
			       "not 8 x (streams + 1)", t0);
	if (t0 > len)
		return mh_fail(d, MH_ETRUNC, 4, "a header of %u bytes, the pack "
			       "has %zu", t0, len);
	*n = t0 / 8 - 1;
	uint64_t end = t0;
	for (uint32_t s = 0; s < *n; s++) {
		uint32_t off = le32(buf + 8 * s + 4);
		if (off != end)
			return mh_fail(d, MH_ECORRUPT, 8 * s + 4, "stream %u's "
				       "table is at %u, not at %llu where the "
				       "tables before it end", s, off,
				       (unsigned long long)end);
		end += 4 * (uint64_t)le32(buf + 8 * s);
		if (end > len)
			return mh_fail(d, MH_ETRUNC, 8 * s, "stream %u's %u slots "
				       "run past the pack's %zu bytes", s,
				       le32(buf + 8 * s), len);
	}
	size_t at = 8 * (size_t)*n;
	if (le32(buf + at))
		return mh_fail(d, MH_ECORRUPT, at, "word after the stream "
			       "headers is 0x%08x, not 0", le32(buf + at));
	if (le32(buf + at + 4) != end)
		return mh_fail(d, MH_ECORRUPT, at + 4, "data start is %u, not "
			       "%llu where the slot tables end",
			       le32(buf + at + 4), (unsigned long long)end);
	*start = end;
	return MH_OK;
}

/* The clips' encoding, from the first clip's first word at `start`. */
static enum mh_err detect_format(const uint8_t *buf, size_t len, uint64_t start,
				 enum clip_format *f, struct mh_diag *d)
{
	if (len - start < 4)
		return mh_fail(d, MH_ETRUNC, start, "the first clip's header "
			       "runs past the pack's end");
	uint32_t w = le32(buf + start);
	if (w == CLIP_MHFU_TAG)
		*f = CLIP_MHFU;
	else if (w < 0x10000)
		*f = CLIP_P3RD;
	else
		return mh_fail(d, MH_ECORRUPT, start, "the first clip starts with "
			       "0x%08x: neither MHFU's tag 0x%08x nor an MHP3rd "
			       "track count (below 0x10000)", w, CLIP_MHFU_TAG);
	return MH_OK;
}

/* Binary search of the clip starting at off among the ascending offs. */
static int32_t find_clip(const uint32_t *offs, uint32_t n, uint32_t off)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (offs[mid] == off)
			return (int32_t)mid;
		if (offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ANIM_EMPTY;
}

struct walk {
	const uint8_t *buf;
	size_t len;
	uint64_t end;  /* where the next new clip must start */
	uint32_t *offs; /* of the clips so far, ascending */
	uint32_t ocap;
};

/* One slot word at `at`: its clip index, decoding a new clip if due. */
static enum mh_err read_slot(struct walk *w, struct anim *a, size_t at,
			     uint32_t s, uint32_t i, int32_t *clip,
			     struct mh_diag *d)
{
	uint32_t off = le32(w->buf + at);
	if (off == ANIM_NO_CLIP) {
		*clip = ANIM_EMPTY;
		return MH_OK;
	}
	if (off < w->end) {
		*clip = find_clip(w->offs, a->nclips, off);
		if (*clip == ANIM_EMPTY)
			return mh_fail(d, MH_ECORRUPT, at, "stream %u slot %u "
				       "points at %u, where no clip starts", s,
				       i, off);
		return MH_OK;
	}
	if (off > w->end)
		return mh_fail(d, MH_ECORRUPT, at, "stream %u slot %u points at "
			       "%u, but its new clip must start at %llu (clips "
			       "follow each other in the order slots first use "
			       "them)", s, i, off, (unsigned long long)w->end);
	if (a->nclips == w->ocap) {
		uint32_t cap = w->ocap ? 2 * w->ocap : 64;
		uint32_t *p = realloc(w->offs, cap * sizeof *p);
		if (!p)
			return mh_fail(d, MH_ENOMEM, at, "%u clips", cap);
		w->offs = p;
		w->ocap = cap;
	}
	struct clip c;
	size_t used;
	enum mh_err err = clip_decode(a->format, w->buf + off, w->len - off, &c,
				      &used, d);
	if (err) {
		if (d)
			d->offset += off;
		return err;
	}
	*clip = anim_add_clip(a, &c);
	if (*clip < 0) {
		clip_free(&c);
		return mh_fail(d, MH_ENOMEM, off, "clip %u", a->nclips);
	}
	w->offs[*clip] = off;
	w->end += used;
	return MH_OK;
}

enum mh_err anim_decode(const uint8_t *buf, size_t len,
			enum clip_format format, struct anim *a,
			struct mh_diag *d)
{
	memset(a, 0, sizeof *a);
	uint32_t n = 0;
	uint64_t start = 0;
	enum mh_err err = read_header(buf, len, &n, &start, d);
	if (err)
		return err;
	a->format = format;
	for (size_t at = header_size(n); at < start && !err; at += 4)
		if (le32(buf + at) != ANIM_NO_CLIP)
			err = detect_format(buf, len, start, &a->format, d);
	if (!err && !(a->streams = calloc(n, sizeof *a->streams)))
		err = mh_fail(d, MH_ENOMEM, 0, "%u streams", n);

	struct walk w = {.buf = buf, .len = len, .end = start};
	size_t at = (size_t)header_size(n);
	for (uint32_t s = 0; s < n && !err; s++, a->nstreams++) {
		struct anim_stream *st = &a->streams[s];
		uint32_t count = le32(buf + 8 * s);
		if (count && !(st->slots = malloc(count * sizeof *st->slots))) {
			err = mh_fail(d, MH_ENOMEM, 8 * s, "%u slots", count);
			break;
		}
		st->nslots = count;
		for (uint32_t i = 0; i < count && !err; i++, at += 4)
			err = read_slot(&w, a, at, s, i, &st->slots[i], d);
	}
	free(w.offs);
	if (!err && len > w.end) {
		a->tail_len = len - (size_t)w.end;
		if (!(a->tail = malloc(a->tail_len)))
			err = mh_fail(d, MH_ENOMEM, w.end, "tail of %zu bytes",
				      a->tail_len);
		else
			memcpy(a->tail, buf + w.end, a->tail_len);
	}
	if (err)
		anim_free(a);
	return err;
}

/* ---- encoding --------------------------------------------------------- */

/* Where the clips start: after the header and the slot tables. */
static uint64_t data_start(const struct anim *a)
{
	uint64_t start = header_size(a->nstreams);
	for (uint32_t s = 0; s < a->nstreams; s++)
		start += 4 * (uint64_t)a->streams[s].nslots;
	return start;
}

void anim_clip_offsets(const struct anim *a, uint64_t *offset, uint64_t *size)
{
	uint64_t at = data_start(a);
	for (uint32_t i = 0; i < a->nclips; i++) {
		offset[i] = at;
		size[i] = clip_size(a->format, &a->clips[i]);
		at += size[i];
	}
}

/* Checks the clips are numbered in first-use order and all used. */
static enum mh_err check_order(const struct anim *a, struct mh_diag *d)
{
	uint32_t next = 0;
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++) {
			int32_t c = a->streams[s].slots[i];
			if (c == ANIM_EMPTY || (uint32_t)c < next)
				continue;
			if ((uint32_t)c > next)
				return mh_fail(d, MH_ERANGE, 0, "stream %u slot %u "
					       "is the first to use clip %d, "
					       "before clip %u: clips must be "
					       "numbered in first-use order",
					       s, i, c, next);
			next++;
		}
	if (next != a->nclips)
		return mh_fail(d, MH_ERANGE, 0, "clip %u is used by no slot",
			       next);
	return MH_OK;
}

enum mh_err anim_encode(const struct anim *a, uint8_t **out, size_t *len,
			struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (!a->nstreams)
		return mh_fail(d, MH_ERANGE, 0, "a pack needs a stream");
	if (a->nclips && a->format != CLIP_MHFU && a->format != CLIP_P3RD)
		return mh_fail(d, MH_ERANGE, 0, "%u clips of no known format",
			       a->nclips);
	enum mh_err err = check_slots(a, d);
	if (!err)
		err = check_order(a, d);
	if (err)
		return err;

	uint64_t start = data_start(a);
	uint64_t end = start;
	for (uint32_t i = 0; i < a->nclips && end < UINT32_MAX; i++)
		end += clip_size(a->format, &a->clips[i]);
	if (end >= UINT32_MAX || end + a->tail_len > SIZE_MAX)
		return mh_fail(d, MH_ERANGE, 0, "a pack of over 4 GiB");
	uint32_t *offs = malloc((a->nclips ? a->nclips : 1) * sizeof *offs);
	uint8_t *buf = malloc((size_t)end + a->tail_len);
	if (!offs || !buf) {
		free(offs);
		free(buf);
		return mh_fail(d, MH_ENOMEM, 0, "a pack of %llu bytes",
			       (unsigned long long)end + a->tail_len);
	}

	size_t at = (size_t)start;
	for (uint32_t i = 0; i < a->nclips && !err; i++) {
		size_t used;
		struct mh_diag cd = {0};
		offs[i] = (uint32_t)at;
		err = clip_encode_to(a->format, &a->clips[i], buf + at,
				     (size_t)end - at, &used, &cd);
		if (err)
			mh_fail(d, err, at + cd.offset, "clip %u: %s", i, cd.msg);
		at += used;
	}
	size_t table = (size_t)header_size(a->nstreams);
	for (uint32_t s = 0; s < a->nstreams && !err; s++) {
		const struct anim_stream *st = &a->streams[s];
		put_le32(buf + 8 * s, st->nslots);
		put_le32(buf + 8 * s + 4, (uint32_t)table);
		for (uint32_t i = 0; i < st->nslots; i++, table += 4)
			put_le32(buf + table, st->slots[i] == ANIM_EMPTY ?
				 ANIM_NO_CLIP : offs[st->slots[i]]);
	}
	free(offs);
	if (err) {
		free(buf);
		return err;
	}
	put_le32(buf + 8 * (size_t)a->nstreams, 0);
	put_le32(buf + 8 * (size_t)a->nstreams + 4, (uint32_t)start);
	if (a->tail_len)
		memcpy(buf + end, a->tail, a->tail_len);
	*out = buf;
	*len = (size_t)end + a->tail_len;
	return MH_OK;
}

/* ---- sniffing --------------------------------------------------------- */

/* Whether the clip header at p (16 readable bytes) of a clip that may
 * take up to `room` bytes is plausible. */
static bool clip_head_ok(const uint8_t *p, uint64_t room)
{
	if (le32(p) == CLIP_MHFU_TAG) {
		uint32_t n = le32(p + 4), size = le32(p + 8);
		return size >= 0x14 && size <= room && n <= (size - 0x14) / 12;
	}
	uint32_t n = le32(p), size = le32(p + 4);
	return n < 0x10000 && size >= 0x10 && size <= room &&
	       n <= (size - 0x10) / 4;
}

int anim_sniff(const uint8_t *head, size_t len, uint64_t size)
{
	if (len > size)
		len = (size_t)size;
	if (len < 16)
		return 0;
	uint32_t t0 = le32(head + 4);
	if (t0 % 8 || t0 < 16 || t0 > header_size(ANIM_SNIFF_MAX_STREAMS) ||
	    t0 > len)
		return 0;
	uint32_t n = t0 / 8 - 1;
	uint64_t end = t0;
	for (uint32_t s = 0; s < n; s++) {
		if (le32(head + 8 * s + 4) != end)
			return 0;
		end += 4 * (uint64_t)le32(head + 8 * s);
		if (end > size)
			return 0;
	}
	if (le32(head + 8 * n) || le32(head + 8 * n + 4) != end)
		return 0;
	bool filled = false;
	for (uint64_t at = t0; at < end && at + 4 <= len; at += 4) {
		uint32_t off = le32(head + at);
		if (off == ANIM_NO_CLIP)
			continue;
		if (off < end || off >= size || off % 4 || (!filled && off != end))
			return 0;
		filled = true;
	}
	if (!filled)
		return end <= len ? 50 : 70;
	if (end + 16 > len)
		return 70;
	return clip_head_ok(head + end, size - end) ? 100 : 0;
}
