/* SPDX-License-Identifier: MIT */
/* The mount's own folder, .mhfu/: info (what the archive is and how the
 * mount is doing), log (what the mount did and refused), and rejected/
 * (the texts of refused writes and removed clips, kept in the record:
 * listed by ops.c from record.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mhfs.h"
#include "node.h"
#include "strbuf.h"
#include "version.h"

static void in_root(const struct node *n, struct node *dir)
{
	(void)n;
	*dir = (struct node){.type = NODE_ROOT};
}

static int always(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)fs;
	(void)n;
	(void)t;
	return 0;
}

static bool meta_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			  const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	(void)t;
	(void)name;
	fs_diag_printf(why, "the mount's own folder holds no files of yours");
	return true;
}

/* Looked up and stat'ed without the archive's lock (VIEW_UNLOCKED): its
 * children resolve without the archive, so .mhfu/info answers while a
 * commit runs. */
const struct view_class view_meta = {
	.flags = VIEW_DIR | VIEW_UNLOCKED,
	.fixed_name = ".mhfu",
	.parent = in_root,
	.resolve = always,
	.reserved = meta_reserved,
};

/* Holds only what the record keeps and the mount lists itself. */
/* Its files are the record's kept texts (record.h), shown as the mount's
 * user's: err passed through, st owned by the user when it is 0. */
static int as_mounts(const struct mhfs *fs, int err, struct stat *st)
{
	if (!err) {
		st->st_uid = fs->uid;
		st->st_gid = fs->gid;
	}
	return err;
}

static int rejected_lookup(struct mhfs *fs, const char *name, struct stat *st)
{
	return as_mounts(fs, record_lookup(&fs->record, name, st), st);
}

static int rejected_list(struct mhfs *fs, struct record_text **files, size_t *count)
{
	int err = record_list(&fs->record, files, count);
	for (size_t i = 0; !err && i < *count; i++)
		as_mounts(fs, 0, &(*files)[i].st);
	return err;
}

int own_file_get(struct mhfs *fs, uint64_t ino, struct stat *st, uint8_t **data,
		 size_t *len)
{
	return as_mounts(fs, record_get(&fs->record, ino, st, data, len), st);
}

static int rejected_unlink(struct mhfs *fs, const char *name)
{
	return record_remove(&fs->record, name);
}

const struct view_class view_rejected = {
	.flags = VIEW_DIR,
	.in = NODE_META,
	.fixed_name = "rejected",
	.resolve = always,
	.own_lookup = rejected_lookup,
	.own_list = rejected_list,
	.own_unlink = rejected_unlink,
	.create_error = EACCES,  /* only refusals add texts there */
	.rename_error = EXDEV,   /* kept texts do not move: mv copies, then removes */
};

/* ---- info ------------------------------------------------------------- */

/* The lines a commit changes, with the archive's io lock held. */
static void locked_facts(struct archive *ar, struct strbuf *t)
{
	strbuf_printf(t, "size\t%llu\n", (unsigned long long)ar->size);
	if (ar->format == FORMAT_DATABIN) {
		strbuf_printf(t, "toc_blocks\t%u\n", ar->db.start[0]);
		strbuf_printf(t, "blocks\t%u\n", ar->db.start[ar->count]);
	}
	/* A commit's journal record is in the archive when the commit
	 * returns, unless writing the archive failed: then it awaits the
	 * next commit. */
	if (ar->store.pending)
		strbuf_printf(t, "journal\tpending (entry %u: reads fail until the next "
			      "commit or mount replays it)\n", ar->store.pending_entry);
	else
		strbuf_printf(t, "journal\tclean\n");
}

/* Made without the archive's lock (VIEW_UNLOCKED): while a commit holds
 * it, the lines it changes give way to the commit's progress. */
