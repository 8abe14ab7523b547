/* SPDX-License-Identifier: MIT */
/* The checks (port.h step 6) on a built pack, and out.pac. */
#include "port_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mh_err port_members_of(const struct port_host *h, const struct donor *donor,
			    struct port_members *m, uint8_t **skeleton, struct mh_diag *d)
{
	*m = (struct port_members){0};
	*skeleton = NULL;
	if (!h->own)
		return MH_OK;
	size_t len;
	enum mh_err err = skeleton_encode(&h->skel, skeleton, &len, d);
	if (err)
		return err;
	m->data[PORT_HOST_SKELETON] = *skeleton;
	m->len[PORT_HOST_SKELETON] = len;
	if (h->body) {
		m->data[PORT_HOST_BODY] = h->body;
		m->len[PORT_HOST_BODY] = h->body_len;
	}
	if (donor->member[DONOR_TMH] && donor->member_len[DONOR_TMH]) {
		m->data[PORT_HOST_TEXTURES] = donor->member[DONOR_TMH];
		m->len[PORT_HOST_TEXTURES] = donor->member_len[DONOR_TMH];
	}
	return MH_OK;
}

enum mh_err port_build_pac(const uint8_t *host, const struct port_host *h,
			   const struct port_members *swap, const uint8_t *pack, size_t pack_len,
			   uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (pack_len > UINT32_MAX)
		return mh_fail(d, MH_ERANGE, 0, "the pack (%zu bytes) is too large for a PAC",
			       pack_len);
	for (uint32_t i = 0; swap && i < PORT_HOST_PACK; i++)
		if (swap->data[i] && swap->len[i] > UINT32_MAX)
			return mh_fail(d, MH_ERANGE, 0, "member %u (%zu bytes) is too large for a PAC",
				       i, swap->len[i]);
	struct pac_blob *blobs = calloc(h->pac.count, sizeof *blobs);
	if (!blobs)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < h->pac.count; i++) {
		const struct pac_entry *e = &h->pac.entries[i];
		blobs[i] = (struct pac_blob){e->size ? host + e->offset : NULL, e->size};
	}
	for (uint32_t i = 0; swap && i < PORT_HOST_PACK; i++)
		if (swap->data[i])
			blobs[i] = (struct pac_blob){swap->len[i] ? swap->data[i] : NULL,
						     (uint32_t)swap->len[i]};
	blobs[PORT_HOST_PACK] = (struct pac_blob){pack_len ? pack : NULL, (uint32_t)pack_len};
	enum mh_err err = pac_encode(blobs, h->pac.count, h->pac.align, host + h->pac.tail,
				     (size_t)(h->pac.size - h->pac.tail), out, len, d);
	/* Every member must come out as it was laid out. */
	struct pac built = {0};
	if (!err)
		err = pac_decode(*out, *len, &built, d);
	for (uint32_t i = 0; !err && i < h->pac.count; i++) {
		const struct pac_entry *e = &built.entries[i];
		bool same = built.count == h->pac.count && e->size == blobs[i].size &&
			    (!e->size || !memcmp(*out + e->offset, blobs[i].data, e->size));
		if (!same)
			err = mh_fail(d, MH_ECORRUPT, e->offset,
				      "the built PAC's member %u is not the one laid out", i);
	}
	pac_free(&built);
	free(blobs);
	if (err) {
		free(*out);
		*out = NULL;
		*len = 0;
	}
	return err;
}

static void verdict(struct port_result *r, enum port_check_code c, bool passed,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void verdict(struct port_result *r, enum port_check_code c, bool passed,
		    const char *fmt, ...)
{
	struct port_check *k = &r->checks[c];
	k->passed = passed;
	k->level = c == PORT_CHECK_SIZE ? RULE_WARNING : RULE_ERROR;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->figure, sizeof k->figure, fmt, ap);
	va_end(ap);
}

/* RULES and SIZE, on the PAC built from r->pack (and in mode own the
 * members port_members_of gives). */
