#include "prefetch.h"

#include <string.h>

#include "reply.h"

void prefetch_init(struct prefetch *p)
{
	memset(p, 0, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
}

void prefetch_destroy(struct prefetch *p)
{
	pthread_mutex_destroy(&p->lock);
}

/* Stores entry id whole into the kernel's page cache.  False when it
 * could not be read (the reader will then ask, and be told why). */
static bool store_entry(struct mhfs *fs, uint32_t id)
{
	struct archive *ar = &fs->ar;
	struct node n = {.type = NODE_FILE, .entry = id};
	uint64_t ino = node_ino(fs, &n), size = archive_entry_size(ar, id);
	for (uint64_t off = 0; off < size; off += MAX_REQUEST) {
		size_t len = size - off < MAX_REQUEST ? (size_t)(size - off) : MAX_REQUEST;
		uint8_t *buf = read_buffer(fs, len);
		if (!buf)
			return false;
		pthread_rwlock_rdlock(&ar->io);
		ssize_t got = archive_read(ar, id, off, buf, len);
		pthread_rwlock_unlock(&ar->io);
		if (got != (ssize_t)len)
			return false;
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
		bv.buf[0].mem = buf;
		/* The kernel has no inode for it (never listed): skip it. */
		if (fuse_lowlevel_notify_store(fs->se, ino, (off_t)off, &bv, 0))
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
