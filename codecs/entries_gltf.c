/* SPDX-License-Identifier: MIT */
/* An executor entry from a glTF animation (entries.h entries_from_gltf;
 * mhfu-clip(5) "GLTF IN", "FITTING KEYS"): Blender's export of model.glb
 * read back (gltf_read.h), its one animation sampled at the engine's
 * frames (gltf_motion.h), each joint's values fitted with keys (fit.h),
 * and the whole rig split into the parts' clips as the entry's text is.
 * Pure: no I/O, no globals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "entries.h"
#include "fit.h"
#include "gltf_motion.h"
#include "gltf_read.h"
#include "rig.h"

static const uint32_t ROT_BITS[3] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
static const uint32_t LOC_BITS[3] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};

static int bit_index(uint32_t bit)
{
	int i = 0;
	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

/* Whether joint motion jm holds its bone's bind pose at every frame:
 * no location off the bind offset, the rotation within a raw unit of the
 * bind rotation (radians in the skeleton). */
static bool at_bind(const struct gltf_joint_motion *jm, const struct skeleton_bone *bone,
		    uint32_t frames)
{
	for (int ax = 0; ax < 3; ax++) {
		if (jm->moves[ax])
			return false;
		double bind = bone->rotation[ax] * (8192.0 / 3.14159265358979323846);
		for (uint32_t f = 0; f < frames; f++) {
			double off = fmod(fabs(jm->rot[ax][f] - bind), 16384.0);
			if (off > 1.0 && off < 16383.0)
				return false;
		}
	}
	return true;
}

/* The value of track t's channel `bit` at frame f, 0 without one. */
static double track_value(const struct clip_track *t, uint32_t bit, uint32_t f)
{
	for (uint32_t i = 0; t && i < t->nchannels; i++)
		if (t->channels[i].bit == bit && t->channels[i].nkeys)
			return curve_sample(&t->channels[i], f);
	return 0;
}

/* The guide's angle (gltf_motion_guide): ctx is the entry as it is,
 * each bone's track in its part's clip (NULL: none; entry_tracks). */
static bool guide_angle(const void *ctx, uint32_t b, unsigned ax, uint32_t f, double *raw)
{
	const struct clip_track *t = ((const struct clip_track *const *)ctx)[b];
	if (!t)
		return false;
	*raw = track_value(t, ROT_BITS[ax], f);
	return true;
}

/* Each bone's track in entry `entry` as it is, which the file's angles
 * are read near; NULL when out of memory. */
static const struct clip_track **entry_tracks(const struct anim *a, uint32_t entry,
					      const struct skeleton *rig, uint32_t nparts)
{
	const struct clip_track **track = calloc(rig->nbones ? rig->nbones : 1, sizeof *track);
	for (uint32_t k = 0; track && k < nparts; k++) {
		uint32_t stream, slot, first, count;
		int32_t ci = entries_part_clip(a, entry, k, &stream, &slot);
		if (ci == ANIM_EMPTY || !rig_part_joints(rig, k, &first, &count))
			continue;
		const struct clip *c = &a->clips[ci];
		for (uint32_t t = 0; t < c->ntracks && t < count && first + t < rig->nbones; t++)
			track[first + t] = &c->tracks[t];
	}
	return track;
}

/* Appends a copy of track t to c. */
static enum mh_err copy_track(struct clip *c, const struct clip_track *t, struct mh_diag *d)
{
	struct clip_track *to = clip_add_track(c, t->mask);
	for (uint32_t i = 0; to && i < t->nchannels; i++) {
		struct clip_channel *ch = clip_add_channel(to, t->channels[i].bit);
		for (uint32_t k = 0; ch && k < t->channels[i].nkeys; k++)
			if (!clip_add_key(ch, t->channels[i].keys[k]))
				ch = NULL;
		if (!ch)
			to = NULL;
		else
			to = &c->tracks[c->ntracks - 1]; /* adding may move it */
	}
	return to ? MH_OK : mh_fail(d, MH_ENOMEM, 0, "out of memory");
}