static enum mh_err check_pac(const uint8_t *host, size_t host_len, const struct port_host *h,
			     const struct donor *donor, struct port_result *r, uint8_t **pac,
			     size_t *pac_len, struct mh_diag *d)
{
	uint8_t *pack = NULL, *skeleton = NULL;
	size_t pack_len = 0;
	struct mh_diag why = {0};
	struct port_members swap;
	enum mh_err err = port_members_of(h, donor, &swap, &skeleton, &why);
	if (!err)
		err = anim_compact(&r->pack, &why);
	if (!err)
		err = anim_encode(&r->pack, &pack, &pack_len, &why);
	if (!err)
		err = port_build_pac(host, h, &swap, pack, pack_len, pac, pac_len, &why);
	free(pack);
	free(skeleton);
	if (err == MH_ENOMEM)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	if (err) {
		verdict(r, PORT_CHECK_RULES, false, "no PAC: %s", why.msg);
		verdict(r, PORT_CHECK_SIZE, false, "no PAC to measure");
		return MH_OK;
	}
	/* Mode own ships another skeleton: TEMPLATE (and UNDECODABLE) are
	 * warnings there, as for any whole model written (rules.h). */
	if (rules_check_item(*pac, *pac_len, host, host_len, NULL, h->own, &r->rules))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory checking the rules");
	size_t errors = 0;
	const struct rule_violation *first = NULL;
	for (size_t i = 0; i < r->rules.n; i++)
		if (r->rules.v[i].level == RULE_ERROR && !errors++)
			first = &r->rules.v[i];
	if (first)
		verdict(r, PORT_CHECK_RULES, false, "%zu errors of %zu violations; first %s %s: %s",
			errors, r->rules.n, rule_info(first->code)->name, first->member, first->msg);
	else
		verdict(r, PORT_CHECK_RULES, true, "no error among %zu violations", r->rules.n);
	verdict(r, PORT_CHECK_SIZE, *pac_len <= host_len, "out.pac %zu bytes, the host's %zu",
		*pac_len, host_len);
	return MH_OK;
}

/* How far a track is keyed, over its channels with keys whose bits the
 * port keeps: false when none has a key. */
static bool keyed_over(const struct clip_track *t, int32_t *from, int32_t *to)
{
	bool any = false;
	for (uint32_t i = 0; t && i < t->nchannels; i++) {
		const struct clip_channel *ch = &t->channels[i];
		if (!ch->nkeys || (ch->bit & ~PORT_KEPT_BITS))
			continue;
		int32_t first = ch->keys[0].frame, last = ch->keys[ch->nkeys - 1].frame;
		*from = !any || first < *from ? first : *from;
		*to = !any || last > *to ? last : *to;
		any = true;
	}
	return any;
}

/* The donor clip a place holds, NULL for the host's. */
static const struct clip *placed_clip(const struct donor *donor, const struct port_place *p)
{
	return port_place_donor(p) ? port_donor_clip(&donor->moveset, (uint32_t)p->clip) : NULL;
}

/* Whether joint j's ported track c_track spans what it must in donor clip
 * src of length `frames`: the span of the donor track it plays (a
 * channel ending early holds its last key, in the donor's game as in
 * natives), else, a rest track, 0 through the clip's length. */
static bool spans(const struct port_result *r, uint32_t j, const struct clip *src,
		  const struct clip_track *c_track, int32_t frames, int32_t *from, int32_t *to,
		  int32_t *want_from, int32_t *want_to)
{
	int32_t record = j < r->njoints ? r->joints[j].record : PORT_NONE;
	*want_from = 0;
	*want_to = frames < PORT_REST_SPAN ? PORT_REST_SPAN : frames;
	if (record >= 0 && (uint32_t)record < src->ntracks &&
	    keyed_over(&src->tracks[record], want_from, want_to) && *want_from < 0)
		*want_from = 0;
	return keyed_over(c_track, from, to) && *from <= *want_from && *to >= *want_to;
}

