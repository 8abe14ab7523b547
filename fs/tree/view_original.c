/* SPDX-License-Identifier: MIT */
/* .mhfu/original/: the original tree (original.h).  In a DATA.BIN mount
 * it lists the entries ever changed, as the root lists every entry (raw
 * file and folder); in a single-PAC mount it is the PAC's folder, as the
 * root is.  Every node beneath is an item node of the original archive,
 * read-only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "item.h"
#include "view_root.h"
#include "node.h"
#include "original.h"

/* ---- the source: the history's originals ------------------------------- */

static bool source_has(void *ctx, uint32_t id)
{
	return history_changed(ctx, id);
}

static uint64_t source_size(void *ctx, uint32_t id)
{
	return history_original_len(ctx, id);
}

static int source_read(void *ctx, uint32_t id, uint64_t off, void *buf, size_t len)
{
	const uint8_t *bytes;
	size_t n;
	int err = history_original(ctx, id, &bytes, &n);
	if (!err && off + len > n)
		err = EIO;
	if (!err)
		memcpy(buf, bytes + off, len);
	return err;
}

/* What an entry of the mounted archive holds now, for the history's check. */
static int current(void *ctx, uint32_t entry, uint64_t *len, uint32_t *crc)
{
	struct archive *ar = ctx;
	uint64_t size = archive_entry_size(ar, entry);
	uint8_t *bytes = malloc(size ? size : 1);
	if (!bytes)
		return ENOMEM;
	int err = archive_read_all(ar, entry, 0, bytes, size);
	if (!err) {
		*len = size;
		*crc = history_crc(bytes, size);
	}
	free(bytes);
	return err ? EIO : 0;
}

int original_open(struct mhfs *fs, size_t max_commits, struct fs_diag *msg)
{
	static struct archive_source source = {source_has, source_size, source_read, NULL};
	source.ctx = &fs->history;
	struct journal *j = &fs->ar.store.journal;
	int err = history_open(&fs->history, fs->record.dir, fs->ar.count, max_commits,
			       j->recovered, j->nrecovered, current, &fs->ar, msg);
	if (err == ENOMEM)
		return err;
	/* The records the journal replayed are the history's now. */
	struct fs_diag why = {""};
	if (store_forget_recovered(&fs->ar.store, &why))
		mlog_printf(&fs->log, "%s", why.msg);
	fs->ar.store.hook = history_hook;
	fs->ar.store.hook_ctx = &fs->history;
	if (archive_open_source(&fs->original, &fs->ar, &source)) {
		history_close(&fs->history);
		fs_diag_printf(msg, "out of memory");
		return ENOMEM;
	}
	return err;
}

void original_close(struct mhfs *fs)
{
	archive_finish(&fs->ar); /* with the history's hook */
	fs->ar.store.hook = NULL;
	fs->ar.companion = NULL;
	archive_close(&fs->original);
	history_close(&fs->history);
}

bool original_differs(struct mhfs *fs, uint32_t entry)
{
	const uint8_t *was;
	size_t was_len;
	if (history_original(&fs->history, entry, &was, &was_len))
		return false;
	uint64_t size = archive_entry_size(&fs->ar, entry);
	if (size != was_len)
		return true;
	uint8_t *now = malloc(size ? size : 1);
	bool differs = now && !archive_read_all(&fs->ar, entry, 0, now, size) &&
		       memcmp(now, was, size);
	free(now);
	return differs;
}

uint64_t original_last_commit(const struct mhfs *fs, uint32_t entry)
{
	for (size_t i = fs->history.n; i-- > 0;)
		if (fs->history.commits[i].entry == entry)
			return fs->history.commits[i].id;
	return 0;
}

/* ---- the folder --------------------------------------------------------- */

static int original_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)fs;
	(void)n;
	(void)t;
	return 0;
}

/* A single PAC's original folder, resolved: what the root of such a
 * mount shows, as it was. */
static int pac_folder(struct mhfs *fs, struct node *dir, struct node_target *t)
{
	*dir = (struct node){.type = NODE_DIR, .original = true};
	return node_resolve(fs, dir, t);
}

/* In a DATA.BIN mount, two positions per entry, as at the root: its
 * file, its folder.  In a single-PAC mount, the PAC's folder's names and
 * positions (its fixed-name views too: check.txt, model.glb). */
static bool original_child_named(struct mhfs *fs, const struct node *dir,
				 const struct node_target *t, const char *name,
				 struct node *child)
{
	(void)dir;
	(void)t;
	struct node pac;
	struct node_target pt;
	uint32_t id;
	const char *end;
	if (fs->ar.format == FORMAT_PAC)
		return !pac_folder(fs, &pac, &pt) && !node_lookup(fs, &pac, name, child);
	if (!root_entry_of(&fs->original, name, &id, &end) || !history_changed(&fs->history, id))
		return false;
	enum kind k = archive_entry_kind(&fs->original, id);
	*child = (struct node){.type = *end ? NODE_FILE : node_folder_type(k), .entry = id,
			       .original = true};
	return child->type != NODE_NONE;
}

static enum view_child original_child_at(struct mhfs *fs, const struct node *dir,
					 const struct node_target *t, uint64_t pos,
					 struct node *child)
{
	(void)dir;
	(void)t;
	struct node pac;
	struct node_target pt;
	if (fs->ar.format == FORMAT_PAC) {
		char name[256];
		uint64_t at = pos;
		if (pac_folder(fs, &pac, &pt) ||
		    !node_child_at(fs, &pac, &at, child, name, sizeof name))
			return CHILD_END;
		return at == pos ? CHILD_FOUND : CHILD_SKIP;
	}
	uint64_t i = (pos - NODE_POS_FIRST) / 2;
	bool folder = (pos - NODE_POS_FIRST) % 2;
	if (i >= fs->original.count)
		return CHILD_END;
	if (!history_changed(&fs->history, (uint32_t)i))
		return CHILD_SKIP;
	enum node_type type = folder ? node_folder_type(archive_entry_kind(&fs->original,
									   (uint32_t)i))
				     : NODE_FILE;
	*child = (struct node){.type = type, .entry = (uint32_t)i, .original = true};
	return type == NODE_NONE ? CHILD_SKIP : CHILD_FOUND;
}

const struct view_class view_original = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_META,
	.fixed_name = "original",
	.resolve = original_resolve,
	.child_named = original_child_named,
	.child_at = original_child_at,
};
