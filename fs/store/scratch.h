/* SPDX-License-Identifier: MIT */
/* Scratch files: any name in the tree that is not a view (editor swap and
 * backup files, vim's 4913 probe, sed and rsync temporaries), and scratch
 * folders with scratch files in them (a tool's work folder, git's, a test
 * suite's), and the special files a folder can hold (fifos, sockets,
 * device nodes).  They are held in memory by the driver and never enter
 * the archive; renaming a file over a view commits its contents to that
 * view.  At unmount, the files that hold data are kept in the record
 * (report_scratch_left).
 *
 * Scratch inodes carry SCRATCH_INO, a bit no view inode has (views use
 * bits 63..48 for an engine id below 2^15).  The table is protected by
 * its own mutex; a scratch file lives until it is unlinked and closed.
 *
 * Their contents share one budget (-o scratch_mb): a write or truncate
 * that would take the files past it fails with ENOSPC, as on a full disk;
 * removing (once closed) or truncating a file gives its memory back. */
#ifndef FS_SCRATCH_H
#define FS_SCRATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define SCRATCH_INO (1ull << 63)
#define SCRATCH_DEFAULT_BUDGET ((size_t)256 << 20)

/* A file's name besides its first (a hard link). */
struct scratch_name {
	uint64_t parent;
	char *name;
	struct scratch_name *next;
};

struct scratch {
	uint64_t ino;
	uint64_t parent;       /* inode of its directory */
	char *name;            /* its first name */
	struct scratch_name *more_names; /* its hard links, newest first */
	struct stat st;        /* mode (any type), owner, times, size; a
				  folder's links are counted by scratch_stat */
	uint8_t *data;         /* contents, or a link's target */
	size_t cap;
	bool linked;           /* still has a name (its first: when that
				  goes, its next becomes the first) */
	unsigned opens;        /* open files: an unlinked file keeps its data
				  until the last is closed */
	bool pending;          /* a view being created (a new slot file): its
				  contents are committed to that view */
	uint64_t view;         /* pending: the view's inode */
	bool kept_text;        /* a refused text the record could not take,
				  kept here instead: named after its view's
				  path already (report.c) */
	struct scratch_table *table; /* whose budget its data counts against */
	struct scratch *next;
};

struct scratch_table {
	pthread_mutex_t lock;  /* protects everything below and every file */
	struct scratch *files;
	uint64_t serial;
	size_t budget;         /* bytes all files' data may take */
	size_t used;           /* bytes they hold: the sum of their sizes */
};

void scratch_init(struct scratch_table *t);
void scratch_destroy(struct scratch_table *t);

/* The file named `name` (any of its names) in directory `parent`, or
 * NULL.  Call with the lock held, as for every function here that
 * returns a file. */
struct scratch *scratch_find(struct scratch_table *t, uint64_t parent, const char *name);
struct scratch *scratch_by_ino(struct scratch_table *t, uint64_t ino);
/* The scratch folder of inode ino, or NULL (none, or not a folder). */
struct scratch *scratch_dir(struct scratch_table *t, uint64_t ino);
/* f's attributes, its link count included: a file's names, a folder's
 * 2 and one per folder in it. */
void scratch_stat(struct scratch_table *t, const struct scratch *f, struct stat *st);

/* A new empty file (or link, folder, special file), replacing any of that
 * name; in a scratch folder, the folder's times change, and a folder with
 * the set-group-ID bit gives its group (and to a folder, the bit). */
struct scratch *scratch_create(struct scratch_table *t, uint64_t parent,
			       const char *name, mode_t mode, uid_t uid, gid_t gid);

/* Sets the contents; 0 or ENOMEM/EFBIG/ENOSPC. */
int scratch_set(struct scratch *f, const uint8_t *data, size_t len);
/* Writes at off, growing the file; 0 or ENOMEM/EFBIG/ENOSPC. */
int scratch_write(struct scratch *f, const uint8_t *data, size_t len, uint64_t off);
int scratch_truncate(struct scratch *f, uint64_t size);

/* Drops all the file's names; its contents go when it is not open (then
 * f is freed), else at its last close.  A folder is to be empty. */
void scratch_unlink(struct scratch_table *t, struct scratch *f);
/* Drops the name `name` in `parent` (if there is one), the file going
 * with its last name as scratch_unlink says. */
void scratch_remove(struct scratch_table *t, uint64_t parent, const char *name);
/* Gives file f (no folder) one more name; 0 or ENOMEM. */
int scratch_link(struct scratch_table *t, struct scratch *f, uint64_t parent,
		 const char *name);

/* Renames `name` in `from` to `name` in `to`, replacing what has that
 * name: 0, ENOENT (no such name) or ENOMEM; a folder replaces only an
 * empty folder (ENOTEMPTY, ENOTDIR), and a file no folder (EISDIR). */
int scratch_move(struct scratch_table *t, uint64_t from, const char *name, uint64_t to,
		 const char *new_name);

/* The status change of f's attributes (chmod, chown, a rename): now. */
void scratch_changed(struct scratch *f);

/* An open file of inode ino begins or ends; the end of the last frees an
 * unlinked file. */
void scratch_open(struct scratch_table *t, uint64_t ino);
void scratch_close(struct scratch_table *t, uint64_t ino);

/* The names in a directory, for listings: the file of the i-th, its name
 * in *name (if name); NULL past the last. */
struct scratch *scratch_nth(struct scratch_table *t, uint64_t parent, uint64_t i,
			    const char **name);

#endif
