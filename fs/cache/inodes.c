/* SPDX-License-Identifier: MIT */
/* Inode numbers of views, their generations, and what the kernel holds
 * (inodes.h: the design and its invariants). */
#include "inodes.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"

#define DELETED (~0ull)
#define MIN_CAP 1024u
/* Room kept besides a plan's retirements: records a lookup of the mount's
 * own nodes (which takes no io lock) may add while a commit runs. */
#define PLAN_SLACK 64u

void inodes_init(struct inodes *t)
{
	memset(t, 0, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
}

static bool live(const struct ino_rec *r)
{
	return r->ino && r->ino != DELETED;
}

void inodes_destroy(struct inodes *t)
{
	free(t->slot);
	pthread_mutex_destroy(&t->lock);
}

static bool allocated(uint64_t ino)
{
	return ino >> 48 == INODES_ALLOC_TOP;
}

static bool held(const struct ino_rec *r)
{
	return r->lookups || r->opens;
}

static size_t home(const struct inodes *t, uint64_t ino)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ull) >> 32) & (t->cap - 1);
}

/* The slot holding ino, or the free one where it would go. */
static size_t probe(const struct inodes *t, uint64_t ino)
{
	size_t i = home(t, ino), free_slot = SIZE_MAX;
	for (;; i = (i + 1) & (t->cap - 1)) {
		if (t->slot[i].ino == ino)
			return i;
		if (t->slot[i].ino == DELETED && free_slot == SIZE_MAX)
			free_slot = i;
		if (t->slot[i].ino == 0)
			return free_slot != SIZE_MAX ? free_slot : i;
	}
}

static struct ino_rec *find(const struct inodes *t, uint64_t ino)
{
	if (!t->cap)
		return NULL;
	struct ino_rec *r = &t->slot[probe(t, ino)];
	return r->ino == ino ? r : NULL;
}

/* Makes room for `more` new records without growing again: 0 or ENOMEM.
 * Records move: pointers into the table taken before are void. */
static int grow_for(struct inodes *t, size_t more)
{
	if ((t->used + more + 1) * 4 < t->cap * 3)
		return 0;
	size_t n = 0, cap = MIN_CAP;
	for (size_t i = 0; i < t->cap; i++)
		n += live(&t->slot[i]);
	while (cap < (n + more + 1) * 2)
		cap *= 2;
	struct ino_rec *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return ENOMEM;
	struct inodes bigger = {.slot = slot, .cap = cap};
	for (size_t i = 0; i < t->cap; i++)
		if (live(&t->slot[i]))
			slot[probe(&bigger, t->slot[i].ino)] = t->slot[i];
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	t->used = n;
	return 0;
}

/* A new record for ino, which has none; room made by grow_for. */
static struct ino_rec *insert(struct inodes *t, uint64_t ino, uint64_t place)
{
	struct ino_rec *r = &t->slot[probe(t, ino)];
	assert(r->ino != ino);
	if (r->ino == 0)
		t->used++;
	memset(r, 0, sizeof *r);
	r->ino = ino;
	r->place = place;
	return r;
}

/* ino's record, made if it has none: NULL when out of memory. */
static struct ino_rec *get(struct inodes *t, uint64_t ino, uint64_t place)
{
	struct ino_rec *r = find(t, ino);
	if (r)
		return r;
	return grow_for(t, 1) ? NULL : insert(t, ino, place);
}

static void drop(struct ino_rec *r)
{
	r->ino = DELETED;
}

/* Drops place `place`'s records when the kernel holds neither its place
 * number nor its current number: the place takes its place number back
 * (invariant 5). */
static void settle_place(struct inodes *t, uint64_t place)
{
	struct ino_rec *p = find(t, place);
	if (!p || held(p))
		return;
	if (p->current) {
		struct ino_rec *c = find(t, p->current);
		if (c && held(c))
			return;
		if (c)
			drop(c);
		atomic_fetch_sub(&t->moved, 1);
	}
	drop(p);
}

/* Removes what no longer needs a record once r is not held: a stale
 * allocated number, and its place's records when they can go. */
static void settle(struct inodes *t, struct ino_rec *r)
{
	if (held(r))
		return;
	uint64_t place = r->place;
	if (allocated(r->ino) && (r->flags & INO_STALE))
		drop(r);
	settle_place(t, place);
}

static void told(struct ino_rec *r, const struct stat *st)
{
	r->told = (struct ino_attr){.size = st->st_size, .mode = st->st_mode,
				    .atime = st->st_atim, .mtime = st->st_mtim};
}

/* Moves the place of current number ino on to a new number (with
 * `flags`); ino goes stale.  Returns the new number, 0 when out of
 * memory (nothing changed). */