static void check_span(const struct port_host *h, const struct donor *donor,
		       struct port_result *r)
{
	uint32_t keyed = 0, clips = 0;
	char fault[128] = "";
	for (uint32_t i = 0; i < r->nplaces; i++)
		clips += placed_clip(donor, &r->places[i]) != NULL;
	for (uint32_t k = 0; k < h->nparts; k++)
		for (uint32_t t = 0; t < h->part_count[k]; t++) {
			bool ok = true;
			uint32_t j = h->part_first[k] + t;
			for (uint32_t i = 0; i < r->nplaces && ok; i++) {
				const struct port_place *p = &r->places[i];
				const struct clip *src = placed_clip(donor, p);
				if (!src)
					continue;
				const struct clip *c = port_part_clip(&r->pack, (uint32_t)p->entry, k);
				int32_t frames = entries_clip_frames(src), from = 0, to = 0;
				int32_t want_from, want_to;
				ok = spans(r, j, src, c && t < c->ntracks ? &c->tracks[t] : NULL,
					   frames, &from, &to, &want_from, &want_to);
				if (!ok && !fault[0])
					snprintf(fault, sizeof fault,
						 "; joint %u in entry %d (clip %d) keyed over %d..%d, "
						 "not %d..%d", j, (int)p->entry, (int)p->clip,
						 (int)from, (int)to, (int)want_from, (int)want_to);
			}
			keyed += ok;
		}
	verdict(r, PORT_CHECK_SPAN, keyed == h->animated,
		"%u of %u animated joints keyed over every clip (%u clips)%s", keyed, h->animated,
		clips, fault);
}

static void check_scale(const struct port_host *h, const struct donor *donor,
			struct port_result *r)
{
	uint32_t clips = 0;
	for (uint32_t i = 0; i < r->nplaces; i++) {
		const struct port_place *p = &r->places[i];
		if (!placed_clip(donor, p))
			continue;
		clips++;
		for (uint32_t k = 0; k < h->nparts; k++) {
			const struct clip *c = port_part_clip(&r->pack, (uint32_t)p->entry, k);
			for (uint32_t t = 0; c && t < c->ntracks; t++)
				for (uint32_t j = 0; j < c->tracks[t].nchannels; j++)
					if (c->tracks[t].channels[j].bit > PORT_KEPT_BITS) {
						verdict(r, PORT_CHECK_SCALE, false,
							"entry %d part %u track %u has channel "
							"bit 0x%03x", (int)p->entry, k, t,
							c->tracks[t].channels[j].bit);
						return;
					}
		}
	}
	verdict(r, PORT_CHECK_SCALE, true, "no channel bit 0x200 or above in the %u placed clips",
		clips);
}

/* Whether placed clip src kept its frames and loop at entry e; fault
 * says what not. */
static bool kept(const struct port_host *h, const struct port_result *r, uint32_t e,
		 const struct clip *src, char *fault, size_t len)
{
	int32_t frames = entries_clip_frames(src), longest = 0;
	for (uint32_t k = 0; k < h->nparts; k++) {
		if (!h->part_count[k])
			continue;
		const struct clip *c = port_part_clip(&r->pack, e, k);
		if (!c) {
			snprintf(fault, len, "entry %u part %u plays no clip", e, k);
			return false;
		}
		if ((c->loop != 0) != (src->loop != 0) ||
		    memcmp(&c->loop_start, &src->loop_start, sizeof c->loop_start)) {
			snprintf(fault, len, "entry %u part %u: loop %u from %g, the clip's %u from %g",
				 e, k, c->loop, (double)c->loop_start, src->loop,
				 (double)src->loop_start);
			return false;
		}
		int32_t f = entries_clip_frames(c);
		longest = f > longest ? f : longest;
	}
	/* Rest tracks reach PORT_REST_SPAN on shorter clips. */
	if (longest != frames && !(frames < PORT_REST_SPAN && longest == PORT_REST_SPAN)) {
		snprintf(fault, len, "entry %u runs %d frames, the clip %d", e, (int)longest,
			 (int)frames);
		return false;
	}
	return true;
}