/* A rest track: rotation X, Y, Z keyed 0 at frame 0 and at `last`. */
static enum mh_err rest_track(struct clip *c, int32_t last, struct mh_diag *d)
{
	struct clip_track *t = clip_add_track(c, 0);
	for (int ax = 0; t && ax < 3; ax++) {
		struct clip_channel *ch = clip_add_channel(t, ROT_BITS[ax]);
		if (!ch || !clip_add_key(ch, (struct clip_key){0, 0, 0, 0}) ||
		    !clip_add_key(ch, (struct clip_key){0, (int16_t)(last > 2 ? last : 2), 0, 0}))
			t = NULL;
	}
	return t ? MH_OK : mh_fail(d, MH_ENOMEM, 0, "out of memory");
}

/* Joint j's track fitted from the file's motion: rotation on every axis,
 * location on the axes that leave the bind offset; `was` the joint's
 * track in the clip replaced, or NULL. */
static enum mh_err fitted_track(struct clip *c, const struct gltf_joint_motion *jm,
				const struct clip_track *was, uint32_t frames, const double *fit,
				double *buf, struct mh_diag *d)
{
	struct fit_track_samples s = {{0}, {fit ? fit[0] : 0, fit ? fit[1] : 0}};
	for (int ax = 0; ax < 3; ax++) {
		double *rot = buf + (size_t)ax * frames, *loc = buf + (size_t)(3 + ax) * frames;
		double lo = 0, hi = 0;
		for (uint32_t f = 0; f < frames; f++) {
			rot[f] = jm->rot[ax][f];
			loc[f] = jm->loc[ax][f];
			lo = f && lo < rot[f] ? lo : rot[f];
			hi = f && hi > rot[f] ? hi : rot[f];
		}
		/* Unwrapped, an angle may wind past the keys' two turns each
		 * way: whole turns off the whole channel bring it back. */
		double turns = round(-(lo + hi) / 2 / 16384.0);
		if (turns != 0 && (lo < -32768 || hi > 32767))
			for (uint32_t f = 0; f < frames; f++)
				rot[f] += turns * 16384.0;
		/* Near Y = 90 degrees X is loose and may still wind past them:
		 * each frame by whole turns nearest the angle the clip replaced
		 * had there (0 without), the rotation the same at every frame. */
		for (uint32_t f = 0; (lo + turns * 16384.0 < -32768 || hi + turns * 16384.0 > 32767) &&
				     f < frames; f++) {
			double hint = track_value(was, ROT_BITS[ax], f);
			rot[f] -= 16384.0 * round((rot[f] - hint) / 16384.0);
		}
		s.samples[bit_index(ROT_BITS[ax])] = rot;
		if (jm->moves[ax])
			s.samples[bit_index(LOC_BITS[ax])] = loc;
	}
	return fit_track(&s, frames, c, d);
}

/* Part k's clip: its joints' tracks from the file where it animates them,
 * kept from the part's clip (or rest) where it does not. */