static uint64_t retire(struct inodes *t, uint64_t ino, unsigned flags)
{
	if (grow_for(t, 1))
		return 0;
	struct ino_rec *r = find(t, ino);
	uint64_t place = r->place, next = INODES_ALLOC_TOP << 48 | ++t->serial;
	insert(t, next, place)->flags = flags;
	r->flags |= INO_STALE;
	/* An allocated number is current only while its place's record says so. */
	struct ino_rec *p = ino == place ? r : find(t, place);
	if (!p->current)
		atomic_fetch_add(&t->moved, 1);
	p->current = next;
	atomic_fetch_add(&t->retired, 1);
	return next;
}

uint64_t inodes_pin(struct inodes *t, uint64_t place, uint32_t name)
{
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *p = find(t, place);
	uint64_t ino = p && p->current ? p->current : place;
	struct ino_rec *r = get(t, ino, place);
	if (r) {
		r->lookups++;
		r->name = name;
	}
	pthread_mutex_unlock(&t->lock);
	return r ? ino : 0;
}

void inodes_forget(struct inodes *t, uint64_t ino, uint64_t n)
{
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = find(t, ino);
	if (r) {
		assert(r->lookups >= n);
		r->lookups -= n < r->lookups ? n : r->lookups;
		settle(t, r);
	}
	pthread_mutex_unlock(&t->lock);
}

void inodes_told(struct inodes *t, uint64_t ino, const struct stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = find(t, ino);
	if (r)
		told(r, st);
	pthread_mutex_unlock(&t->lock);
}

/* The current number of place `place`, with the lock held. */
static uint64_t current_of(const struct inodes *t, uint64_t place)
{
	const struct ino_rec *r = find(t, place);
	return r && r->current ? r->current : place;
}

uint64_t inodes_current(struct inodes *t, uint64_t place)
{
	if (!atomic_load(&t->moved))
		return place;
	pthread_mutex_lock(&t->lock);
	uint64_t ino = current_of(t, place);
	pthread_mutex_unlock(&t->lock);
	return ino;
}

bool inodes_place(struct inodes *t, uint64_t ino, uint64_t *place)
{
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *r = find(t, ino);
	if (r)
		*place = r->place;
	pthread_mutex_unlock(&t->lock);
	return r != NULL;
}

bool inodes_stale(struct inodes *t, uint64_t ino, uint32_t *name, mode_t *mode)
{
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *r = find(t, ino);
	bool stale = r && (r->flags & INO_STALE);
	if (stale) {
		*name = r->name;
		*mode = r->told.mode;
	}
	pthread_mutex_unlock(&t->lock);
	return stale;
}

/* Whether readers may rely on r's pages: then its size is fixed. */
static bool reader_cached(const struct ino_rec *r)
{
	return (r->flags & INO_EXPOSED) && !(r->flags & INO_WRITTEN);
}

enum ino_answer inodes_answer(struct inodes *t, uint64_t ino, struct stat *st)
{
	enum ino_answer a = ANSWER_PLACE;
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *r = find(t, ino);
	if (r && (r->flags & INO_STALE) && reader_cached(r) && r->opens) {
		a = ANSWER_TOLD;
		memset(st, 0, sizeof *st);
		st->st_ino = r->place;
		st->st_mode = r->told.mode;
		st->st_size = r->told.size;
		st->st_blocks = (st->st_size + 511) / 512;
		st->st_blksize = 4096;
		st->st_atim = r->told.atime;
		st->st_mtim = st->st_ctim = r->told.mtime;
	}
	pthread_mutex_unlock(&t->lock);
	return a;
}

