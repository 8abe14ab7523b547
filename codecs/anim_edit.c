/* SPDX-License-Identifier: MIT */
/* Slot and shape edits of a decoded animation pack (anim.h). */
#include "anim.h"

#include "rules.h"

/* MH_ERANGE unless the pack has slot `slot` in stream `stream`. */
static enum mh_err check_slot(const struct anim *a, uint32_t stream,
			      uint32_t slot, struct mh_diag *d)
{
	if (stream >= a->nstreams || slot >= a->streams[stream].nslots)
		return mh_fail(d, MH_ERANGE, 0, "stream %u has no slot %u", stream,
			       slot);
	return MH_OK;
}

/* The format a new clip of the pack takes: the pack's; for the first
 * clip of a pack whose game is unknown, MHFU's. */
static enum clip_format new_clip_format(const struct anim *a)
{
	return a->format == CLIP_NONE ? CLIP_MHFU : a->format;
}

enum mh_err anim_slot_file_clip(enum clip_format f, enum anim_slot_form form,
				const uint8_t *file, size_t len, struct clip *c,
				struct mh_diag *d)
{
	if (form == ANIM_SLOT_TEXT)
		return clip_parse((const char *)file, len, c, d);
	size_t used;
	enum mh_err err = clip_decode(f, file, len, c, &used, d);
	if (!err && used != len) {
		clip_free(c);
		return mh_fail(d, MH_ECORRUPT, used, "%zu bytes after the clip's end",
			       len - used);
	}
	return err;
}

enum mh_err anim_slot_put(struct anim *a, uint32_t stream, uint32_t slot,
			  struct clip *c, struct mh_diag *d)
{
	enum mh_err err = check_slot(a, stream, slot, d);
	if (err) {
		clip_free(c);
		return err;
	}
	enum clip_format format = new_clip_format(a);
	int32_t cur = a->streams[stream].slots[slot];
	uint32_t first_stream, first_slot;
	if (cur >= 0 && anim_first_use(a, (uint32_t)cur, &first_stream, &first_slot) &&
	    first_stream == stream && first_slot == slot) {
		clip_free(&a->clips[cur]);
		a->clips[cur] = *c;
		*c = (struct clip){0};
		return MH_OK;
	}
	int32_t idx = anim_add_clip(a, c);
	if (idx < 0) {
		clip_free(c);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	a->format = format;
	return anim_set_slot(a, stream, slot, idx, d);
}

enum mh_err anim_slot_write(struct anim *a, uint32_t stream, uint32_t slot,
			    enum anim_slot_form form, const uint8_t *file,
			    size_t len, struct mh_diag *d)
{
	struct clip c;
	enum mh_err err = check_slot(a, stream, slot, d);
	if (!err)
		err = anim_slot_file_clip(new_clip_format(a), form, file, len, &c, d);
	if (!err)
		err = anim_slot_put(a, stream, slot, &c, d);
	return err;
}

enum mh_err anim_slot_empty(struct anim *a, uint32_t stream, uint32_t slot,
			    struct mh_diag *d)
{
	enum mh_err err = check_slot(a, stream, slot, d);
	return err ? err : anim_set_slot(a, stream, slot, ANIM_EMPTY, d);
}

enum mh_err anim_slot_share(struct anim *a, uint32_t stream, uint32_t slot,
			    uint32_t from_stream, uint32_t from_slot,
			    struct mh_diag *d)
{
	enum mh_err err = check_slot(a, stream, slot, d);
	if (err)
		return err;
	if (from_stream >= a->nstreams || from_slot >= a->streams[from_stream].nslots ||
	    a->streams[from_stream].slots[from_slot] < 0)
		return mh_fail(d, MH_ERANGE, 0, "the link's target holds no clip");
	return anim_set_slot(a, stream, slot, a->streams[from_stream].slots[from_slot], d);
}

enum mh_err anim_reshape(const struct anim *old, const char *text, size_t len,
			 struct anim *a, struct mh_diag *d)
{
	enum mh_err err = anim_parse_shape(text, len, a, d);
	for (uint32_t c = 0; !err && c < a->nclips; c++) {
		uint32_t s, slot;
		anim_first_use(a, c, &s, &slot);
		int32_t from = s < old->nstreams && slot < old->streams[s].nslots
				       ? old->streams[s].slots[slot] : ANIM_EMPTY;
		if (from < 0) {
			err = mh_fail_text(d, MH_ERANGE, anim_text_line(text, len, (int)s), 1,
					   "stream %u slot %u is filled but has no clip: "
					   "write stream%u/slot%03u.txt to fill it", s, slot, s, slot);
			break;
		}
		clip_free(&a->clips[c]);
		err = clip_copy(&a->clips[c], &old->clips[from], d);
	}
	if (err)
		anim_free(a);
	return err;
}
