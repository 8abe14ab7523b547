/* SPDX-License-Identifier: MIT */
/* The names the mount gives things (mount.mhfu(8) "THE TREE"): entries,
 * members, items and slots, and how a clip's heading names its joints.
 * Leaf helpers: they call no other module of codecs/ but kind.h's
 * extensions and anim.h's first use, so the text views, the rules and the
 * driver all name things alike without calling each other. */
#ifndef MH_NAMES_H
#define MH_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "kind.h"

/* "joints 31..39", and " (the clip has 5 tracks)" when ntracks is not
 * count: how a clip's heading names its part's joints.  Into buf (len
 * bytes, cut short as snprintf does); returns what snprintf does. */
int names_joints_phrase(char *buf, size_t len, uint32_t first, uint32_t count,
			uint32_t ntracks);

/* A slot's files: its clip as text, its bytes, its curves' plots. */
enum names_slot_file { NAMES_SLOT_TXT, NAMES_SLOT_BIN, NAMES_SLOT_SVG };

/* The file name of a slot's view, "slot024.txt", "slot024.bin" or
 * "slot024.svg", and the target of a slot's symlink when it shares an
 * earlier slot's clip ("slot000.txt" or "../stream0/slot000.txt"); ""
 * when it does not. */
void names_slot(uint32_t slot, enum names_slot_file file, char *buf, size_t len);
void names_slot_link(const struct anim *a, uint32_t stream, uint32_t slot,
		     enum names_slot_file file, char *buf, size_t len);

/* ---- names (mount.mhfu(8) "THE TREE") ---------------------------------
 * Entries go by the community's numbering: engine id minus one, five
 * digits, so id 6186 is file_06185 and id 0 is file_-0001.  Each writes
 * at most len (>= 1) bytes, NUL included, cutting the name short if need
 * be. */

/* An entry's folder: "file_06185". */
void names_entry_dir(uint32_t id, char *buf, size_t len);

/* An entry's file, its extension from its kind: "file_06185.pac". */
void names_entry_file(uint32_t id, enum kind kind, char *buf, size_t len);

/* An entry in messages about the archive as a whole:
 * "entry 6186 (file_06185)". */
void names_entry_label(uint32_t id, char *buf, size_t len);

/* A PAC member's file, by its index and kind: "3.anim". */
void names_member(uint32_t index, enum kind kind, char *buf, size_t len);

/* The item at path[0..depth) of entry id (a member of nested PACs, as
 * pacpath.h addresses it) from the mount's root, `kind` being the
 * item's: its containers' folders, then its file ("file_06185/3.anim",
 * "file_00100/1/0.skeleton"); at depth 0 the entry's file.  The label of
 * the item in comments and the log. */
void names_item(uint32_t id, const uint16_t *path, unsigned depth,
		     enum kind kind, char *buf, size_t len);

/* The folder of that item: "file_06185/3"; at depth 0 "file_06185". */
void names_item_dir(uint32_t id, const uint16_t *path, unsigned depth,
			 char *buf, size_t len);

#endif