static int info_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	(void)n;
	struct archive *ar = &fs->ar;
	struct strbuf t = {0};
	bool databin = ar->format == FORMAT_DATABIN;
	bool locked = !pthread_rwlock_tryrdlock(&ar->io);

	strbuf_printf(&t, "format\t%s\n", databin ? "DATA.BIN" : "PAC");
	strbuf_printf(&t, "archive\t%s\n", ar->path);
	if (databin) {
		strbuf_printf(&t, "game\t%s\n", databin_game_name(ar->db.game));
		strbuf_printf(&t, "game_from\t%s\n", ar->game_from);
		strbuf_printf(&t, "encrypted\t%s\n", ar->db.encrypted ? "yes" : "no");
		strbuf_printf(&t, "entries\t%u\n", ar->count);
		strbuf_printf(&t, "size_pairs\t%u\n", ar->db.nsizes);
	}
	strbuf_printf(&t, "mode\t%s\n", ar->writable ? "read-write" : "read-only");
	if (locked) {
		locked_facts(ar, &t);
		pthread_rwlock_unlock(&ar->io);
	}
	uint64_t total = atomic_load(&ar->store.rewrite_total);
	uint64_t done = atomic_load(&ar->store.rewrite_done);
	if (total)
		strbuf_printf(&t, "commit\trewriting the archive: %llu of %llu bytes (%llu%%)\n",
			      (unsigned long long)done, (unsigned long long)total,
			      (unsigned long long)(done * 100 / total));
	else
		strbuf_printf(&t, "commit\t%s\n", locked ? "none running" : "running");
	strbuf_printf(&t, "commits\t%llu\n", (unsigned long long)atomic_load(&ar->commits));
	strbuf_printf(&t, "refused\t%llu\n", (unsigned long long)atomic_load(&ar->refusals));
	strbuf_printf(&t, "reads\t%llu\n", (unsigned long long)atomic_load(&ar->reads));
	strbuf_printf(&t, "bytes_read\t%llu\n", (unsigned long long)atomic_load(&ar->bytes_read));
	strbuf_printf(&t, "bytes_written\t%llu\n",
		      (unsigned long long)atomic_load(&ar->store.bytes_written));
	strbuf_printf(&t, "prefetched\t%llu\n", (unsigned long long)atomic_load(&ar->prefetched));
	strbuf_printf(&t, "heads_sniffed\t%llu\n",
		      (unsigned long long)atomic_load(&ar->cache.heads_sniffed));
	strbuf_printf(&t, "kinds_remembered\t%u\n", ar->cache.kinds_remembered);
	strbuf_printf(&t, "pictures_made\t%llu\n",
		      (unsigned long long)atomic_load(&ar->cache.pictures_made));
	strbuf_printf(&t, "view_reads\t%llu\n",
		      (unsigned long long)atomic_load(&fs->view_reads));
	strbuf_printf(&t, "inodes_retired\t%llu\n",
		      (unsigned long long)atomic_load(&fs->inodes.retired));
	strbuf_printf(&t, "inodes_revived\t%llu\n",
		      (unsigned long long)atomic_load(&fs->inodes.revived));
	strbuf_printf(&t, "kept_old_bytes\t%zu\n", atomic_load(&fs->kept_old_bytes));
	strbuf_printf(&t, "cache_budget\t%zu\n", ar->cache.budget);
	strbuf_printf(&t, "cached_bytes\t%zu\n", atomic_load(&ar->cache.bytes));
	strbuf_printf(&t, "evictions\t%llu\n", (unsigned long long)atomic_load(&ar->cache.evictions));
	pthread_mutex_lock(&fs->scratch.lock);
	strbuf_printf(&t, "scratch_budget\t%zu\n", fs->scratch.budget);
	strbuf_printf(&t, "scratch_bytes\t%zu\n", fs->scratch.used);
	unsigned pending = 0;
	for (const struct scratch *f = fs->scratch.files; f; f = f->next)
		pending += f->pending && f->linked;
	strbuf_printf(&t, "pending_files\t%u\n", pending);
	pthread_mutex_unlock(&fs->scratch.lock);
	strbuf_printf(&t, "record\t%s\n", fs->record.path ? fs->record.path : "none (in memory)");
	strbuf_printf(&t, "startup_us\t%llu\n", (unsigned long long)ar->startup_us);
	strbuf_printf(&t, "last_commit_us\t%llu\n",
		      (unsigned long long)atomic_load(&ar->last_commit_us));
	strbuf_printf(&t, "pid\t%ld\n", (long)getpid());
	strbuf_printf(&t, "workers_max\t%u\n", fs->workers);
	strbuf_printf(&t, "version\t%s\n", MHFU_VERSION);
	*data = (uint8_t *)strbuf_take(&t, len);
	return *data ? 0 : ENOMEM;
}

const struct view_class view_info = {
	.flags = VIEW_LIVE | VIEW_UNLOCKED,
	.in = NODE_META,
	.fixed_name = "info",
	.resolve = always,
	.contents = info_contents,
};

/* ---- log -------------------------------------------------------------- */

static int log_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	(void)n;
	*data = (uint8_t *)mlog_text(&fs->log, len);
	return *data ? 0 : ENOMEM;
}

const struct view_class view_log = {
	.flags = VIEW_LIVE,
	.in = NODE_META,
	.fixed_name = "log",
	.resolve = always,
	.contents = log_contents,
};
