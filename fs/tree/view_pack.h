/* SPDX-License-Identifier: MIT */
/* The animation pack's family (view_pack.c): its folder, its slots'
 * clips, and re-encoding it after an edit of any of its views. */
#ifndef FS_VIEW_PACK_H
#define FS_VIEW_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "edit.h"
#include "model.h"
#include "node.h"

/* The pack folder of a view in it (view_pack.c); resolving it (ENOENT
 * when its pack does not decode); a slot's clip index, -1 when the slot
 * does not exist or is empty. */
void pack_folder_of(const struct node *n, struct node *dir);
/* The stream folder of a view in it (a slot's file, its .glb). */
void pack_stream_of(const struct node *n, struct node *dir);
int pack_resolve(struct mhfs *fs, const struct node *n, struct node_target *t);
int32_t pack_slot_clip(const struct model *m, unsigned stream, unsigned slot);

/* A pack's new bytes after one edit: decoded from old (*format when its
 * bytes do not say, then set to the pack's) or taken from e->decoded,
 * edited by apply, compacted, encoded. */
typedef enum mh_err pack_edit_fn(const struct edit *e, struct anim *a, struct mh_diag *d);
enum mh_err pack_reencode(const struct edit *e, const uint8_t *old, size_t old_len,
			  enum clip_format *format, pack_edit_fn *apply, uint8_t **out,
			  size_t *out_len, struct mh_diag *d);

#endif
