/* SPDX-License-Identifier: MIT */
/* View classes: what each kind of file or folder of the mount is.
 *
 * HOW TO ADD A VIEW
 *   1. Write fs/tree/view_NAME.c defining `const struct view_class view_NAME`:
 *      its flags, its name in its folder, its folder, how it resolves
 *      against the archive, and the callbacks of its kind (a folder lists
 *      and looks up its children; a file may give its contents; a
 *      writable file encodes an edit).  Unused callbacks stay NULL.
 *   2. Add one line to VIEW_TABLE below: X(NODE_NAME, view_NAME).  The
 *      table's order is part of the inode scheme (a view's type is its
 *      line, and the mount's own nodes are their type as inode number),
 *      so a new line goes at the end.
 * A view with a fixed name in a folder (skeleton.txt, .mhfu/info) says
 * which folder in `in`: lookup and listing find it there by themselves,
 * so the folder's class needs no change.  One that every model folder
 * shows (check.txt) also names the other folder types in `also_in`; its
 * folder is then the one its item shows as.
 *   3. Say in `source` what a file view's contents are made from, so
 *      that a commit retires the view's inode number only when it may
 *      change it (invalidate.h); left out, every commit to its entry does.
 * Inode numbers, lookup, listing, paths, attributes, open, read and the
 * commit all dispatch through the table (node.c); nothing else changes.
 *
 * A class's `name` is the only place its name is made: lookups (which
 * parse a candidate from the name, then compare it with the name the
 * candidate would have), listings and paths all call it.
 *
 * Callbacks run with the archive's io lock held (shared, or exclusively
 * in a commit) and return 0 or an errno: ENOENT when the view is absent,
 * anything else when it exists but could not be had (ENOMEM, EIO). */
#ifndef FS_VIEW_H
#define FS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fserror.h"
#include "anim.h"
#include "diag.h"
#include "kind.h"
#include "rules.h"
#include "view_names.h"

struct mhfs;
struct record_text;
struct stat;
struct node;
struct node_target;
struct edit;
struct commit_result;

/* The view classes, in inode order: a view's type is its line here (the
 * mount's own nodes are their type as inode number; the root must be 1,
 * as FUSE requires). */
