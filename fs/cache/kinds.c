/* SPDX-License-Identifier: MIT */
#include "kinds.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "archive.h"
#include "bytes.h"
#include "kindcache.h"
#include "record.h"

#define KINDS_FILE "kinds"
/* Ticks of the filesystem's clock (the kernel's coarse clock) the last
 * change must be behind before the file may vouch for it. */
#define KINDS_TICKS 2
#define KINDS_MARGIN_MIN_NS 10000000ll   /* 10 ms, whatever the tick */
#define KINDS_COARSE_NS 2000000000ll     /* times in whole seconds (FAT: 2) */

/* ---- who told the kinds: this build ------------------------------------- */

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* The main program's GNU build ID, hashed, from its PT_NOTE segments. */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof *nh;
			const uint8_t *desc = name + align_up(nh->n_namesz, 4);
			const uint8_t *next = desc + align_up(nh->n_descsz, 4);
			if (next > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz) {
				*(uint64_t *)out = fnv1a64(FNV1A64_INIT, desc, nh->n_descsz);
				return 1;
			}
			p = next;
		}
	}
	return 1; /* the first object is the main program: no further */
}

/* 0 when the build has no ID: then nothing tells another build's file
 * from ours, and none is used. */
static uint64_t driver_id(void)
{
	uint64_t id = 0;
	dl_iterate_phdr(build_id_of, &id);
	return id;
}

/* ---- the key ----------------------------------------------------------- */

static struct kindcache_key key_of(const struct archive *ar, const struct stat *st,
				   uint64_t driver)
{
	return (struct kindcache_key){
		.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
		.ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = st->st_ctim.tv_nsec,
		.toc = kindcache_toc_hash(&ar->db), .driver = driver,
		.game = (uint64_t)ar->db.game, .encrypted = ar->db.encrypted};
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Whether the kinds file can be used at all for this archive. */
static bool applies(const struct archive *ar)
{
	return ar->format == FORMAT_DATABIN && !ar->source && ar->record && ar->record->dir >= 0;
}

void kinds_recall(struct archive *ar)
{
	uint64_t driver = driver_id();
	uint8_t *buf, *kinds;
	size_t len;
	uint32_t count;
	struct kindcache_key saved, now;
	struct mh_diag d = {0};
	if (!applies(ar) || !driver || record_read_file(ar->record->dir, KINDS_FILE, &buf, &len))
		return;
	enum mh_err err = kindcache_decode(buf, len, &saved, &kinds, &count, &d);
	free(buf);
	if (err) {
		mlog_printf(ar->log, "%s/%s: ignored, %s at byte %llu: every entry's kind is read "
			    "again", ar->record->path, KINDS_FILE, d.msg,
			    (unsigned long long)d.offset);
		return;
	}
	now = key_of(ar, &ar->seen, driver);
	if (count == ar->count && kindcache_key_equal(&saved, &now)) {
		uint32_t known = 0;
		for (uint32_t i = 0; i < count; i++) {
			if (kinds[i] == KINDCACHE_UNKNOWN)
				continue;
			atomic_store_explicit(&ar->cache.entries[i].kind, kinds[i], memory_order_release);
			known++;
		}
		ar->cache.kinds_remembered = known;
		atomic_store(&ar->cache.kinds_kept, true);
		if (known == count)
			atomic_store(&ar->cache.all_sniffed, true);
	}
	free(kinds);
}

/* ---- keeping ------------------------------------------------------------ */

static long long ns_of(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* How long after a change the file's times are sure to tell the next. */
static long long tick_margin(const struct stat *st)
{
	struct timespec res;
	if (st->st_mtim.tv_nsec == 0 && st->st_ctim.tv_nsec == 0)
		return KINDS_COARSE_NS;
	long long m = clock_getres(CLOCK_REALTIME_COARSE, &res) ? 0 : KINDS_TICKS * ns_of(res);
	return m > KINDS_MARGIN_MIN_NS ? m : KINDS_MARGIN_MIN_NS;
}

/* Whether the backing file is as this mount last saw it, its last change
 * far enough behind (waiting for that when `wait`). */
static bool settled(struct archive *ar, bool wait)
{
	struct stat st;
	struct timespec now;
	if (fstat(ar->fd, &st) || !same_file(&st, &ar->seen))
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	long long margin = tick_margin(&st);
	long long age = ns_of(now) - ns_of(st.st_ctim);
	if (age >= margin)
		return true;
	if (!wait || margin >= KINDS_COARSE_NS)
		return false;
	struct timespec pause = {0, (long)(margin - (age > 0 ? age : 0))};
	nanosleep(&pause, NULL);
	return !fstat(ar->fd, &st) && same_file(&st, &ar->seen);
}

/* Writes bytes as the record's kinds file: beside, then renamed over. */
static int write_file(const struct record *r, const uint8_t *bytes, size_t len)
{
	char temp[64];
	snprintf(temp, sizeof temp, ".%s.%ld.new", KINDS_FILE, (long)getpid());
	int fd = openat(r->dir, temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno;
	int err = record_write_all(fd, bytes, len);
	if (close(fd) && !err)
		err = errno;
	if (!err && renameat(r->dir, temp, r->dir, KINDS_FILE))
		err = errno;
	if (err)
		unlinkat(r->dir, temp, 0);
	return err;
}

void kinds_keep(struct archive *ar, bool unmounting)
{
	uint64_t driver = driver_id();
	if (!applies(ar) || !driver || atomic_load(&ar->cache.kinds_kept) ||
	    atomic_exchange(&ar->cache.kinds_saving, true))
		return;
	uint8_t *kinds = NULL, *bytes = NULL;
	size_t len;
	int err = 0;
	if (!settled(ar, unmounting))
		goto done;
	/* Marked first: a kind learnt meanwhile marks it again, for the
	 * next keep. */
	atomic_store(&ar->cache.kinds_kept, true);
	if (!(kinds = malloc(ar->count ? ar->count : 1))) {
		err = ENOMEM;
		goto done;
	}
	for (uint32_t i = 0; i < ar->count; i++) {
		int k = atomic_load_explicit(&ar->cache.entries[i].kind, memory_order_acquire);
		kinds[i] = k >= 0 ? (uint8_t)k : KINDCACHE_UNKNOWN;
	}
	struct kindcache_key key = key_of(ar, &ar->seen, driver);
	if (kindcache_encode(&key, kinds, ar->count, &bytes, &len, NULL))
		err = ENOMEM;
	else
		err = write_file(ar->record, bytes, len);
done:
	if (err) {
		atomic_store(&ar->cache.kinds_kept, false);
		if (!atomic_exchange(&ar->cache.kinds_said, true))
			mlog_printf(ar->log, "%s/%s: not written: %s (the next mount reads every "
				    "entry's kind again)", ar->record->path, KINDS_FILE,
				    strerror(err));
	}
	free(kinds);
	free(bytes);
	atomic_store(&ar->cache.kinds_saving, false);
}
