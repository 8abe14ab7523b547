/* SPDX-License-Identifier: MIT */
/* DATA.BIN: the game's archive of entries in 2048-byte blocks
 * (mhfu-archive(5) "DATA.BIN").
 *
 * The TOC is the first start[0] blocks: the start list (ending at the
 * archive's block count), then {id, size} pairs while they are valid, then
 * fill bytes kept verbatim.  This module decodes and encodes the TOC and
 * answers questions about entries; entry bytes are the caller's business.
 * It never performs I/O itself: databin_open and databin_guess_game read
 * through a callback the caller supplies. */
#ifndef MH_DATABIN_H
#define MH_DATABIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define DATABIN_BLOCK 2048u
/* Upper bound on the TOC we accept, so a hostile word 0 cannot make us
 * allocate without limit (retail TOCs are 17 blocks). */
#define DATABIN_MAX_TOC_BLOCKS 4096u

enum databin_game {
	GAME_UNKNOWN = 0,
	GAME_MHFU,   /* MHFU NA/EU: ULUS-10391, ULES-01213 */
	GAME_MHP2G,  /* MHP2G JP: ULJM-05500 */
	GAME_MHP3RD, /* MHP3rd JP: ULJM-05800 */
	GAME_COUNT
};

struct databin_size {
	uint32_t id;   /* engine id of the entry */
	uint32_t size; /* its exact byte size */
};

struct databin {
	uint32_t count;              /* entries; ids are 0 .. count-1 */
	uint32_t *start;             /* count + 1 start blocks; the last is the archive's block count */
	uint32_t nsizes;             /* size pairs */
	struct databin_size *sizes;  /* ids ascending */
	uint8_t *fill;               /* bytes after the pairs to the TOC's end, verbatim */
	size_t fill_len;
	bool encrypted;              /* the archive is stored encrypted */
	enum databin_game game;      /* which game's plain-entry list applies */
};

/* Reads len bytes at off of the archive; returns 0, or -1 on failure. */
typedef int (*databin_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* Decodes the TOC from `toc` (the first start[0] blocks exactly as
 * stored; decrypted internally when `encrypted`) of an archive of
 * `file_size` bytes.  On success the caller owns *db (databin_free). */
enum mh_err databin_decode(const uint8_t *toc, size_t len, uint64_t file_size,
			   bool encrypted, struct databin *db, struct mh_diag *d);

/* Reads the TOC through `read`, deciding whether the archive is encrypted
 * (the reading whose start list is plausible wins, plain first). */
enum mh_err databin_open(databin_read_fn read, void *ctx, uint64_t file_size,
			 struct databin *db, struct mh_diag *d);

/* How the game was told, and what from. */
enum databin_clue {
	CLUE_NONE,       /* nothing tells: GAME_UNKNOWN */
	CLUE_MAGIC,      /* entries on the game's plain list begin with the
			    magic of a format stored plain (databin_plain_magic) */
	CLUE_STATISTICS, /* in an encrypted archive, most entries on the game's
			    plain list read as plain data (more zero bytes as
			    stored than decrypted) */
	CLUE_COUNT,      /* a decrypted archive of the retail entry count */
};

struct databin_game_clue {
	enum databin_game game;
	enum databin_clue how;
	uint32_t id;        /* CLUE_MAGIC: the first such entry */
	const char *what;   /* CLUE_MAGIC: what it begins with, in words */
};

/* Tells the game from the archive, trying in turn: the magics of the
 * entries each game's list says are stored plain (the game with the most
 * such entries, unless tied); in an encrypted archive, which list's
 * entries read as plain; in a decrypted one, the entry count.  Leaves
 * db->game alone. */
void databin_tell_game(const struct databin *db, databin_read_fn read, void *ctx,
		       struct databin_game_clue *clue);

/* databin_tell_game, then sets db->game to what it told (GAME_UNKNOWN when
 * nothing does) and returns it. */
enum databin_game databin_guess_game(struct databin *db, databin_read_fn read,
				     void *ctx);

/* What `head` begins with if it is the magic of a format a game stores
 * plain in an encrypted archive (a PSP module "~PSP" or "\x7fELF", a PSMF
 * movie, a RIFF sound), in words; NULL otherwise. */
const char *databin_plain_magic(const uint8_t *head, size_t len);

/* The TOC as stored: start[0] blocks, encrypted when db->encrypted.  Fails
 * with MH_ERANGE if the model would not decode back to itself (a size pair
 * out of its entry's last block, starts not ascending...).  *out is
 * malloc'ed and owned by the caller. */
enum mh_err databin_encode(const struct databin *db, uint8_t **out, size_t *len,
			   struct mh_diag *d);

void databin_free(struct databin *db);

/* Entry geometry.  id < db->count. */
static inline uint64_t databin_entry_offset(const struct databin *db, uint32_t id)
{
	return (uint64_t)db->start[id] * DATABIN_BLOCK;
}

static inline uint32_t databin_entry_blocks(const struct databin *db, uint32_t id)
{
	return db->start[id + 1] - db->start[id];
}

/* The index of id's size pair, or -1 when it has none. */
long databin_size_index(const struct databin *db, uint32_t id);

/* The entry's byte size: its size record, else its whole blocks. */
uint64_t databin_entry_size(const struct databin *db, uint32_t id);

/* The length at which a re-encoded entry without a size record is
 * stored.  Such an entry is whole blocks: its bytes, zeros to the end of
 * their last block, and perhaps spare zero blocks.  The new bytes of an
 * edited member carry the old padding inside them (a PAC keeps what
 * follows its last member verbatim), so taking their length as is would
 * grow the entry by the padding at every edit.  Instead the new length is
 * what the new bytes need without their trailing zeros, plus as many
 * spare blocks as the old entry had: an edit followed by its inverse
 * gives back the same entry.  `old` is the entry as stored (whole
 * blocks), `bytes` the new contents; returns a multiple of DATABIN_BLOCK,
 * at least one block, to zero-extend `bytes` to or cut them at (only
 * zeros are cut). */
size_t databin_padded_len(const uint8_t *old, size_t old_len, const uint8_t *bytes,
			  size_t len);

/* Pads the malloc'ed new contents *bytes[0..*len) of the entry stored as
 * old[0..old_len) as databin_padded_len says: cut, or zero-extended
 * (realloc'ed).  MH_ENOMEM leaves *bytes and *len as they were. */
enum mh_err databin_repad(const uint8_t *old, size_t old_len, uint8_t **bytes,
			  size_t *len, struct mh_diag *d);

/* Whether the entry is stored unencrypted (always in a plain archive; in
 * an encrypted one, the game's exception ids). */
bool databin_entry_plain(const struct databin *db, uint32_t id);

/* Is id on `game`'s list of entries stored plain in an encrypted archive? */
bool databin_game_plain_id(enum databin_game game, uint32_t id);

const char *databin_game_name(enum databin_game game);
/* The entry count of `game`'s retail archive, 0 when not known. */
uint32_t databin_game_entries(enum databin_game game);
/* Parses a name as databin_game_name prints it (or "mhfu", "mhp2g",
 * "mhp3rd"); GAME_UNKNOWN if none. */
enum databin_game databin_game_parse(const char *name);

#endif
