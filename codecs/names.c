/* SPDX-License-Identifier: MIT */
/* The mount's names (names.h). */
#include "names.h"

#include <stdio.h>
#include <string.h>

int names_joints_phrase(char *buf, size_t len, uint32_t first, uint32_t count,
			uint32_t ntracks)
{
	int n = snprintf(buf, len, "joints %u..%u", first, first + count - 1);
	if (ntracks != count && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (the clip has %u tracks)", ntracks);
	return n;
}

void names_slot(uint32_t slot, enum names_slot_file file, char *buf, size_t len)
{
	static const char *const ext[] = {[NAMES_SLOT_TXT] = "txt", [NAMES_SLOT_BIN] = "bin",
					  [NAMES_SLOT_SVG] = "svg"};
	snprintf(buf, len, "slot%03u.%s", slot, ext[file]);
}

void names_slot_link(const struct anim *a, uint32_t stream, uint32_t slot,
		     enum names_slot_file file, char *buf, size_t len)
{
	uint32_t fs, fslot;
	char name[32];
	int32_t clip = a->streams[stream].slots[slot];
	buf[0] = '\0';
	if (clip < 0 || !anim_first_use(a, (uint32_t)clip, &fs, &fslot) ||
	    (fs == stream && fslot == slot))
		return;
	names_slot(fslot, file, name, sizeof name);
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

void names_entry_dir(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld", entry_number(id));
}

void names_entry_file(uint32_t id, enum kind kind, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld%s", entry_number(id), kind_ext(kind));
}

void names_entry_label(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "entry %u (file_%05lld)", id, entry_number(id));
}

void names_member(uint32_t index, enum kind kind, char *buf, size_t len)
{
	snprintf(buf, len, "%u%s", index, kind_ext(kind));
}

void names_item_dir(uint32_t id, const uint16_t *path, unsigned depth,
			 char *buf, size_t len)
{
	names_entry_dir(id, buf, len);
	for (unsigned i = 0; i < depth; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "/%u", path[i]);
	}
}

void names_item(uint32_t id, const uint16_t *path, unsigned depth,
		     enum kind kind, char *buf, size_t len)
{
	if (depth == 0) {
		names_entry_file(id, kind, buf, len);
		return;
	}
	names_item_dir(id, path, depth - 1, buf, len);
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "/");
	used = strlen(buf);
	names_member(path[depth - 1], kind, buf + used, len - used);
}
