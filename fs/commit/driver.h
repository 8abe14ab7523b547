/* SPDX-License-Identifier: MIT */
/* The driver context (mhfs.h) set up and torn down without FUSE: what
 * mount.mhfu does between reading its options and serving, and after.
 * The tree and the commit path then run on it as in a mount, so unit
 * tests look views up, read them and commit edits without one
 * (tests/unit/test_driver.c). */
#ifndef FS_DRIVER_H
#define FS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "databin.h"
#include "fserror.h"
#include "mhfs.h"
#include "rules.h"

struct store_io;

struct driver_options {
	const char *archive;      /* the archive's path */
	const char *state;        /* -o state=: the record folder; NULL: its
				     default place (record.h) */
	enum databin_game game;   /* -o game=, GAME_UNKNOWN: told from it */
	bool read_only;           /* -o ro */
	bool backup;              /* -o backup */
	bool log_to_stderr;       /* log lines on stderr too (the daemon's) */
	unsigned lock_wait_ms;    /* -o lock_wait= */
	size_t cache_bytes;       /* -o cache_mb= */
	size_t scratch_bytes;     /* -o scratch_mb= */
	size_t history_max;       /* -o history=, 0: the default */
	enum rules_mode rules;    /* -o rules= */
	double fit[2];            /* -o fit= (mhfs.h) */
	const struct store_io *io; /* the archive's system calls; NULL: libc's
				     (a test's simulated disk) */
};

enum driver_status {
	DRIVER_OK,
	DRIVER_EIO,      /* the archive cannot be opened or read */
	DRIVER_EFORMAT,  /* it is no valid DATA.BIN or PAC */
	DRIVER_EBUSY,    /* another mount holds it */
	DRIVER_ESTATE,   /* the record folder given cannot be used */
	DRIVER_ENOMEM,
};

/* Opens the archive into *fs (zeroed by the caller), with its record and
 * history: DRIVER_OK, or why not in msg.  Whatever it returns, the
 * caller then calls driver_close. */
enum driver_status driver_open(struct mhfs *fs, const struct driver_options *o,
			       struct fs_diag *msg);

/* Keeps the kinds sniffed, closes the archive (if open) and frees the
 * context. */
void driver_close(struct mhfs *fs);

#endif
