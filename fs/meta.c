#include "meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mhfs.h"
#include "strbuf.h"
#include "version.h"

char *meta_info(struct mhfs *fs, size_t *len)
{
	struct archive *ar = &fs->ar;
	struct strbuf t = {0};
	bool databin = ar->format == FORMAT_DATABIN;

	strbuf_printf(&t, "format\t%s\n", databin ? "DATA.BIN" : "PAC");
	strbuf_printf(&t, "archive\t%s\n", ar->path);
	strbuf_printf(&t, "size\t%llu\n", (unsigned long long)ar->size);
	if (databin) {
		strbuf_printf(&t, "game\t%s\n", databin_game_name(ar->db.game));
		strbuf_printf(&t, "game_from\t%s\n", ar->game_from);
		strbuf_printf(&t, "encrypted\t%s\n", ar->db.encrypted ? "yes" : "no");
		strbuf_printf(&t, "entries\t%u\n", ar->count);
		strbuf_printf(&t, "size_pairs\t%u\n", ar->db.nsizes);
		strbuf_printf(&t, "toc_blocks\t%u\n", ar->db.start[0]);
		strbuf_printf(&t, "blocks\t%u\n", ar->db.start[ar->count]);
	}
	strbuf_printf(&t, "mode\t%s\n", ar->writable ? "read-write" : "read-only");
	/* A commit's journal is removed before the commit returns, unless
	 * writing the archive failed: then it awaits the next commit. */
	if (ar->store.pending)
		strbuf_printf(&t, "journal\tpending (entry %u: reads fail until the next "
			      "commit or mount replays it)\n", ar->store.pending_entry);
	else
		strbuf_printf(&t, "journal\tclean\n");
	strbuf_printf(&t, "commits\t%llu\n", (unsigned long long)atomic_load(&ar->commits));
	strbuf_printf(&t, "refused\t%llu\n", (unsigned long long)atomic_load(&ar->refusals));
	strbuf_printf(&t, "reads\t%llu\n", (unsigned long long)atomic_load(&ar->reads));
	strbuf_printf(&t, "bytes_read\t%llu\n", (unsigned long long)atomic_load(&ar->bytes_read));
	strbuf_printf(&t, "bytes_written\t%llu\n",
		      (unsigned long long)atomic_load(&ar->store.bytes_written));
	strbuf_printf(&t, "prefetched\t%llu\n", (unsigned long long)atomic_load(&ar->prefetched));
	strbuf_printf(&t, "cache_budget\t%zu\n", ar->cache_budget);
	strbuf_printf(&t, "cached_bytes\t%zu\n", atomic_load(&ar->cached_bytes));
	strbuf_printf(&t, "evictions\t%llu\n", (unsigned long long)atomic_load(&ar->evictions));
	pthread_mutex_lock(&fs->scratch.lock);
	strbuf_printf(&t, "scratch_budget\t%zu\n", fs->scratch.budget);
	strbuf_printf(&t, "scratch_bytes\t%zu\n", fs->scratch.used);
	pthread_mutex_unlock(&fs->scratch.lock);
	strbuf_printf(&t, "record\t%s\n", fs->record.path ? fs->record.path : "none (in memory)");
	strbuf_printf(&t, "startup_us\t%llu\n", (unsigned long long)ar->startup_us);
	strbuf_printf(&t, "last_commit_us\t%llu\n",
		      (unsigned long long)atomic_load(&ar->last_commit_us));
	strbuf_printf(&t, "pid\t%ld\n", (long)getpid());
	strbuf_printf(&t, "version\t%s\n", MHFU_VERSION);
	return strbuf_take(&t, len);
}

const char *meta_index(struct archive *ar, size_t *len)
{
	char *index = atomic_load_explicit(&ar->index_tsv, memory_order_acquire);
	if (!index) {
		struct strbuf t = {0};
		char name[64];
		strbuf_printf(&t, "# name\tid\tstart\tblocks\tsize\tkind\tplain\n");
		archive_sniff_all(ar); /* every kind, in large reads */
		for (uint32_t id = 0; id < ar->count && ar->format == FORMAT_DATABIN; id++) {
			archive_entry_name(ar, id, name, sizeof name);
			strbuf_printf(&t, "%s\t%u\t%u\t%u\t%llu\t%s\t%s\n", name, id,
				    ar->db.start[id], databin_entry_blocks(&ar->db, id),
				    (unsigned long long)archive_entry_size(ar, id),
				    kind_name(archive_entry_kind(ar, id)),
				    archive_entry_plain(ar, id) ? "yes" : "no");
		}
		char *built = strbuf_take(&t, NULL), *expected = NULL;
		if (!built)
			return NULL;
		if (!atomic_compare_exchange_strong(&ar->index_tsv, &expected, built))
			free(built); /* another thread built it first */
		index = atomic_load(&ar->index_tsv);
	}
	*len = strlen(index);
	return index;
}
