/* SPDX-License-Identifier: MIT */
/* An edit of a view and what became of it: what the tree's view classes
 * encode, commit or ask for (view.h), and what the commit layer carries
 * out (commit.h) and reports (report.h). */
#ifndef FS_EDIT_H
#define FS_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "inodes.h"
#include "node.h"
#include "rules.h"

enum edit_kind {
	EDIT_WRITE,       /* the view's new contents (a new slot file too) */
	EDIT_EMPTY_SLOT,  /* a slot file removed */
	EDIT_SHARE_SLOT,  /* a slot file made a link to another slot */
};

struct edit {
	enum edit_kind kind;
	struct node view;          /* the view edited */
	const uint8_t *data;       /* EDIT_WRITE */
	size_t len;
	uint32_t share_stream;     /* EDIT_SHARE_SLOT: the slot whose clip */
	uint32_t share_slot;       /*   the view's slot plays too */
	uint64_t undoes;           /* the commit it undoes (.mhfu/undo), 0 if none */
	bool next_entry;           /* set by commit_edit: the edit is committed to
				      the entry after the view's, not to its
				      item (view.h to_next_entry) */
	double fit[2];             /* set by commit_edit: -o fit='s tolerances
				      (rotation, location; 0: the defaults) for a
				      glTF's keys (entries.h entries_from_gltf) */
	struct model *decoded;     /* set by commit_edit: the edited pack's cached
				      model, decoded from the bytes edited; an
				      encoder may take its pack (model_take_pack,
				      as pack_reencode does).  NULL: decode the
				      bytes */
};

/* What a commit did, for the FUSE layer to report (report.h) and to
 * drop from the kernel's caches (save.c). */
enum commit_outcome {
	COMMIT_DONE,       /* the archive holds the edit, durably */
	COMMIT_UNCHANGED,  /* the edit gave the bytes there already */
	COMMIT_REFUSED,    /* the edit does not encode or breaks a rule */
	COMMIT_FAILED,     /* the archive or memory failed: not judged */
};

struct commit_result {
	enum commit_outcome outcome;
	int err;                  /* 0; EINVAL when refused; a failure's errno */
	char path[512];           /* the view's path */
	struct mh_diag diag;      /* refused by its encoding: what and where */
	struct rule_report rules; /* violations: errors refused it, else warnings */
	char why[512];            /* failed: why */
	char note[512];           /* done outside the archive: what was done */
	uint32_t entry;           /* the entry edited */
	size_t entry_len;         /* done: its new size */
	uint64_t history_id;      /* done: the commit's id in .mhfu/history */
	bool replayed;            /* a pending journal was completed first, */
	uint32_t replayed_entry;  /*   of this entry */
	uint8_t *removed_text;    /* a slot removal: the text of the clip that */
	size_t removed_len;       /*   left the pack (NULL: none, or shared) */
	char removed_path[512];
	struct ino_plan plan;     /* the inode numbers it retired, and what else
				     the kernel is to drop (invalidate.h) */
};

/* Commits an edit: returns r->err, and r says what happened.  Reports
 * nothing and invalidates nothing: the caller does (save_edit).  Free r
 * with commit_result_free. */

#endif
