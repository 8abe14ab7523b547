/* SPDX-License-Identifier: MIT */
/* The driver's state: the context every layer from the tree up takes
 * (fs/README.md).  It holds no FUSE session: what the driver tells the
 * kernel goes through `kernel`, which the FUSE layer fills, so the tree,
 * the commit path and the caches run without a mount (unit tests). */
#ifndef FS_MHFS_H
#define FS_MHFS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "archive.h"
#include "history.h"
#include "inodes.h"
#include "log.h"
#include "rules.h"
#include "prefetch.h"
#include "record.h"
#include "scratch.h"
#include "times.h"

/* The last refused write of each view, for the user.mhfu.error xattr. */
struct view_error {
	uint64_t ino;                /* the view's place number */
	char *msg;
	struct view_error *next;
};

/* The kernel's caches, as the FUSE layer reaches them (fuse/main.c); all
 * NULL where there is no kernel. */
struct kernel {
	void *session;
	/* Drops an inode's cached attributes; with `pages`, its pages too. */
	void (*forget)(void *session, uint64_t ino, bool pages);
};

struct handle;

struct mhfs {
	struct archive ar;           /* the backing archive */
	struct history history;      /* its commits, kept in the record */
	struct archive original;     /* the original tree's entries, from the
					history; read under ar's io lock */
	struct mlog log;             /* .mhfu/log */
	struct record record;        /* where the log and refused texts are kept */
	struct scratch_table scratch;/* files that are not views */
	struct inodes inodes;        /* inode numbers, and those the kernel holds */
	struct kernel kernel;        /* for cache invalidations */
	enum rules_mode rules;       /* -o rules= */
	double fit[2];               /* -o fit=: a glTF's keys' tolerances (rotation,
					location, raw units; 0: fit.h's defaults) */
	unsigned workers;            /* the most worker threads (main.c) */
	uid_t uid;                   /* owner shown for every view */
	gid_t gid;
	double timeout;              /* attribute cache timeout, seconds (commits
					invalidate attributes explicitly) */
	double entry_timeout;        /* name cache timeout of views (a name the
					kernel keeps after a commit changed its
					view reads it as it is now: inodes.h) */
	pthread_key_t read_buffers;  /* each worker thread's read buffer */
	struct prefetch prefetch;    /* read-only mounts: across entries */
	pthread_mutex_t errors_lock; /* protects errors */
	struct view_error *errors;
	pthread_mutex_t handles_lock; /* protects handles */
	struct handle *handles;      /* open files (handle.h) */
	_Atomic size_t kept_old_bytes; /* entries' bytes kept for raw files open
					  across commits (handles_keep_old) */
	_Atomic uint64_t view_reads; /* reads of views that reached the driver
					(the kernel's cache missed them) */
	struct times_table times;    /* times set on views */
	bool opened, archive_open, history_open; /* what driver_close undoes */
};

/* The three inode namespaces, told apart in one place: views and the
 * mount's own nodes (node.h), scratch files (scratch.h), and the files
 * a folder holds of its own (view.h's own_*: the record's kept texts,
 * record.h). */
enum ino_space { INO_VIEW, INO_SCRATCH, INO_OWN };

static inline enum ino_space ino_space(uint64_t ino)
{
	return record_ino(ino) ? INO_OWN : (ino & SCRATCH_INO) ? INO_SCRATCH : INO_VIEW;
}

/* Tells the kernel to drop inode `ino`'s attributes (a number a commit
 * retired, a writer's number at its close, a view whose writer's size it
 * showed); never waits. */
static inline void kernel_forget(struct mhfs *fs, uint64_t ino)
{
	if (fs->kernel.forget)
		fs->kernel.forget(fs->kernel.session, ino, false);
}

/* Tells the kernel to drop inode `ino`'s pages and attributes (a stale
 * number revived, inodes.h 7); waits for no request: called where no
 * file of it is open. */
static inline void kernel_forget_pages(struct mhfs *fs, uint64_t ino)
{
	if (fs->kernel.forget)
		fs->kernel.forget(fs->kernel.session, ino, true);
}

#endif
