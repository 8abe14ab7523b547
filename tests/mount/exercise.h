/* SPDX-License-Identifier: MIT */
/* What the project's exercisers (posix_check, fsx) share: whole-file
 * reads and writes, the clip text's rotation keys they edit, and the
 * stand-in views they create with --local, so that every case runs on a
 * plain directory too and can be checked against a local disk there.
 * libc only. */
#ifndef TESTS_EXERCISE_H
#define TESTS_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Views of the sample archive the exercisers edit, relative to the
 * mount's root: an unshared clip's text, its folder, and raw entries with
 * a size record (so their bytes read back exactly, without block
 * padding). */
#define VIEW_DIR "file_06185/3/stream2"
#define VIEW_TEXT VIEW_DIR "/slot024.txt"
#define VIEW_RAW "file_00043.bin"
#define VIEW_RAW_FSX "file_00017.bin"

/* Key lines print as "%8d%8d%9d%10d": frame, value, ease_in, ease_out. */
#define KEY_VALUE_AT 8
#define KEY_VALUE_WIDTH 8

/* Everything from fd's offset 0 to its end (pread until EOF), malloc'ed
 * with a NUL after it; NULL with errno set on failure. */
char *read_fd(int fd, size_t *len);
/* A whole file by path. */
char *read_path(const char *path, size_t *len);
/* Writes all of buf at off (pwrite), or -1 with errno. */
int pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* Writes all of buf at the fd's position (write), or -1 with errno. */
int write_all(int fd, const void *buf, size_t len);
/* Creates or replaces path with len bytes; 0, or -1 with errno. */
int write_path(const char *path, const void *buf, size_t len);

/* Offsets of the value fields of the key lines of rotation channels in a
 * clip text: up to max of them; returns how many there are. */
size_t rot_values(const char *text, size_t len, size_t *at, size_t max);
/* Writes v right-aligned into the value field at text + at. */
void set_value(char *text, size_t at, int v);

/* Creates what --local stands in for the views under the current
 * directory: VIEW_TEXT (a clip text in the mount's layout), VIEW_RAW and
 * VIEW_RAW_FSX (pseudo-random bytes).  0, or -1 with errno. */
int make_standins(void);

#endif
