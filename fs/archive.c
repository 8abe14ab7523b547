#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cipher.h"
#include "pac.h"

/* Entries larger than this are shown raw only: expanding one means
 * holding it whole in memory. */
#define TREE_MAX_BYTES (256u << 20)

/* pread until done; -1 on error or if the file ends first. */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int read_backing(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct archive *ar = ctx;
	return pread_full(ar->fd, buf, len, off);
}

/* Decides what the file is: a DATA.BIN first (its start list must end
 * exactly at the file's block count, a strong test), else a PAC. */
static enum archive_error identify(struct archive *ar, enum databin_game game,
				   char *msg, size_t msg_len)
{
	struct mh_diag d;
	enum mh_err err = databin_open(read_backing, ar, ar->size, &ar->db, &d);
	if (err == MH_OK) {
		ar->format = FORMAT_DATABIN;
		ar->count = ar->db.count;
		if (game != GAME_UNKNOWN)
			ar->db.game = game;
		else
			databin_guess_game(&ar->db, read_backing, ar);
		return AR_OK;
	}
	if (err == MH_EIO) {
		snprintf(msg, msg_len, "%s: cannot read: %s", ar->path,
			 strerror(errno));
		return AR_EIO;
	}

	uint8_t head[PAC_HEAD_MAX];
	size_t n = ar->size < sizeof head ? (size_t)ar->size : sizeof head;
	if (pread_full(ar->fd, head, n, 0)) {
		snprintf(msg, msg_len, "%s: cannot read: %s", ar->path,
			 strerror(errno));
		return AR_EIO;
	}
	if (pac_sniff(head, n, ar->size)) {
		ar->format = FORMAT_PAC;
		ar->count = 1;
		return AR_OK;
	}
	snprintf(msg, msg_len, "%s: neither a DATA.BIN nor a PAC: %s", ar->path,
		 d.msg);
	return AR_EFORMAT;
}

enum archive_error archive_open(struct archive *ar, const char *path,
				struct mlog *log, enum databin_game game,
				char *msg, size_t msg_len)
{
	struct stat st;

	memset(ar, 0, sizeof *ar);
	ar->log = log;
	ar->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ar->fd < 0 || fstat(ar->fd, &st)) {
		snprintf(msg, msg_len, "%s: %s", path, strerror(errno));
		if (ar->fd >= 0)
			close(ar->fd);
		return AR_EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msg_len, "%s: not a regular file", path);
		close(ar->fd);
		return AR_EIO;
	}
	/* Absolute: the daemon leaves the working directory behind. */
	ar->path = realpath(path, NULL);
	ar->size = (uint64_t)st.st_size;
	ar->mtime = st.st_mtim;
	pthread_mutex_init(&ar->lock, NULL);

	enum archive_error err = ar->path ? identify(ar, game, msg, msg_len) : AR_EIO;
	if (err == AR_OK) {
		ar->entries = calloc(ar->count, sizeof *ar->entries);
		if (!ar->entries) {
			snprintf(msg, msg_len, "%s: out of memory", path);
			err = AR_EIO;
		}
	}
	if (err != AR_OK) {
		archive_close(ar);
		return err;
	}
	for (uint32_t i = 0; i < ar->count; i++)
		atomic_init(&ar->entries[i].kind, -1);
	return AR_OK;
}

void archive_close(struct archive *ar)
{
	for (uint32_t i = 0; ar->entries && i < ar->count; i++) {
		pactree_free(atomic_load(&ar->entries[i].tree));
		model_free(atomic_load(&ar->entries[i].cache.model));
	}
	free(ar->entries);
	free(atomic_load(&ar->index_tsv));
	databin_free(&ar->db);
	free(ar->path);
	if (ar->fd >= 0)
		close(ar->fd);
	pthread_mutex_destroy(&ar->lock);
	memset(ar, 0, sizeof *ar);
	ar->fd = -1;
}

uint64_t archive_entry_size(const struct archive *ar, uint32_t id)
{
	return ar->format == FORMAT_PAC ? ar->size : databin_entry_size(&ar->db, id);
}

bool archive_entry_plain(const struct archive *ar, uint32_t id)
{
	return ar->format == FORMAT_PAC || databin_entry_plain(&ar->db, id);
}

ssize_t archive_read(struct archive *ar, uint32_t id, uint64_t off, void *buf,
		     size_t len)
{
	uint64_t size = archive_entry_size(ar, id);
	if (off >= size)
		return 0;
	if (len > size - off)
		len = (size_t)(size - off);
	uint64_t base = ar->format == FORMAT_PAC ? 0 : databin_entry_offset(&ar->db, id);
	if (pread_full(ar->fd, buf, len, base + off))
		return -errno;
	if (!archive_entry_plain(ar, id))
		cipher_decrypt(ar->db.start[id], off, buf, len);
	atomic_fetch_add_explicit(&ar->reads, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&ar->bytes_read, len, memory_order_relaxed);
	return (ssize_t)len;
}

enum kind archive_entry_kind(struct archive *ar, uint32_t id)
{
	int k = atomic_load_explicit(&ar->entries[id].kind, memory_order_acquire);
	if (k >= 0)
		return (enum kind)k;

	uint8_t head[KIND_HEAD_MAX];
	ssize_t n = archive_read(ar, id, 0, head, sizeof head);
	/* Unreadable heads are data: the read itself will report the error. */
	k = n < 0 ? KIND_DATA : kind_sniff(head, (size_t)n, archive_entry_size(ar, id));
	atomic_store_explicit(&ar->entries[id].kind, k, memory_order_release);
	return (enum kind)k;
}

const struct pactree *archive_entry_tree(struct archive *ar, uint32_t id)
{
	struct archive_entry *e = &ar->entries[id];
	struct pactree *t = atomic_load_explicit(&e->tree, memory_order_acquire);
	if (t || atomic_load(&e->tree_failed))
		return t;
	if (archive_entry_kind(ar, id) != KIND_PAC)
		return NULL;

	pthread_mutex_lock(&ar->lock);
	t = atomic_load(&e->tree);
	if (!t && !atomic_load(&e->tree_failed)) {
		char why[256] = "";
		uint64_t size = archive_entry_size(ar, id);
		uint8_t *buf = size <= TREE_MAX_BYTES ? malloc(size ? size : 1) : NULL;
		if (!buf)
			snprintf(why, sizeof why, "%llu bytes is too large to expand",
				 (unsigned long long)size);
		else if (archive_read(ar, id, 0, buf, size) != (ssize_t)size)
			snprintf(why, sizeof why, "read failed");
		else
			t = pactree_build(buf, size, 0, PACTREE_MAX_DEPTH, why,
					  sizeof why);
		free(buf);
		if (t) {
			atomic_store_explicit(&e->tree, t, memory_order_release);
		} else {
			char name[64];
			archive_entry_name(ar, id, name, sizeof name);
			mlog_printf(ar->log, "%s: shown raw only: %s", name, why);
			atomic_store(&e->tree_failed, true);
		}
	}
	pthread_mutex_unlock(&ar->lock);
	return t;
}

void archive_entry_name(struct archive *ar, uint32_t id, char *buf, size_t len)
{
	/* The community's numbering: engine id minus one, so id 0 is -0001. */
	snprintf(buf, len, "file_%05lld%s", (long long)id - 1,
		 kind_ext(archive_entry_kind(ar, id)));
}
