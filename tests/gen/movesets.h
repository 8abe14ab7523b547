/* SPDX-License-Identifier: MIT */
/* The record map the mount shows for an MHP3rd pack (mount.mhfu(8)
 * "MHP3rd movesets"), made with the codecs alone: the sample's
 * extraction and mhfudump, the mount tests' oracles, use it.
 *
 * A pack in a PAC plays on the PAC's first skeleton; a standalone one
 * (an entry of its own) on the first skeleton of the model PAC
 * RECORDS_RIG_BEFORE entries before it, its monster named by the overlay
 * that opens the model's group (records_find_monster).  Everything is
 * static inline: a tool includes what it uses. */
#ifndef TESTS_MOVESETS_H
#define TESTS_MOVESETS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "pac.h"
#include "records.h"
#include "skeleton.h"
#include "names.h"

/* Entry `id`'s bytes as the mount shows them, malloc'ed (*len of them);
 * NULL when there is no such entry. */
typedef uint8_t *moveset_entry_fn(void *ctx, uint32_t id, size_t *len);

/* What an MHP3rd pack's map is made from. */
struct moveset_source {
	const struct skeleton *rig; /* NULL: no rig */
	struct skeleton own;        /* moveset_source_of's rig (moveset_source_free) */
	char rig_label[96];         /* "file_05248/0.skeleton" */
	int monster;
	char monster_from[128];     /* "file_05246.ovl, em058m0.ovl"; "": not known */
};

static inline void moveset_source_free(struct moveset_source *src)
{
	if (src->rig == &src->own)
		skeleton_free(&src->own);
	src->rig = NULL;
}

/* The map of pack a as the mount makes it (no override) into *map: 1;
 * 0 for a pack that is not MHP3rd's; -1 when out of memory. */
static inline int moveset_map(const struct anim *a, const struct moveset_source *src,
			      struct records *map)
{
	if (a->format != CLIP_P3RD)
		return 0;
	return records_init(map, src ? src->rig : NULL, a,
			    src ? src->monster : RECORDS_NO_MONSTER, NULL) ? -1 : 1;
}

/* records.txt of that map. */
static inline char *moveset_records_text(const struct records *map, const char *label,
					 const struct moveset_source *src, size_t *len)
{
	return records_print(map, label, src && src->rig ? src->rig_label : NULL,
			     src && src->monster_from[0] ? src->monster_from : NULL, len);
}

struct moveset_reader {
	moveset_entry_fn *get;
	void *ctx;
};

static inline long moveset_head(void *ctx, uint32_t id, uint8_t *buf, size_t len)
{
	struct moveset_reader *rd = ctx;
	size_t n;
	uint8_t *p = rd->get(rd->ctx, id, &n);
	if (!p)
		return -1;
	if (n > len)
		n = len;
	memcpy(buf, p, n);
	free(p);
	return (long)n;
}

/* The first skeleton member of the PAC in p[0..n), decoded into *rig:
 * its index; -1 when there is none or it does not decode. */
static inline int moveset_pac_rig(const uint8_t *p, size_t n, struct skeleton *rig)
{
	struct pac pac;
	int found = -1;
	if (kind_of(p, n) != KIND_PAC || pac_decode(p, n, &pac, NULL))
		return -1;
	for (uint32_t i = 0; i < pac.count; i++) {
		const uint8_t *m = p + pac.entries[i].offset;
		uint32_t size = pac.entries[i].size;
		if (!size || kind_of(m, size) != KIND_SKELETON)
			continue;
		if (!skeleton_decode(m, size, rig, NULL))
			found = (int)i;
		break;
	}
	pac_free(&pac);
	return found;
}

/* The source of the standalone moveset at entry `id` (the caller frees
 * it: moveset_source_free): false when it is none (no model PAC with a
 * skeleton before it), *src then rigless. */
static inline bool moveset_source_of(uint32_t id, moveset_entry_fn *get, void *ctx,
				     struct moveset_source *src)
{
	struct moveset_reader rd = {get, ctx};
	*src = (struct moveset_source){.monster = RECORDS_NO_MONSTER};
	if (id < RECORDS_RIG_BEFORE)
		return false;
	uint32_t model = id - RECORDS_RIG_BEFORE;
	size_t n;
	uint8_t *p = get(ctx, model, &n);
	int member = p ? moveset_pac_rig(p, n, &src->own) : -1;
	free(p);
	if (member < 0)
		return false;
	src->rig = &src->own;
	char dir[32], name[RECORDS_OVERLAY_HEAD], file[32];
	names_entry_dir(model, dir, sizeof dir);
	snprintf(src->rig_label, sizeof src->rig_label, "%s/%d.skeleton", dir, member);
	uint32_t from;
	src->monster = records_find_monster(model, moveset_head, &rd, &from, name, sizeof name);
	if (src->monster != RECORDS_NO_MONSTER) {
		names_entry_file(from, KIND_OVL, file, sizeof file);
		snprintf(src->monster_from, sizeof src->monster_from, "%s, %s", file, name);
	}
	return true;
}

#endif