int inodes_open(struct inodes *t, uint64_t ino, uint64_t place, bool write, bool through,
		bool *cache)
{
	int err = 0;
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = get(t, ino, place);
	if (!r) {
		err = ENOMEM;
	} else if (write && reader_cached(r)) {
		/* A stale one moved on already: the kernel finds the new one. */
		err = (r->flags & INO_STALE) || retire(t, ino, INO_WRITTEN) ? ESTALE : ENOMEM;
	} else {
		bool cached = !write && !through && !(r->flags & (INO_WRITTEN | INO_STALE));
		if (cache)
			*cache = cached;
		/* Read through, an open leaves no pages (an mmap of it drops
		 * them first); a write may. */
		r->flags |= write ? INO_EXPOSED | INO_WRITTEN : cached ? INO_EXPOSED : 0;
		r->opens++;
		r->opened++;
		r->writers += write;
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

bool inodes_release(struct inodes *t, uint64_t ino, bool write)
{
	bool retired = false;
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = find(t, ino);
	if (r) {
		assert(r->opens && (!write || r->writers));
		r->opens--;
		r->writers -= write;
		/* Out of memory: the number stays a writer's, read through. */
		if (write && !r->writers && (r->flags & INO_WRITTEN) && !(r->flags & INO_STALE))
			retired = retire(t, ino, 0) != 0;
		settle(t, find(t, ino));
	}
	pthread_mutex_unlock(&t->lock);
	return retired;
}

/* Invariant 7, with the lock held: r stale and held with no file open,
 * its place's current number unheld. */
static bool may_revive(const struct inodes *t, const struct ino_rec *r)
{
	if (!r || !(r->flags & INO_STALE) || r->opens || !r->lookups)
		return false;
	const struct ino_rec *p = find(t, r->place), *c = p ? find(t, p->current) : NULL;
	return p && p->current && p->current != r->ino && !(c && held(c));
}

bool inodes_revivable(struct inodes *t, uint64_t ino, uint32_t *ticket)
{
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *r = find(t, ino);
	bool may = may_revive(t, r);
	if (may)
		*ticket = r->opened;
	pthread_mutex_unlock(&t->lock);
	return may;
}

bool inodes_revive(struct inodes *t, uint64_t ino, uint32_t ticket, const struct stat *now)
{
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = find(t, ino);
	bool may = may_revive(t, r) && r->opened == ticket;
	if (may) {
		struct ino_rec *p = find(t, r->place), *c = find(t, p->current);
		if (c)
			drop(c);
		r->flags = 0;
		told(r, now);
		if (p == r) {
			p->current = 0;
			atomic_fetch_sub(&t->moved, 1);
		} else {
			p->current = ino;
		}
		atomic_fetch_add(&t->revived, 1);
	}
	pthread_mutex_unlock(&t->lock);
	return may;
}

int inodes_truncate(struct inodes *t, uint64_t ino, uint64_t place)
{
	int err = 0;
	pthread_mutex_lock(&t->lock);
	struct ino_rec *r = get(t, ino, place);
	if (!r)
		err = ENOMEM;
	else if (reader_cached(r))
		err = (r->flags & INO_STALE) || retire(t, ino, INO_WRITTEN) ? ESTALE : ENOMEM;
	pthread_mutex_unlock(&t->lock);
	return err;
}

uint64_t inodes_expose(struct inodes *t, uint64_t place)
{
	pthread_mutex_lock(&t->lock);
	uint64_t ino = current_of(t, place);
	struct ino_rec *r = find(t, ino);
	/* A write open makes its number WRITTEN for good. */
	if (r && r->lookups && !(r->flags & (INO_WRITTEN | INO_STALE)))
		r->flags |= INO_EXPOSED;
	else
		ino = 0;
	pthread_mutex_unlock(&t->lock);
	return ino;
}

bool inodes_cached(struct inodes *t, uint64_t ino)
{
	pthread_mutex_lock(&t->lock);
	const struct ino_rec *r = find(t, ino);
	bool cached = r && reader_cached(r);
	pthread_mutex_unlock(&t->lock);
	return cached;
}

/* ---- commits ------------------------------------------------------------ */

static int add_step(struct ino_plan *plan, const struct ino_rec *r, enum ino_fate fate)
{
	struct ino_step *steps = array_reserve(plan->steps, &plan->cap, plan->n + 1,
					       sizeof *steps, 64);
	if (!steps)
		return ENOMEM;
	plan->steps = steps;
	plan->steps[plan->n++] = (struct ino_step){.fate = fate, .ino = r->ino};
	return 0;
}

int inodes_plan(struct inodes *t, ino_judge *judge, void *ctx, struct ino_plan *plan)
{
	size_t from = plan->n, retiring = 0;
	int err = 0;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; !err && i < t->cap; i++) {
		const struct ino_rec *r = &t->slot[i];
		/* A stale number's view is what it was: nothing changes it. */
		if (!live(r) || !held(r) || (r->flags & INO_STALE))
			continue;
		enum ino_fate fate = judge(ctx, r->ino, r->place);
		if (fate != FATE_KEEP && !(err = add_step(plan, r, fate)))
			retiring += fate == FATE_RETIRE;
	}
	if (!err)
		err = grow_for(t, retiring + PLAN_SLACK);
	pthread_mutex_unlock(&t->lock);
	if (err)
		plan->n = from;
	return err;
}

void inodes_apply(struct inodes *t, struct ino_plan *plan)
{
	pthread_mutex_lock(&t->lock);
	for (size_t i = plan->applied; i < plan->n; i++) {
		struct ino_step *s = &plan->steps[i];
		if (s->fate != FATE_RETIRE)
			continue;
		const struct ino_rec *r = find(t, s->ino);
		/* Forgotten since the plan (forgets take no io lock): gone with it. */
		if (!r || (r->flags & INO_STALE) || !(s->next = retire(t, s->ino, 0)))
			s->fate = FATE_KEEP;
	}
	plan->applied = plan->n;
	pthread_mutex_unlock(&t->lock);
}

void inodes_cancel(struct ino_plan *plan)
{
	plan->n = plan->applied;
}

void inodes_plan_free(struct ino_plan *plan)
{
	free(plan->steps);
	memset(plan, 0, sizeof *plan);
}
