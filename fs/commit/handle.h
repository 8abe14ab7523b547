/* SPDX-License-Identifier: MIT */
/* Open files, shared by the read and write operations.
 *
 * A handle reads either the archive (a raw view opened read-only: its
 * bytes are read on demand) or its own buffer: a snapshot of a text view,
 * or the new contents of a view opened for writing, committed at flush,
 * fsync or release when dirty.  A scratch file's handle names it by inode
 * and reads and writes the scratch table. */
#ifndef FS_HANDLE_H
#define FS_HANDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mhfs.h"
#include "node.h"

/* A view's new contents are held in memory until committed: a bound
 * keeps a runaway writer from exhausting it (retail entries are a few
 * MB; the archive's largest, tens). */
#define WRITE_MAX_BYTES (64ull << 20)

/* The bytes a commit replaced, kept for the raw files open on them: at
 * most this many at once (past it, their reads fail with ESTALE). */
#define KEEP_OLD_MAX_BYTES (256ull << 20)

/* An entry's bytes before a commit, shared by the raw files that opened
 * them (handles_keep_old). */
struct old_bytes {
	_Atomic int refs;          /* the handles holding them */
	size_t len;
	uint8_t *bytes;
	_Atomic size_t *account;   /* where len is counted (fs->kept_old_bytes) */
};

struct handle {
	_Atomic int refs;      /* the open file, and each read replying from it:
				  the kernel may release the file as soon as a
				  read's reply is delivered, before it returns */
	pthread_mutex_t lock;  /* guards the buffer and the flags below: one
				  open file may be written, read and flushed by
				  several threads at once */
	uint64_t ino;          /* the inode opened */
	_Atomic uint64_t shown_len; /* len, readable without the lock: what
				  stat shows of a view open for writing... */
	_Atomic bool showing;  /* ...while written and not committed: after a
				  commit the view shows the archive (a refused
				  text is not what the view holds) */
	struct handle *next_open; /* fs->handles */
	struct node view;      /* the view opened (not a scratch file) */
	uint64_t place;        /* its place number (node_place): a writer's
				  size shows under every number of its view */
	uint64_t scratch;      /* a scratch file's inode, else 0 */
	uint32_t entry;        /* raw reads: the entry... */
	uint64_t offset;       /*   where the view starts in it */
	uint64_t size;         /*   and its size */
	uint64_t generation;   /*   the entry's generation at open: a read
				  after a commit replaced it reads the bytes
				  the commit kept (old), else fails with ESTALE
				  rather than mix old and new bytes */
	struct old_bytes *old; /*   set with the archive's io lock held
				  exclusively, read with it shared */
	bool counted;          /* counted open in fs->inodes (inodes_open) */
	bool buffered;         /* reads (and writes) use data */
	uint8_t *data;         /* a reader's may be a kept text shared, */
	const struct model_text *shared; /*   this: then never written, and
				  given back rather than freed */
	size_t len, cap;
	bool writable;         /* opened for writing a view */
	bool dirty;            /* written since the last commit attempt */
	int error;             /* the last commit attempt's errno: every flush
				  and fsync reports it until one succeeds */
	bool emptied;          /* opened with O_TRUNC and not written since:
				  committed (empty) at release only, as shells
				  flush a redirection's fd before writing */
};

/* A new handle of inode ino, one reference; NULL when out of memory. */
struct handle *handle_new(uint64_t ino);

/* Drops a reference; the last frees the handle. */
void handle_put(struct handle *h);

/* The open file is closed: out of fs->handles, its scratch file's open
 * count down, its reference dropped. */
void handle_release(struct mhfs *fs, struct handle *h);

/* Every open file is in fs->handles: a view open for writing shows the
 * writer's size while it is open (stat and O_APPEND see what was
 * written, as on a local disk), a truncate by path reaches the writer's
 * buffer, and what the kernel never released is freed at unmount. */
void handles_add(struct mhfs *fs, struct handle *h);
void handles_free_all(struct mhfs *fs);
/* The handle open for writing the view of place number `place`, with a
 * reference (handle_put it); NULL if none. */
struct handle *writer_of(struct mhfs *fs, uint64_t place);
/* The size of that view while a handle open for writing has written to
 * it (and not committed since): false if none.  Whether a handle has it
 * open for writing.  They take no lock but the registry's, so they may be
 * called holding any. */
bool writer_len(struct mhfs *fs, uint64_t place, uint64_t *len);
bool writer_open(struct mhfs *fs, uint64_t place);

/* A commit replaced entry `entry`, of generation `generation` until then,
 * whose bytes were *bytes (len of them, malloc'ed): the raw files open on
 * them keep them, taking *bytes (then NULL), within KEEP_OLD_MAX_BYTES.
 * With the archive's io lock held exclusively. */
void handles_keep_old(struct mhfs *fs, uint32_t entry, uint64_t generation, uint8_t **bytes,
		      size_t len);

/* Sets the buffer's size (with h->lock held); new bytes are zero.  0 or
 * errno: EFBIG past the bound on a view's size. */
int handle_resize(struct handle *h, size_t size);

#endif
