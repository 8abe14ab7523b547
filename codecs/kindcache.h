/* SPDX-License-Identifier: MIT */
/* The kinds file: the entry kinds of a DATA.BIN as a mount learnt them,
 * kept in the archive's record folder so that the next mount names its
 * entries without reading them (mount.mhfu(8) "THE RECORD").
 *
 * The file says which archive it describes (struct kindcache_key: the
 * backing file's identity and times, its TOC, the game and encryption the
 * entries were read with, the driver that told the kinds); a mount uses
 * it only when every field matches what it sees, so a stale or foreign
 * file is never believed.  Layout, little-endian:
 *
 *   0   8  magic "MHFUKIND"
 *   8   4  version, 1
 *   12  4  count: entries
 *   16  88 the key: dev, ino, size, mtime seconds, mtime nanoseconds,
 *          ctime seconds, ctime nanoseconds, TOC hash, driver, game,
 *          encrypted (each 8 bytes)
 *   104 count  each entry's kind (enum kind), or KINDCACHE_UNKNOWN
 *   ... 8  FNV-1a 64 of every byte before it
 *
 * A file of any other length, magic, version, checksum or kind value is
 * refused whole.  Pure: no I/O, no globals. */
#ifndef MH_KINDCACHE_H
#define MH_KINDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "databin.h"
#include "diag.h"

#define KINDCACHE_VERSION 1u
#define KINDCACHE_HEAD 104u
#define KINDCACHE_TAIL 8u
/* An entry whose kind the mount did not learn. */
#define KINDCACHE_UNKNOWN 0xffu
/* No TOC holds more: DATABIN_MAX_TOC_BLOCKS of 4-byte starts. */
#define KINDCACHE_MAX_ENTRIES (DATABIN_MAX_TOC_BLOCKS * DATABIN_BLOCK / 4u)

struct kindcache_key {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t toc;       /* kindcache_toc_hash */
	uint64_t driver;    /* the build that told the kinds */
	uint64_t game;      /* enum databin_game the entries were read as */
	uint64_t encrypted; /* 1 when the archive is stored encrypted */
};

/* A hash of the TOC as decoded: the start list, the size pairs, the fill. */
uint64_t kindcache_toc_hash(const struct databin *db);

bool kindcache_key_equal(const struct kindcache_key *a, const struct kindcache_key *b);

/* The file's bytes for `count` kinds (each < KIND_COUNT, or
 * KINDCACHE_UNKNOWN), malloc'ed into *out.  MH_ERANGE when count is over
 * KINDCACHE_MAX_ENTRIES or a kind is out of range; MH_ENOMEM. */
enum mh_err kindcache_encode(const struct kindcache_key *key, const uint8_t *kinds,
			     uint32_t count, uint8_t **out, size_t *len, struct mh_diag *d);

/* The key and kinds of a file: *kinds malloc'ed (count of them; NULL
 * when count is 0).  On failure nothing is allocated and d says what is
 * wrong and where. */
enum mh_err kindcache_decode(const uint8_t *buf, size_t len, struct kindcache_key *key,
			     uint8_t **kinds, uint32_t *count, struct mh_diag *d);

#endif
