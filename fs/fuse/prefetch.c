/* SPDX-License-Identifier: MIT */
#include "prefetch.h"

#include <string.h>

#include "handle.h"
#include "reply.h"

/* Stores entry id whole into the kernel's page cache, under its current
 * number and as a cached open of it would read it: the number exposed
 * first (inodes.h), unless a writer has the view open; each piece read
 * with the io lock held and the entry's generation unchanged since, so
 * that a commit meanwhile (which retires the number) ends it.  False
 * when it was not stored whole (the reader will then ask). */
static bool store_entry(struct mhfs *fs, uint32_t id)
{
	struct archive *ar = &fs->ar;
	struct node n = {.type = NODE_FILE, .entry = id};
	uint64_t place = node_place(fs, &n), ino = 0, size = 0, generation = 0;
	for (uint64_t off = 0; !off || off < size; off += MAX_REQUEST) {
		uint8_t *buf = read_buffer(fs, MAX_REQUEST);
		if (!buf)
			return false;
		int read_err = 0;
		size_t len = 0; /* 0: not read (the entry changed, or is not exposed) */
		pthread_rwlock_rdlock(&ar->io);
		if (!off) {
			generation = atomic_load(&ar->cache.entries[id].generation);
			size = archive_entry_size(ar, id);
			if (!writer_open(fs, place))
				ino = inodes_expose(&fs->inodes, place);
		}
		if (ino && off < size && atomic_load(&ar->cache.entries[id].generation) == generation) {
			len = size - off < MAX_REQUEST ? (size_t)(size - off) : MAX_REQUEST;
			read_err = archive_read_all(ar, id, off, buf, len);
		}
		pthread_rwlock_unlock(&ar->io);
		if (read_err || !len)
			return false;
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
		bv.buf[0].mem = buf;
		if (fuse_lowlevel_notify_store(fs->kernel.session, ino, (off_t)off, &bv, 0))
			return false;
	}
	return true;
}

void prefetch_after_miss(struct mhfs *fs, uint32_t id)
{
	struct prefetch *p = &fs->prefetch;
	struct archive *ar = &fs->ar;

	pthread_mutex_lock(&p->lock);
	bool at_trip = p->active && id == p->trip;
	bool go = !p->storing && (at_trip || (p->active && id >= p->front) ||
				  (!p->active && p->last_miss && id == p->last_miss));
	p->last_miss = id + 1;
	if (!go) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	/* The window: [from, end), all but trip.  An entry larger than what
	 * is left of it ends it (one larger than a window is never stored:
	 * the reader asks for it). */
	uint32_t from = at_trip ? p->front : id + 1, end = from, trip = UINT32_MAX;
	uint64_t bytes = 0;
	while (end < ar->count) {
		uint64_t size = archive_entry_size(ar, end);
		if (bytes + size > PREFETCH_WINDOW)
			break;
		if (trip == UINT32_MAX && bytes + size >= PREFETCH_WINDOW / 2)
			trip = end;
		bytes += size;
		end++;
	}
	p->active = p->storing = end > from;
	p->trip = trip;
	p->front = end;
	pthread_mutex_unlock(&p->lock);

	uint64_t stored = 0;
	for (uint32_t e = from; e < end; e++)
		if (e != trip && archive_entry_size(ar, e) && store_entry(fs, e))
			stored++;

	atomic_fetch_add(&ar->prefetched, stored);
	pthread_mutex_lock(&p->lock);
	p->storing = false;
	pthread_mutex_unlock(&p->lock);
}
