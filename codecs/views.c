/* SPDX-License-Identifier: MIT */
#include "names.h"
#include "views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "rig.h"
#include "rules.h"
#include "strbuf.h"

char *views_skeleton_text(const struct skeleton *s, const char *label, size_t *len)
{
	char header[256];
	snprintf(header, sizeof header, "%s: skeleton (%s), %u bones", label,
		 skeleton_game_name(s->game), s->nbones);
	return skeleton_print(s, header, len);
}

char *views_pack_text(const struct anim *a, size_t *len)
{
	return anim_print_shape(a, len);
}

bool views_stream_joints(const struct anim *a, const struct skeleton *rig, uint32_t stream,
			 uint32_t *first, uint32_t *count)
{
	return rig && a->format == CLIP_MHFU &&
	       rig_part_joints(rig, anim_mhfu_part(stream), first, count);
}

/* " - joints by records.txt: offset 0, 3 bones skipped", or that there
 * is no rig. */
static int map_heading(const struct records *map, char *buf, size_t len)
{
	if (!map->rigged)
		return snprintf(buf, len, " - no rig (records.txt)");
	return snprintf(buf, len, " - joints by records.txt: offset %u, %u bone%s skipped",
			map->offset, map->nskip, map->nskip == 1 ? "" : "s");
}

bool views_mapped(const struct anim *a, const struct records *map)
{
	return map && a->format == CLIP_P3RD;
}

/* The heading, and the part's joints in *first and *count (false when
 * unknown). */
static bool clip_heading(const struct anim *a, uint32_t clip, const char *label,
			 const struct skeleton *rig, const struct records *map, char *buf,
			 size_t len, uint32_t *first, uint32_t *count)
{
	uint32_t stream = 0, slot = 0;
	anim_first_use(a, clip, &stream, &slot);
	const struct clip *c = &a->clips[clip];
	bool known = views_stream_joints(a, rig, stream, first, count);
	char timing[96];
	int n = snprintf(buf, len, "%s stream %u slot %u", label, stream, slot);
	if (known && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " - part %u, ", anim_mhfu_part(stream));
	if (known && n >= 0 && (size_t)n < len)
		n += names_joints_phrase(buf + n, len - (size_t)n, *first, *count, c->ntracks);
	if (views_mapped(a, map) && n >= 0 && (size_t)n < len)
		n += map_heading(map, buf + n, len - (size_t)n);
	anim_clip_timing(c, timing, sizeof timing);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %s", timing);
	return known;
}

int views_clip_heading(const struct anim *a, uint32_t clip, const char *label,
		       const struct skeleton *rig, char *buf, size_t len)
{
	return views_clip_heading_mapped(a, clip, label, rig, NULL, buf, len);
}

int views_clip_heading_mapped(const struct anim *a, uint32_t clip, const char *label,
			      const struct skeleton *rig, const struct records *map, char *buf,
			      size_t len)
{
	uint32_t first, count;
	return clip_heading(a, clip, label, rig, map, buf, len, &first, &count) ? (int)first
										  : -1;
}

/* clip_track_label_fn over a record map. */
static void record_label(const void *map, uint32_t track, char *buf, size_t len)
{
	records_bone_label(map, track, buf, len);
}

char *views_clip_text(const struct anim *a, uint32_t clip, const char *label,
		      const struct skeleton *rig, size_t *len)
{
	return views_clip_text_mapped(a, clip, label, rig, NULL, len);
}

char *views_clip_text_mapped(const struct anim *a, uint32_t clip, const char *label,
			     const struct skeleton *rig, const struct records *map, size_t *len)
{
	char header[320];
	uint32_t first, count;
	bool known = clip_heading(a, clip, label, rig, map, header, sizeof header, &first, &count);
	if (views_mapped(a, map))
		return clip_print_labeled(&a->clips[clip], header, record_label, map, len);
	if (!known)
		return clip_print(&a->clips[clip], header, -1, len);
	return clip_print_at(&a->clips[clip], header, -1, (int)first, count, len);
}

char *views_check_text(const uint8_t *item, size_t item_len,
		       const struct skeleton *rig, size_t *len)
{
	struct rule_report r = {0};
	if (rules_check_item(item, item_len, NULL, 0, rig, false, &r)) {
		rules_report_free(&r);
		return NULL;
	}
	struct strbuf sb = {0};
	strbuf_printf(&sb, "# check.txt: the engine rules this model breaks now "
		      "(mount.mhfu(8) \"Rules\"), one\n# per line: CODE level "
		      "where: what (fix: how).  Read-only; it follows every "
		      "commit.\n");
	for (size_t i = 0; i < r.n; i++) {
		const struct rule_violation *v = &r.v[i];
		strbuf_printf(&sb, "%s %s %s%s%s (fix: %s)\n", rule_info(v->code)->name,
			      rule_level_name(v->level), v->member, v->member[0] ? " " : "",
			      v->msg, v->fix);
	}
	if (!r.n)
		strbuf_printf(&sb, "none: no rule is broken\n");
	rules_report_free(&r);
	return strbuf_take(&sb, len);
}