#define VIEW_TABLE(X)                                                           \
	X(NODE_ROOT, view_root)         /* the mount of a DATA.BIN */           \
	X(NODE_META, view_meta)         /* .mhfu/ */                            \
	X(NODE_INFO, view_info)         /* .mhfu/info */                        \
	X(NODE_LOG, view_log)           /* .mhfu/log */                         \
	X(NODE_INDEX, view_index)       /* index.tsv */                         \
	X(NODE_REJECTED, view_rejected) /* .mhfu/rejected/: kept texts */       \
	X(NODE_FILE, view_raw)          /* an item's raw bytes */               \
	X(NODE_DIR, view_pac_dir)       /* a PAC's folder of members */         \
	X(NODE_SKEL_DIR, view_skeleton_dir) /* a skeleton's folder */           \
	X(NODE_SKEL_TXT, view_skeleton_txt) /* DIR/skeleton.txt */              \
	X(NODE_BIND_WORLD, view_bind_world) /* DIR/bind_world.tsv */            \
	X(NODE_PACK_DIR, view_pack_dir) /* an animation pack's folder */        \
	X(NODE_PACK_TXT, view_pack_txt) /* DIR/pack.txt */                      \
	X(NODE_STREAM, view_stream_dir) /* DIR/streamK/ */                      \
	X(NODE_SLOT_TXT, view_slot_txt) /* DIR/streamK/slotNNN.txt */           \
	X(NODE_SLOT_BIN, view_slot_bin) /* DIR/streamK/slotNNN.bin */          \
	X(NODE_ENTRIES_DIR, view_entries_dir) /* DIR/entries/ (MHFU) */          \
	X(NODE_ENTRY_TXT, view_entry_txt) /* DIR/entries/entryNNN.txt */        \
	X(NODE_ENTRIES_INDEX, view_entries_index) /* DIR/entries/index.tsv */  \
	X(NODE_CHECK, view_check)       /* a model folder's check.txt */        \
	X(NODE_SLOT_SVG, view_slot_svg) /* DIR/streamK/slotNNN.svg */           \
	X(NODE_ENTRY_SVG, view_entry_svg) /* DIR/entries/entryNNN.svg */        \
	X(NODE_TMH_DIR, view_tmh_dir)   /* a texture bank's folder */            \
	X(NODE_TMH_PNG, view_tmh_png)   /* DIR/imageNN.png */                   \
	X(NODE_MODEL_GLB, view_model_glb) /* PAC/model.glb */                  \
	X(NODE_RECORDS_TXT, view_records_txt) /* DIR/records.txt (MHP3rd) */    \
	X(NODE_HISTORY, view_history)   /* .mhfu/history */                     \
	X(NODE_UNDO, view_undo)         /* .mhfu/undo */                        \
	X(NODE_CHANGED, view_changed)   /* .mhfu/changed.tsv */                 \
	X(NODE_ORIGINAL, view_original) /* .mhfu/original/ */                   \
	X(NODE_EXPORT, view_export)     /* .mhfu/export/ */                     \
	X(NODE_EXPORT_FU, view_export_fu) /* export/NATIVEPSP/ */               \
	X(NODE_EXPORT_FU_FILE, view_export_fu_file) /* export/NATIVEPSP/NNNN */ \
	X(NODE_EXPORT_BITMAP, view_export_bitmap) /* export/NATIVEPSP/FILE.BIN */ \
	X(NODE_EXPORT_P3, view_export_p3) /* export/P3rdML/ */                  \
	X(NODE_EXPORT_P3_FILES, view_export_p3_files) /* export/P3rdML/files/ */ \
	X(NODE_EXPORT_P3_FILE, view_export_p3_file) /* export/P3rdML/files/XXXX */ \
	X(NODE_BY_NAME, view_by_name)   /* by-name/ */                          \
	X(NODE_BY_NAME_LINK, view_by_name_link) /* by-name/tigrex */          \
	X(NODE_PMO_DIR, view_pmo_dir)   /* a PMO's folder */                    \
	X(NODE_PMO_MESH, view_pmo_mesh) /* DIR/mesh.txt */                      \
	X(NODE_PMO_VERTICES, view_pmo_vertices) /* DIR/vertices.tsv */          \
	X(NODE_PMO_MATERIALS, view_pmo_materials) /* DIR/materials.tsv */  \
	X(NODE_DONOR_PAC, view_donor_pac) /* an MHP3rd model's donor.pac */     \
	X(NODE_PORT_DIR, view_port_dir) /* an MHFU model's port/ */             \
	X(NODE_PORT_TXT, view_port_txt) /* port/port.txt */                     \
	X(NODE_PORT_DONOR, view_port_donor) /* port/donor.pac */                \
	X(NODE_PORT_MAP, view_port_map) /* port/map.tsv */                      \
	X(NODE_PORT_LAYOUT, view_port_layout) /* port/layout.tsv */             \
	X(NODE_PORT_CHECK, view_port_check) /* port/check.txt */                \
	X(NODE_PORT_GLB, view_port_glb) /* port/model.glb */                    \
	X(NODE_PORT_OUT, view_port_out) /* port/out.pac */                      \
	X(NODE_PORT_TEAR, view_port_tear) /* port/tear.svg (mode own) */        \
	X(NODE_ENTRY_GLB, view_entry_glb) /* DIR/entries/entryNNN.glb (written) */ \
	X(NODE_SLOT_GLB, view_slot_glb) /* DIR/streamK/slotNNN.glb (written) */ \
	X(NODE_PMO_GLB, view_pmo_glb)   /* a PMO's mesh.glb (written) */

#define VIEW_ENUM(type, cls) type,
enum node_type { NODE_NONE, VIEW_TABLE(VIEW_ENUM) NODE_TYPES };
#undef VIEW_ENUM

enum view_flags {
	VIEW_DIR = 1 << 0,       /* a folder */
	VIEW_ITEM = 1 << 1,      /* of an item: the node's entry and path say which */
	VIEW_STREAM = 1 << 2,    /* the node's stream field is used */
	VIEW_SLOT = 1 << 3,      /* the node's slot field is used */
	VIEW_WRITABLE = 1 << 4,  /* can be opened for writing (encode) */
	VIEW_REMOVABLE = 1 << 5, /* unlink and symlink are edits (a slot's file) */
	VIEW_LIVE = 1 << 6,      /* changes as the mount runs: never cached */
	VIEW_EXPANDS = 1 << 7,   /* the folder of an item of kind `expands` */
	VIEW_READ_ONLY = 1 << 8, /* a folder nothing is created in or removed
				    from, not even scratch files (EROFS) */
	VIEW_UNLOCKED = 1 << 9,  /* made without the archive's io lock (its
				    callbacks take what they need), so it
				    answers while a commit holds it */
	VIEW_SIZED_BY_MAKING = 1 << 10, /* a file whose size is known only by
				    making it (a plot, model.glb, a PNG, check.txt):
				    a listing gives its name and number, and leaves
				    its attributes to a lookup, so `ls` and a glob
				    make none of them */
};

/* What a file view's contents are made from (invalidate.c). */
enum view_source {
	SOURCE_ENTRY,  /* anything of its entry (and of the entries whose views
			  read it: mount.mhfu(8) "MHP3rd movesets") */
	SOURCE_BYTES,  /* its item's bytes alone (a raw file): changed with the
			  item, its containers or its members */
	SOURCE_MODEL,  /* its item's model (a skeleton's, pack's or texture
			  bank's texts and images): changed with the item, and
			  unless the edit was of another pack, with anything of
			  its entry (the rig beside a pack) */
};

