/* SPDX-License-Identifier: MIT */
#include "scratch.h"

#include "buffer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Scratch files are editor temporaries: one file past this bound fails
 * with EFBIG; together they are held to the table's budget (ENOSPC). */
#define SCRATCH_MAX_BYTES (256u << 20)

void scratch_init(struct scratch_table *t)
{
	memset(t, 0, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
	t->budget = SCRATCH_DEFAULT_BUDGET;
}

static void free_names(struct scratch *f)
{
	for (struct scratch_name *n = f->more_names, *next; n; n = next) {
		next = n->next;
		free(n->name);
		free(n);
	}
	f->more_names = NULL;
}

void scratch_destroy(struct scratch_table *t)
{
	for (struct scratch *f = t->files, *next; f; f = next) {
		next = f->next;
		free_names(f);
		free(f->name);
		free(f->data);
		free(f);
	}
	pthread_mutex_destroy(&t->lock);
}

/* Where name `name` in `parent` is: f's first name (*link NULL) or the
 * name *link points to; the file, or NULL. */
static struct scratch *find_name(struct scratch_table *t, uint64_t parent, const char *name,
				 struct scratch_name ***link)
{
	for (struct scratch *f = t->files; f; f = f->next) {
		if (!f->linked)
			continue;
		if (f->parent == parent && !strcmp(f->name, name)) {
			*link = NULL;
			return f;
		}
		for (struct scratch_name **n = &f->more_names; *n; n = &(*n)->next)
			if ((*n)->parent == parent && !strcmp((*n)->name, name)) {
				*link = n;
				return f;
			}
	}
	return NULL;
}

struct scratch *scratch_find(struct scratch_table *t, uint64_t parent, const char *name)
{
	struct scratch_name **link;
	return find_name(t, parent, name, &link);
}

struct scratch *scratch_by_ino(struct scratch_table *t, uint64_t ino)
{
	for (struct scratch *f = t->files; f; f = f->next)
		if (f->ino == ino)
			return f;
	return NULL;
}

struct scratch *scratch_dir(struct scratch_table *t, uint64_t ino)
{
	struct scratch *d = scratch_by_ino(t, ino);
	return d && S_ISDIR(d->st.st_mode) ? d : NULL;
}

void scratch_stat(struct scratch_table *t, const struct scratch *f, struct stat *st)
{
	*st = f->st;
	if (!f->linked)
		return;
	if (!S_ISDIR(f->st.st_mode)) {
		for (const struct scratch_name *n = f->more_names; n; n = n->next)
			st->st_nlink++;
		return;
	}
	st->st_nlink = 2;
	for (const struct scratch *c = t->files; c; c = c->next)
		st->st_nlink += c->linked && c->parent == f->ino && S_ISDIR(c->st.st_mode);
}

static void touch(struct scratch *f)
{
	clock_gettime(CLOCK_REALTIME, &f->st.st_mtim);
	f->st.st_ctim = f->st.st_mtim;
}

void scratch_changed(struct scratch *f)
{
	clock_gettime(CLOCK_REALTIME, &f->st.st_ctim);
}

/* A name came or went in folder `parent`: a scratch folder's times change
 * (a view folder's are the archive's). */
static void touch_dir(struct scratch_table *t, uint64_t parent)
{
	struct scratch *d = (parent & SCRATCH_INO) ? scratch_dir(t, parent) : NULL;
	if (d)
		touch(d);
}

struct scratch *scratch_create(struct scratch_table *t, uint64_t parent,
			       const char *name, mode_t mode, uid_t uid, gid_t gid)
{
	scratch_remove(t, parent, name);
	struct scratch *f = calloc(1, sizeof *f);
	if (!f || !(f->name = strdup(name))) {
		free(f);
		return NULL;
	}
	f->ino = SCRATCH_INO | ++t->serial;
	f->table = t;
	f->parent = parent;
	f->linked = true;
	struct scratch *dir = (parent & SCRATCH_INO) ? scratch_dir(t, parent) : NULL;
	if (dir && (dir->st.st_mode & S_ISGID)) {
		gid = dir->st.st_gid;
		mode |= S_ISDIR(mode) ? S_ISGID : 0;
	}
	f->st.st_ino = f->ino;
	f->st.st_mode = mode;
	f->st.st_nlink = 1;
	f->st.st_uid = uid;
	f->st.st_gid = gid;
	f->st.st_blksize = 4096;
	touch(f);
	f->st.st_atim = f->st.st_mtim;
	f->next = t->files;
	t->files = f;
	touch_dir(t, parent);
	return f;
}

/* The file's size becomes `size`, counted against the table's budget. */
static void set_size(struct scratch *f, size_t size)
{
	f->table->used = f->table->used - (size_t)f->st.st_size + size;
	f->st.st_size = (off_t)size;
	f->st.st_blocks = (blkcnt_t)((size + 511) / 512);
}

/* Room for `size` bytes of data: within the budget, which counts sizes
 * (allocated room beyond a file's size is never touched, so it takes no
 * memory); bytes past the old size are zero. */
static int make_room(struct scratch *f, size_t size)
{
	struct scratch_table *t = f->table;
	size_t old = (size_t)f->st.st_size;
	if (size > SCRATCH_MAX_BYTES)
		return EFBIG;
	if (size <= old)
		return 0;
	if (size - old > (t->budget > t->used ? t->budget - t->used : 0))
		return ENOSPC;
	if (buffer_reserve(&f->data, &f->cap, size))
		return ENOMEM;
	memset(f->data + old, 0, size - old);
	return 0;
}

/* Frees what a file no longer needs: all of it when empty, else the room
 * past twice its size. */
static void shrink(struct scratch *f)
{
	size_t size = (size_t)f->st.st_size;
	if (size == 0) {
		free(f->data);
		f->data = NULL;
		f->cap = 0;
	} else if (size <= f->cap / 2) {
		uint8_t *p = realloc(f->data, size);
		if (p) {
			f->data = p;
			f->cap = size;
		}
	}
}

int scratch_set(struct scratch *f, const uint8_t *data, size_t len)
{
	int err = make_room(f, len);
	if (err)
		return err;
	if (len)
		memcpy(f->data, data, len);
	set_size(f, len);
	shrink(f);
	touch(f);
	return 0;
}

int scratch_write(struct scratch *f, const uint8_t *data, size_t len, uint64_t off)
{
	if (off > SCRATCH_MAX_BYTES || len > SCRATCH_MAX_BYTES - off)
		return EFBIG;
	size_t end = (size_t)(off + len);
	int err = make_room(f, end);
	if (err)
		return err;
	if (len)
		memcpy(f->data + off, data, len);
	if (end > (size_t)f->st.st_size)
		set_size(f, end);
	touch(f);
	return 0;
}

int scratch_truncate(struct scratch *f, uint64_t size)
{
	if (size > SCRATCH_MAX_BYTES)
		return EFBIG;
	int err = make_room(f, (size_t)size);
	if (err)
		return err;
	set_size(f, (size_t)size);
	shrink(f);
	touch(f);
	return 0;
}

/* Takes f out of the table and frees it. */
static void scratch_free(struct scratch_table *t, struct scratch *f)
{
	for (struct scratch **p = &t->files; *p; p = &(*p)->next)
		if (*p == f) {
			*p = f->next;
			break;
		}
	set_size(f, 0); /* its room back to the budget */
	free_names(f);
	free(f->name);
	free(f->data);
	free(f);
}

void scratch_unlink(struct scratch_table *t, struct scratch *f)
{
	for (struct scratch_name *n = f->more_names; n; n = n->next)
		touch_dir(t, n->parent);
	free_names(f);
	f->linked = false;
	f->st.st_nlink = 0;
	scratch_changed(f);
	touch_dir(t, f->parent);
	if (!f->opens)
		scratch_free(t, f);
}

/* Takes name *link off f (its first when link is NULL), the next taking
 * the first's place; true if f has a name left. */
static bool drop_name(struct scratch_table *t, struct scratch *f, struct scratch_name **link)
{
	struct scratch_name *n = link ? *link : f->more_names;
	if (!n)
		return false;
	if (link) {
		*link = n->next;
		touch_dir(t, n->parent);
		free(n->name);
	} else {
		touch_dir(t, f->parent);
		free(f->name);
		f->parent = n->parent;
		f->name = n->name;
		f->more_names = n->next;
	}
	free(n);
	scratch_changed(f);
	return true;
}

void scratch_remove(struct scratch_table *t, uint64_t parent, const char *name)
{
	struct scratch_name **link;
	struct scratch *f = find_name(t, parent, name, &link);
	if (f && !drop_name(t, f, link))
		scratch_unlink(t, f);
}

int scratch_link(struct scratch_table *t, struct scratch *f, uint64_t parent,
		 const char *name)
{
	struct scratch_name *n = malloc(sizeof *n);
	if (!n || !(n->name = strdup(name))) {
		free(n);
		return ENOMEM;
	}
	n->parent = parent;
	n->next = f->more_names;
	f->more_names = n;
	scratch_changed(f);
	touch_dir(t, parent);
	return 0;
}

int scratch_move(struct scratch_table *t, uint64_t from, const char *name, uint64_t to,
		 const char *new_name)
{
	struct scratch_name **link, **old_link;
	struct scratch *f = find_name(t, from, name, &link);
	struct scratch *old = find_name(t, to, new_name, &old_link);
	if (!f)
		return ENOENT;
	if (old == f)
		return 0; /* two names of one file: nothing to do (rename(2)) */
	bool dir = S_ISDIR(f->st.st_mode);
	if (old && S_ISDIR(old->st.st_mode))
		if (!dir || scratch_nth(t, old->ino, 0, NULL))
			return dir ? ENOTEMPTY : EISDIR;
	if (old && dir && !S_ISDIR(old->st.st_mode))
		return ENOTDIR;
	char *copy = strdup(new_name);
	if (!copy)
		return ENOMEM;
	if (old)
		scratch_remove(t, to, new_name); /* another file's: f's names stay */
	char **slot = link ? &(*link)->name : &f->name;
	uint64_t *parent = link ? &(*link)->parent : &f->parent;
	touch_dir(t, *parent);
	free(*slot);
	*slot = copy;
	*parent = to;
	f->pending = false;
	scratch_changed(f);
	touch_dir(t, to);
	return 0;
}

void scratch_open(struct scratch_table *t, uint64_t ino)
{
	struct scratch *f = scratch_by_ino(t, ino);
	if (f)
		f->opens++;
}

void scratch_close(struct scratch_table *t, uint64_t ino)
{
	struct scratch *f = scratch_by_ino(t, ino);
	if (f && f->opens && !--f->opens && !f->linked)
		scratch_free(t, f);
}

struct scratch *scratch_nth(struct scratch_table *t, uint64_t parent, uint64_t i,
			    const char **name)
{
	for (struct scratch *f = t->files; f; f = f->next) {
		if (!f->linked)
			continue;
		if (f->parent == parent && i-- == 0) {
			if (name)
				*name = f->name;
			return f;
		}
		for (const struct scratch_name *n = f->more_names; n; n = n->next)
			if (n->parent == parent && i-- == 0) {
				if (name)
					*name = n->name;
				return f;
			}
	}
	return NULL;
}
