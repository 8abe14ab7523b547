/* SPDX-License-Identifier: MIT */
/* Open files: their buffers, and the list of every one open (handle.h). */
#include "handle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "invalidate.h"
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

static void old_put(struct old_bytes *o)
{
	if (o && atomic_fetch_sub(&o->refs, 1) == 1) {
		atomic_fetch_sub(o->account, o->len);
		free(o->bytes);
		free(o);
	}
}

void handle_put(struct handle *h)
{
	if (atomic_fetch_sub(&h->refs, 1) == 1) {
		old_put(h->old);
		pthread_mutex_destroy(&h->lock);
		if (h->shared)
			model_text_put(h->shared);
		else
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

/* The handle open for writing the view of `place`, with the handles
 * lock held. */
static struct handle *find_writer(struct mhfs *fs, uint64_t place)
{
	struct handle *h = fs->handles;
	while (h && !(h->writable && h->place == place))
		h = h->next_open;
	return h;
}

struct handle *writer_of(struct mhfs *fs, uint64_t place)
{
	pthread_mutex_lock(&fs->handles_lock);
	struct handle *h = find_writer(fs, place);
	if (h)
		atomic_fetch_add(&h->refs, 1);
	pthread_mutex_unlock(&fs->handles_lock);
	return h;
}

bool writer_open(struct mhfs *fs, uint64_t place)
{
	pthread_mutex_lock(&fs->handles_lock);
	bool open = find_writer(fs, place) != NULL;
	pthread_mutex_unlock(&fs->handles_lock);
	return open;
}

bool writer_len(struct mhfs *fs, uint64_t place, uint64_t *len)
{
	bool showing = false;
	pthread_mutex_lock(&fs->handles_lock);
	for (struct handle *h = fs->handles; h; h = h->next_open)
		if (h->writable && h->place == place && atomic_load(&h->showing)) {
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

void handles_keep_old(struct mhfs *fs, uint32_t entry, uint64_t generation, uint8_t **bytes,
		      size_t len)
{
	struct old_bytes *o = NULL;
	pthread_mutex_lock(&fs->handles_lock);
	for (struct handle *h = fs->handles; h; h = h->next_open) {
		if (h->buffered || h->scratch || h->view.original || h->entry != entry ||
		    h->generation != generation || h->old)
			continue;
		if (!o) {
			if (atomic_load(&fs->kept_old_bytes) + len > KEEP_OLD_MAX_BYTES ||
			    !(o = malloc(sizeof *o)))
				break;
			*o = (struct old_bytes){.len = len, .bytes = *bytes,
						.account = &fs->kept_old_bytes};
			atomic_init(&o->refs, 0);
			atomic_fetch_add(&fs->kept_old_bytes, len);
			*bytes = NULL;
		}
		atomic_fetch_add(&o->refs, 1);
		h->old = o;
	}
	pthread_mutex_unlock(&fs->handles_lock);
}

void handle_release(struct mhfs *fs, struct handle *h)
{
	if (h->counted && inodes_release(&fs->inodes, h->ino, h->writable))
		kernel_forget(fs, h->ino);
	/* Its size showed under the view's other numbers too. */
	if (h->writable)
		kernel_forget(fs, inodes_current(&fs->inodes, h->place));
	handles_remove(fs, h);
	if (h->scratch) {
		pthread_mutex_lock(&fs->scratch.lock);
		scratch_close(&fs->scratch, h->scratch);
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	handle_put(h);
}