/* Where a folder's listing stands at a position (child_at). */
enum view_child { CHILD_FOUND, CHILD_SKIP, CHILD_END };

struct view_class {
	unsigned flags;
	enum view_source source; /* a file view: what its contents are made from */
	enum node_type in;      /* a view with a fixed name: its folder's type;
				   listed there first, in table order */
	enum node_type also_in[2]; /* more folder types it is in (NODE_NONE:
				      none): its item's folder is its own */
	enum kind expands;      /* VIEW_EXPANDS: the item kind it is the folder of */
	/* Its name in its folder: always fixed_name, or made by name(). */
	const char *fixed_name;
	void (*name)(struct mhfs *fs, const struct node *n, char *buf, size_t len);
	/* Its folder (NULL: `in`, of the same item; neither: the root). */
	void (*parent)(const struct node *n, struct node *dir);
	/* Whether it exists and what it stands for (node.h). */
	int (*resolve)(struct mhfs *fs, const struct node *n, struct node_target *t);
	/* Whether it exists, when that is cheaper to tell than resolving;
	 * NULL: resolve. */
	bool (*exists)(struct mhfs *fs, const struct node *n);

	/* Folders, besides their fixed-name children.  The child a name
	 * would be, if any (node_lookup then checks its name and that it
	 * exists); the child at listing position pos (from NODE_POS_FIRST:
	 * positions are the folder's own); names that look like a view
	 * of this folder but are none, with what the names are; the view a
	 * new file would fill (an empty slot). */
	bool (*child_named)(struct mhfs *fs, const struct node *dir,
			    const struct node_target *t, const char *name, struct node *child);
	enum view_child (*child_at)(struct mhfs *fs, const struct node *dir,
				    const struct node_target *t, uint64_t pos,
				    struct node *child);
	bool (*reserved)(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why);
	bool (*fillable)(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct node *view);

	/* Files.  Contents made afresh at each use (the mount's live files,
	 * .mhfu/info and log; a view of a decoded model keeps its text with
	 * the model instead, its resolve setting the target's text);
	 * NULL: the target's text, or its bytes in the archive. */
	int (*contents)(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len);
	/* Writable files: the item's new bytes from an edit of this view
	 * and the item's old bytes; *format is the pack's clip format when
	 * its bytes do not say (no clip), set to the pack's. */
	enum mh_err (*encode)(const struct edit *e, const uint8_t *old, size_t old_len,
			      enum clip_format *format, uint8_t **out, size_t *out_len,
			      struct mh_diag *d);
	/* Whether an edit of this view changes the entry after its item's
	 * instead of the item (an MHP3rd PMO's vertices, kept in that entry:
	 * view_pmo.c); NULL: never.  The encoder then gets that entry's bytes
	 * as the old ones, and e->next_entry. */
	bool (*to_next_entry)(struct mhfs *fs, const struct node *view);
	/* The line of the edited text a rule violation points at, 0 if none. */
	unsigned (*violation_line)(const struct edit *e, const struct rule_violation *v);
	/* Writable files kept outside the archive (records.txt): the whole
	 * commit of an edit, instead of encode, with the io lock held
	 * exclusively; fills r as commit_edit does (commit.h) and returns
	 * its errno. */
	int (*commit)(struct mhfs *fs, const struct edit *e, struct commit_result *r);
	/* A file whose writes are requests (.mhfu/undo): judges what one
	 * write holds before the write returns, called with no lock held; 0
	 * or the write's errno.  An edit to carry out goes to *then, its
	 * data malloc'ed (the caller saves and frees it; NULL: none).
	 * Nothing is committed at close. */
	int (*request)(struct mhfs *fs, const struct node *n, const uint8_t *data, size_t len,
		       struct edit *then);
	/* A folder that also holds files of its own, not views (the kept
	 * texts of .mhfu/rejected/), served by these: looking one up (0 and
	 * its attributes, or ENOENT), listing them (a malloc'ed array, in
	 * order), removing one (ENOENT: none of that name); and the errno of
	 * creating a name there (0: allowed) and of moving one in or out
	 * (0: allowed).  Its files' inode numbers are RECORD_INO's (the
	 * third inode namespace, ino_space). */
	int (*own_lookup)(struct mhfs *fs, const char *name, struct stat *st);
	int (*own_list)(struct mhfs *fs, struct record_text **files, size_t *count);
	int (*own_unlink)(struct mhfs *fs, const char *name);
	int create_error;
	int rename_error;
};

/* A folder's own file by its inode number (INO_OWN, mhfs.h): its
 * attributes as the mount shows them and, when data is not NULL, its
 * bytes, malloc'ed.  0 or an errno (view_meta.c: the record's texts). */
int own_file_get(struct mhfs *fs, uint64_t ino, struct stat *st, uint8_t **data,
		 size_t *len);

#define VIEW_DECLARE(type, cls) extern const struct view_class cls;
VIEW_TABLE(VIEW_DECLARE)
#undef VIEW_DECLARE

#endif
