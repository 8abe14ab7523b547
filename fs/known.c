#include "known.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define DELETED (~0ull)

void known_init(struct known *k)
{
	memset(k, 0, sizeof *k);
	pthread_mutex_init(&k->lock, NULL);
}

void known_destroy(struct known *k)
{
	free(k->ino);
	free(k->count);
	pthread_mutex_destroy(&k->lock);
}

static size_t slot_of(const struct known *k, uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (k->cap - 1);
}

/* The slot holding ino, or the free one where it would go. */
static size_t find(const struct known *k, uint64_t ino)
{
	size_t i = slot_of(k, ino), free_slot = SIZE_MAX;
	for (;; i = (i + 1) & (k->cap - 1)) {
		if (k->ino[i] == ino)
			return i;
		if (k->ino[i] == DELETED && free_slot == SIZE_MAX)
			free_slot = i;
		if (k->ino[i] == 0)
			return free_slot != SIZE_MAX ? free_slot : i;
	}
}

/* Rehashes into a table sized for the live entries (deleted slots go). */
static int grow(struct known *k)
{
	struct known old = *k;
	size_t live = 0, cap = 1024;
	for (size_t i = 0; i < old.cap; i++)
		live += old.ino[i] && old.ino[i] != DELETED;
	while (cap < (live + 1) * 2)
		cap *= 2;
	k->ino = calloc(cap, sizeof *k->ino);
	k->count = calloc(cap, sizeof *k->count);
	if (!k->ino || !k->count) {
		free(k->ino);
		free(k->count);
		*k = old;
		return -1;
	}
	k->cap = cap;
	k->used = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.ino[i] && old.ino[i] != DELETED) {
			size_t j = find(k, old.ino[i]);
			k->ino[j] = old.ino[i];
			k->count[j] = old.count[i];
			k->used++;
		}
	free(old.ino);
	free(old.count);
	return 0;
}

void known_ref(struct known *k, uint64_t ino)
{
	pthread_mutex_lock(&k->lock);
	/* Out of memory only costs a missed invalidation. */
	if ((k->used + 1) * 4 < k->cap * 3 || grow(k) == 0) {
		size_t i = find(k, ino);
		if (k->ino[i] != ino) {
			if (k->ino[i] == 0)
				k->used++;
			k->ino[i] = ino;
			k->count[i] = 0;
		}
		k->count[i]++;
	}
	pthread_mutex_unlock(&k->lock);
}

void known_forget(struct known *k, uint64_t ino, uint64_t n)
{
	pthread_mutex_lock(&k->lock);
	if (k->cap) {
		size_t i = find(k, ino);
		if (k->ino[i] == ino) {
			assert(k->count[i] >= n);
			k->count[i] -= n < k->count[i] ? n : k->count[i];
			if (k->count[i] == 0)
				k->ino[i] = DELETED;
		}
	}
	pthread_mutex_unlock(&k->lock);
}

uint64_t *known_with_top(struct known *k, uint64_t top, size_t *n)
{
	pthread_mutex_lock(&k->lock);
	uint64_t *out = malloc((k->cap ? k->cap : 1) * sizeof *out);
	*n = 0;
	for (size_t i = 0; out && i < k->cap; i++)
		if (k->ino[i] && k->ino[i] != DELETED && k->ino[i] >> 48 == top)
			out[(*n)++] = k->ino[i];
	pthread_mutex_unlock(&k->lock);
	if (out && !*n) {
		free(out);
		out = NULL;
	}
	return out;
}
