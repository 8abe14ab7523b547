/* Open files: their buffers, and the list of every one open (handle.h). */
#include "handle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "scratch.h"

struct handle *handle_new(uint64_t ino)
{
	struct handle *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	atomic_init(&h->refs, 1);
	pthread_mutex_init(&h->lock, NULL);
	h->ino = ino;
	return h;
}

void handle_put(struct handle *h)
{
	if (atomic_fetch_sub(&h->refs, 1) == 1) {
		pthread_mutex_destroy(&h->lock);
		free(h->data);
		free(h);
	}
}

void handles_add(struct mhfs *fs, struct handle *h)
{
	atomic_store(&h->shown_len, h->len);
	atomic_store(&h->showing, h->writable && h->emptied);
	pthread_mutex_lock(&fs->handles_lock);
	h->next_open = fs->handles;
	fs->handles = h;
	pthread_mutex_unlock(&fs->handles_lock);
}

static void handles_remove(struct mhfs *fs, struct handle *h)
{
	pthread_mutex_lock(&fs->handles_lock);
	for (struct handle **p = &fs->handles; *p; p = &(*p)->next_open)
		if (*p == h) {
			*p = h->next_open;
			break;
		}
	pthread_mutex_unlock(&fs->handles_lock);
}

void handles_free_all(struct mhfs *fs)
{
	/* An unmount does not wait for the kernel's last releases. */
	for (struct handle *h = fs->handles, *next; h; h = next) {
		next = h->next_open;
		handle_put(h);
	}
	fs->handles = NULL;
}

/* The handle open for writing view ino, with the handles lock held. */
static struct handle *find_writer(struct mhfs *fs, uint64_t ino)
{
	struct handle *h = fs->handles;
	while (h && !(h->writable && h->ino == ino))
		h = h->next_open;
	return h;
}

struct handle *writer_of(struct mhfs *fs, uint64_t ino)
{
	pthread_mutex_lock(&fs->handles_lock);
	struct handle *h = find_writer(fs, ino);
	if (h)
		atomic_fetch_add(&h->refs, 1);
	pthread_mutex_unlock(&fs->handles_lock);
	return h;
}

bool writer_len(struct mhfs *fs, uint64_t ino, uint64_t *len)
{
	bool showing = false;
	pthread_mutex_lock(&fs->handles_lock);
	for (struct handle *h = fs->handles; h; h = h->next_open)
		if (h->writable && h->ino == ino && atomic_load(&h->showing)) {
			*len = atomic_load(&h->shown_len);
			showing = true;
			break;
		}
	pthread_mutex_unlock(&fs->handles_lock);
	return showing;
}

int handle_resize(struct handle *h, size_t size)
{
	if (size > WRITE_MAX_BYTES)
		return EFBIG;
	if (buffer_reserve(&h->data, &h->cap, size))
		return ENOMEM;
	if (size > h->len)
		memset(h->data + h->len, 0, size - h->len);
	h->len = size;
	atomic_store(&h->shown_len, size);
	atomic_store(&h->showing, true);
	return 0;
}

void handle_release(struct mhfs *fs, struct handle *h)
{
	handles_remove(fs, h);
	if (h->scratch) {
		pthread_mutex_lock(&fs->scratch.lock);
		scratch_close(&fs->scratch, h->scratch);
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	handle_put(h);
}

