/* SPDX-License-Identifier: MIT */
/* The mount's record on disk: a folder per archive holding `log` (what
 * .mhfu/log shows, appended by log.c) and `rejected/` (the texts of
 * refused writes, what .mhfu/rejected/ lists), and `overrides/` (what a
 * moveset's records.txt was set to), so they outlive the mount.
 *
 * The folder is -o state=DIR itself when given, else
 * BASE/mhfufs/NAME-HASH: NAME the archive's file name, HASH a hash of its
 * full path (the same archive always gets the same folder; two archives
 * of one name do not share one).  BASE is $XDG_STATE_HOME, else
 * $HOME/.local/state, else the user's home from the password database
 * plus .local/state (the daemon runs as the mounting user, whose HOME may
 * be unset); with no home at all, /var/tmp/mhfufs-UID/NAME-HASH.
 *
 * rejected/ is bounded, fairly to what was typed by hand: past
 * RECORD_MAX_TEXTS texts the oldest are removed, and past RECORD_MAX_BYTES
 * bytes the largest texts over RECORD_SMALL_TEXT (the newest is always
 * kept), so one big refused `cp` never pushes out an editor's refused
 * text.  A refused write keeps at most its first RECORD_MAX_TEXT_BYTES
 * (the caller logs the cut).  Each text
 * is named after its time and its view,
 * 20261130T123456.123456Z-file_06185%3%stream2%slot024.txt (UTC; '%' for
 * '/'), so names sort by time and several refusals of one view are all
 * kept.  A kept text is synced to disk before the refusal returns.
 *
 * In the mount, kept texts have inodes of their own: RECORD_INO plus the
 * file's inode number on disk.  Every function here reads the folder
 * afresh and keeps no state but its descriptor: safe from any thread. */
#ifndef FS_RECORD_H
#define FS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fserror.h"
#include "scratch.h"

/* A scratch-class inode (SCRATCH_INO) with a bit no scratch file uses. */
#define RECORD_INO (SCRATCH_INO | (1ull << 62))
#define RECORD_MAX_TEXTS 100
#define RECORD_MAX_BYTES (16u << 20)
#define RECORD_MAX_TEXT_BYTES (1u << 20)
#define RECORD_SMALL_TEXT (64u << 10)

struct record {
	int dir;         /* the archive's folder, -1 when there is none */
	char *path;      /* its absolute path */
};

static inline bool record_ino(uint64_t ino)
{
	return (ino & RECORD_INO) == RECORD_INO;
}

/* The default folder for the archive at `archive` (a path to an existing
 * file), malloc'ed; NULL on ENOMEM. */
char *record_default_dir(const char *archive);

/* Opens (creating it and its parents, mode 0700) the folder `dir` and its
 * rejected/.  0, or an errno with the reason in msg. */
int record_open(struct record *r, const char *dir, struct fs_diag *msg);
void record_close(struct record *r);

/* Keeps a refused text of the view at `view_path` (its first `len`
 * bytes: the caller cuts it); its file name goes to name.  Removes texts
 * past the bounds.  0 or an errno. */
int record_keep(struct record *r, const char *view_path, const void *data, size_t len,
		char *name, size_t name_len);

/* The kept text named `name`: its attributes (st_ino its inode in the
 * mount).  0 or an errno. */
int record_lookup(struct record *r, const char *name, struct stat *st);
struct record_text {
	char name[256];
	struct stat st;  /* as the mount shows it */
};

/* The kept texts, oldest first, as a malloc'ed array.  0 or an errno. */
int record_list(struct record *r, struct record_text **texts, size_t *count);
/* The kept text of inode `ino`: attributes, and (if data) its contents,
 * malloc'ed.  0 or an errno. */
int record_get(struct record *r, uint64_t ino, struct stat *st, uint8_t **data,
	       size_t *len);
/* Writes all of p to fd, through short writes and interruptions: 0 or
 * an errno. */
int record_write_all(int fd, const uint8_t *p, size_t len);
/* The file `name` in folder dir, what it holds (a file cut meanwhile:
 * what is there), malloc'ed: 0 or an errno. */
int record_read_file(int dir, const char *name, uint8_t **data, size_t *len);

/* Removes a kept text.  0 or an errno. */
int record_remove(struct record *r, const char *name);

/* Scratch folders left at unmount (a tool's work folder, a .git) are kept
 * whole, as trees, in left/STAMP/ (STAMP the unmount's UTC time, as a
 * kept text's), each file at its path in the mount: folders, files with
 * their bytes and permission bits, and symbolic links.  The newest
 * RECORD_MAX_LEFT unmounts' trees are kept, the older ones removed, and
 * they never count against rejected/'s bounds: a big .git cannot push a
 * refused text out. */
#define RECORD_MAX_LEFT 8
struct record_left {
	int dir;              /* left/STAMP/, -1 until opened */
	char path[4096];      /* its absolute path, for messages */
};
/* Makes left/STAMP/ for this unmount, removing the oldest trees past the
 * bound.  0 or an errno. */
int record_left_open(struct record *r, struct record_left *left);
/* Puts what is at `path` (relative, '/'-separated) in the tree: a folder
 * (S_IFDIR), a file's `len` bytes (S_IFREG) or a link to `data`
 * (S_IFLNK), making the folders above it.  0 or an errno. */
int record_left_put(struct record_left *left, const char *path, mode_t mode,
		    const void *data, size_t len);
/* Syncs the tree to disk, and closes it. */
void record_left_close(struct record_left *left);

/* What a user set that is kept beside the archive, never in it, in
 * overrides/KEY.EXT, KEY naming the item ('/' as '%'): an MHP3rd
 * moveset's records.txt (RECORD_RECORDS), a model folder's port/port.txt
 * (RECORD_PORT_TXT) and the donor copied into it (RECORD_PORT_DONOR).
 * record_override_get: its bytes, malloc'ed; ENOENT when there are none
 * (or no folder).  record_override_put: replaces them durably (written
 * beside, synced, renamed over, the folder synced); len 0 removes them.
 * 0 or an errno. */
#define RECORD_RECORDS ".records"
#define RECORD_PORT_TXT ".port.txt"
#define RECORD_PORT_DONOR ".donor.pac"
int record_override_get(struct record *r, const char *key, const char *ext, uint8_t **data,
			size_t *len);
int record_override_put(struct record *r, const char *key, const char *ext, const void *data,
			size_t len);
/* The size of the kept bytes, without reading them (a stat needs no
 * more); ENOENT when there are none. */
int record_override_size(const struct record *r, const char *key, const char *ext,
			 uint64_t *size);
/* Where they are kept, for messages: "DIR/overrides/KEY.EXT". */
void record_override_path(const struct record *r, const char *key, const char *ext,
			  char *buf, size_t len);

#endif