static enum mh_err check_placed(const struct port_host *h, const struct donor *donor,
				struct port_result *r, struct mh_diag *d)
{
	struct port_clip *clips;
	uint32_t nclips, placed = 0, unplaced = 0;
	char fault[160] = "";
	enum mh_err err = port_donor_clips(&donor->moveset, &clips, &nclips, d);
	if (err)
		return err;
	for (uint32_t c = 0; c < nclips && !fault[0]; c++) {
		const struct port_place *at = NULL;
		for (uint32_t i = 0; i < r->nplaces && !fault[0]; i++) {
			const struct port_place *p = &r->places[i];
			if (p->clip != (int32_t)clips[c].id ||
			    !(port_place_donor(p) || p->how == PORT_HOW_UNPLACED))
				continue;
			if (at)
				snprintf(fault, sizeof fault, "clip %u is listed twice", clips[c].id);
			at = p;
		}
		if (!at && !fault[0])
			snprintf(fault, sizeof fault, "clip %u is neither placed nor listed unplaced",
				 clips[c].id);
		if (fault[0])
			break;
		if (at->entry < 0) {
			unplaced++;
			continue;
		}
		placed++;
		kept(h, r, (uint32_t)at->entry, clips[c].clip, fault, sizeof fault);
	}
	if (fault[0])
		verdict(r, PORT_CHECK_PLACED, false, "%s", fault);
	else
		verdict(r, PORT_CHECK_PLACED, true,
			"%u of %u donor clips placed, %u listed unplaced; frames and loop kept",
			placed, nclips, unplaced);
	free(clips);
	return MH_OK;
}

static void check_hip(struct port_result *r)
{
	int32_t hip = r->hip;
	const struct port_joint *j = hip >= 0 && (uint32_t)hip < r->njoints ? &r->joints[hip] : NULL;
	if (!j)
		verdict(r, PORT_CHECK_HIP, false, "the host has no leading origin joint");
	else if (j->bone < 0)
		verdict(r, PORT_CHECK_HIP, false, "hip %d has no donor bone", (int)hip);
	else if (j->record < 0)
		verdict(r, PORT_CHECK_HIP, false, "hip %d <- donor bone %d, which no record drives",
			(int)hip, (int)j->bone);
	else
		verdict(r, PORT_CHECK_HIP, true, "hip %d <- donor bone %d (record %d)", (int)hip,
			(int)j->bone, (int)j->record);
}

static void check_fork(const struct donor *donor, struct port_result *r)
{
	const struct records *map = &donor->map;
	int32_t first;
	uint32_t located = 0;
	for (uint32_t i = 0; i < map->nrecords; i++)
		located += map->located[i];
	if (records_fork_kept(map, &first))
		verdict(r, PORT_CHECK_FORK, true,
			"%u records with location channels, all at or above the fork %d", located,
			(int)map->fork);
	else
		verdict(r, PORT_CHECK_FORK, false,
			"record %d has location channels and drives bone %d, below the fork %d",
			(int)first, (int)records_bone(map, (uint32_t)first), (int)map->fork);
}

enum mh_err port_verify_host(const uint8_t *host, size_t host_len, const struct port_host *h,
			     const struct donor *donor, struct port_result *r, uint8_t **pac,
			     size_t *pac_len, struct mh_diag *d)
{
	uint8_t *built = NULL;
	size_t built_len = 0;
	memset(r->checks, 0, sizeof r->checks);
	free(r->tear_svg);
	r->tear_svg = NULL;
	r->tear_svg_len = 0;
	rules_report_free(&r->rules);
	r->rules = (struct rule_report){0};
	r->host_len = host_len;
	enum mh_err err = check_pac(host, host_len, h, donor, r, &built, &built_len, d);
	if (!err)
		err = check_placed(h, donor, r, d);
	if (err) {
		free(built);
		return err;
	}
	check_span(h, donor, r);
	check_scale(h, donor, r);
	check_hip(r);
	check_fork(donor, r);
	if ((err = port_own_checks(h, donor, built, built_len, r, d))) {
		free(built);
		return err;
	}
	if (pac) {
		*pac = built;
		*pac_len = built_len;
	} else {
		free(built);
	}
	return MH_OK;
}

enum mh_err port_verify(const uint8_t *host, size_t host_len, const struct donor *donor,
			struct port_result *r, struct mh_diag *d)
{
	struct port_host h;
	enum mh_err err = port_host_open_mode(host, host_len, -1, donor, r->mode, &h, d);
	if (!err && h.own && (err = port_own_body(&h, host, donor, r->skin, d)))
		port_host_free(&h);
	if (err)
		return err;
	err = port_verify_host(host, host_len, &h, donor, r, NULL, NULL, d);
	port_host_free(&h);
	return err;
}
