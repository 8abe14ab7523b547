/* SPDX-License-Identifier: MIT */
#include "times.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void times_init(struct times_table *t)
{
	memset(t, 0, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
}

void times_destroy(struct times_table *t)
{
	for (struct view_times *v = t->list, *next; v; v = next) {
		next = v->next;
		free(v);
	}
	pthread_mutex_destroy(&t->lock);
}

static struct view_times *find(struct times_table *t, uint64_t ino)
{
	struct view_times *v = t->list;
	while (v && v->ino != ino)
		v = v->next;
	return v;
}

int times_set(struct times_table *t, uint64_t ino, uint32_t entry,
	      const struct timespec *atime, const struct timespec *mtime,
	      const struct stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct view_times *v = find(t, ino);
	if (!v && (v = calloc(1, sizeof *v))) {
		v->ino = ino;
		v->atime = st->st_atim;
		v->mtime = st->st_mtim;
		v->next = t->list;
		t->list = v;
	}
	if (v) {
		v->entry = entry;
		if (atime)
			v->atime = *atime;
		if (mtime)
			v->mtime = *mtime;
	}
	pthread_mutex_unlock(&t->lock);
	return v ? 0 : ENOMEM;
}

void times_apply(struct times_table *t, uint64_t ino, struct stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct view_times *v = find(t, ino);
	if (v) {
		st->st_atim = v->atime;
		st->st_mtim = v->mtime;
	}
	pthread_mutex_unlock(&t->lock);
}

void times_forget_entry(struct times_table *t, uint32_t entry)
{
	pthread_mutex_lock(&t->lock);
	for (struct view_times **p = &t->list; *p;) {
		struct view_times *v = *p;
		if (v->entry == entry) {
			*p = v->next;
			free(v);
		} else {
			p = &v->next;
		}
	}
	pthread_mutex_unlock(&t->lock);
}