static enum mh_err part_clip(const struct anim *a, const struct clip *was,
			     const struct gltf_motion *m, uint32_t first, uint32_t count,
			     const double *fit, struct clip *out, double *buf, struct mh_diag *d)
{
	enum mh_err err = MH_OK;
	/* A part keeps its own length: the file runs as long as its longest. */
	int32_t last = was ? entries_clip_frames(was) : (int32_t)m->frames - 1;
	/* The samples past it: the joints held, not played by this part. */
	uint32_t frames = (uint32_t)last + 1 < m->frames ? (uint32_t)last + 1 : m->frames;
	(void)a;
	memset(out, 0, sizeof *out);
	out->loop = was ? was->loop : 0;
	out->loop_start = was ? was->loop_start : 0;
	for (uint32_t t = 0; !err && t < count; t++) {
		const struct gltf_joint_motion *jm = &m->joints[first + t];
		if (jm->animated)
			err = fitted_track(out, jm, was && t < was->ntracks ? &was->tracks[t] : NULL,
					   frames, fit, buf, d);
		else if (was && t < was->ntracks && was->tracks[t].nchannels)
			err = copy_track(out, &was->tracks[t], d);
		else
			err = rest_track(out, last, d);
	}
	/* The clip runs to its last frame, however still its end. */
	if (!err && entries_clip_frames(out) < last && out->ntracks &&
	    out->tracks[0].nchannels) {
		struct clip_channel *ch = &out->tracks[0].channels[0];
		struct clip_key hold = ch->keys[ch->nkeys - 1];
		hold.frame = (int16_t)last;
		hold.ease_in = hold.ease_out = 0;
		if (!clip_add_key(ch, hold))
			err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	if (err)
		clip_free(out);
	return err;
}

enum mh_err entries_from_gltf(const struct anim *a, uint32_t entry, int32_t only_part,
			      const struct skeleton *rig, const uint8_t *bytes, size_t len,
			      const double fit[2], struct entries_edit *e, struct mh_diag *d)
{
	uint32_t nparts = entries_parts(a);
	memset(e, 0, sizeof *e);
	if (!nparts || entry >= ENTRIES_MAX)
		return mh_fail(d, MH_ERANGE, 0, "an entry is written to an MHFU pack's "
			       "entries/, entry000 to entry%03u", ENTRIES_MAX - 1);
	if (!rig || !rig_animated_sound(rig))
		return mh_fail(d, MH_ERANGE, 0, "the pack's rig is not known: a glTF names "
			       "joints of the skeleton beside the pack");
	struct gltf_asset asset;
	struct gltf_motion m;
	enum mh_err err = gltf_read(bytes, len, &asset, d);
	if (err)
		return err;
	const struct clip_track **track = entry_tracks(a, entry, rig, nparts);
	if (!track) {
		gltf_asset_free(&asset);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	struct gltf_motion_guide guide = {guide_angle, track};
	err = gltf_motion_read(&asset, rig, &guide, &m, d);
	free(track);
	gltf_asset_free(&asset);
	if (err)
		return err;
	double *buf = malloc(6 * (size_t)m.frames * sizeof *buf);
	e->parts = calloc(nparts, sizeof *e->parts);
	if (!buf || !e->parts)
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	else
		e->nparts = nparts;
	for (uint32_t k = 0; !err && k < nparts; k++) {
		uint32_t stream, slot, first, count;
		int32_t ci = entries_part_clip(a, entry, k, &stream, &slot);
		const struct clip *was = ci == ANIM_EMPTY ? NULL : &a->clips[ci];
		e->parts[k].line = 0;
		if (!rig_part_joints(rig, k, &first, &count)) {
			e->parts[k].keeps = true; /* a part without joints plays nothing */
			continue;
		}
		/* A part that keeps its clip shows in model.glb as its joints at
		 * the bind pose, and Blender exports them so: still there, it
		 * keeps it. */
		bool touched = false;
		for (uint32_t t = 0; t < count; t++)
			touched |= m.joints[first + t].animated &&
				   !(was == NULL && at_bind(&m.joints[first + t],
							    &rig->bones[first + t], m.frames));
		/* A part the file leaves alone (or another than only_part)
		 * stays as it is. */
		if (!touched || (only_part >= 0 && k != (uint32_t)only_part)) {
			if (!(e->parts[k].keeps = !was))
				err = clip_copy(&e->parts[k].clip, was, d);
			continue;
		}
		err = part_clip(a, was, &m, first, count, fit, &e->parts[k].clip, buf, d);
	}
	free(buf);
	gltf_motion_free(&m);
	if (err)
		entries_edit_free(e);
	return err;
}
