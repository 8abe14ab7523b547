#include "views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int views_first_joint(const struct anim *a, const struct skeleton *rig,
		      uint32_t stream)
{
	if (!rig || a->format != CLIP_MHFU || rig->nparams < 2)
		return -1;
	uint32_t animated = rig->params[1] < rig->nbones ? rig->params[1] : rig->nbones;
	uint32_t *parts = malloc((animated ? animated : 1) * sizeof *parts);
	uint32_t first, count;
	int joint = -1;
	if (!parts)
		return -1;
	for (uint32_t j = 0; j < animated; j++)
		parts[j] = rig->bones[j].part;
	if (anim_part_joints(parts, animated, anim_mhfu_part(stream), &first, &count))
		joint = (int)first;
	free(parts);
	return joint;
}

int views_clip_heading(const struct anim *a, uint32_t clip, const char *label,
		       const struct skeleton *rig, char *buf, size_t len)
{
	uint32_t stream = 0, slot = 0;
	anim_first_use(a, clip, &stream, &slot);
	int first = views_first_joint(a, rig, stream);
	uint32_t ntracks = a->clips[clip].ntracks;
	if (first >= 0 && ntracks)
		snprintf(buf, len, "%s stream %u slot %u - part %u, joints %d..%u", label,
			 stream, slot, anim_mhfu_part(stream), first,
			 (uint32_t)first + ntracks - 1);
	else
		snprintf(buf, len, "%s stream %u slot %u", label, stream, slot);
	return first;
}

char *views_clip_text(const struct anim *a, uint32_t clip, const char *label,
		      const struct skeleton *rig, size_t *len)
{
	char header[256];
	int first = views_clip_heading(a, clip, label, rig, header, sizeof header);
	return clip_print(&a->clips[clip], header, first, len);
}

void views_slot_name(uint32_t slot, enum views_slot_file file, char *buf, size_t len)
{
	static const char *const ext[] = {[VIEWS_SLOT_TXT] = "txt", [VIEWS_SLOT_BIN] = "bin",
					  [VIEWS_SLOT_SVG] = "svg"};
	snprintf(buf, len, "slot%03u.%s", slot, ext[file]);
}

void views_slot_link(const struct anim *a, uint32_t stream, uint32_t slot,
		     enum views_slot_file file, char *buf, size_t len)
{
	uint32_t fs, fslot;
	char name[32];
	int32_t clip = a->streams[stream].slots[slot];
	buf[0] = '\0';
	if (clip < 0 || !anim_first_use(a, (uint32_t)clip, &fs, &fslot) ||
	    (fs == stream && fslot == slot))
		return;
	views_slot_name(fslot, file, name, sizeof name);
	if (fs == stream)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "../stream%u/%s", fs, name);
}

/* ---- names ------------------------------------------------------------ */

/* The community's number of engine id `id`. */
static long long entry_number(uint32_t id)
{
	return (long long)id - 1;
}

void views_entry_dir_name(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld", entry_number(id));
}

void views_entry_file_name(uint32_t id, enum kind kind, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld%s", entry_number(id), kind_ext(kind));
}

void views_entry_label(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "entry %u (file_%05lld)", id, entry_number(id));
}

void views_member_name(uint32_t index, enum kind kind, char *buf, size_t len)
{
	snprintf(buf, len, "%u%s", index, kind_ext(kind));
}

void views_item_dir_name(uint32_t id, const uint16_t *path, unsigned depth,
			 char *buf, size_t len)
{
	views_entry_dir_name(id, buf, len);
	for (unsigned i = 0; i < depth; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "/%u", path[i]);
	}
}

void views_item_name(uint32_t id, const uint16_t *path, unsigned depth,
		     enum kind kind, char *buf, size_t len)
{
	if (depth == 0) {
		views_entry_file_name(id, kind, buf, len);
		return;
	}
	views_item_dir_name(id, path, depth - 1, buf, len);
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "/");
	used = strlen(buf);
	views_member_name(path[depth - 1], kind, buf + used, len - used);
}
