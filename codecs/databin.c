/* SPDX-License-Identifier: MIT */
#include "databin.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes.h"
#include "cipher.h"

/* Engine ids stored plain in an encrypted archive, as inclusive ranges. */
struct id_range {
	uint32_t first, last;
};

static const struct id_range PLAIN_MHFU[] = {{42, 43}, {46, 62}};
static const struct id_range PLAIN_MHP2G[] = {{22, 23}, {26, 42}};
static const struct id_range PLAIN_MHP3RD[] = {{17, 20}, {81, 92}};

static const struct {
	const char *name;  /* as printed */
	const char *alias; /* as typed in -o game= */
	const struct id_range *plain;
	size_t nplain;
	uint32_t entries;  /* entry count of the retail archive, 0 if unknown */
} GAMES[GAME_COUNT] = {
	[GAME_UNKNOWN] = {"unknown", "unknown", NULL, 0, 0},
	[GAME_MHFU] = {"MHFU (NA/EU)", "mhfu", PLAIN_MHFU, 2, 6656},
	[GAME_MHP2G] = {"MHP2G (JP)", "mhp2g", PLAIN_MHP2G, 2, 6602},
	[GAME_MHP3RD] = {"MHP3rd (JP)", "mhp3rd", PLAIN_MHP3RD, 2, 5955},
};

const char *databin_game_name(enum databin_game game)
{
	return game < GAME_COUNT ? GAMES[game].name : GAMES[GAME_UNKNOWN].name;
}

uint32_t databin_game_entries(enum databin_game game)
{
	return game < GAME_COUNT ? GAMES[game].entries : 0;
}

enum databin_game databin_game_parse(const char *name)
{
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++)
		if (!strcasecmp(name, GAMES[g].alias) || !strcmp(name, GAMES[g].name))
			return (enum databin_game)g;
	return GAME_UNKNOWN;
}

bool databin_game_plain_id(enum databin_game game, uint32_t id)
{
	if (game >= GAME_COUNT)
		return false;
	for (size_t i = 0; i < GAMES[game].nplain; i++)
		if (id >= GAMES[game].plain[i].first && id <= GAMES[game].plain[i].last)
			return true;
	return false;
}

bool databin_entry_plain(const struct databin *db, uint32_t id)
{
	return !db->encrypted || databin_game_plain_id(db->game, id);
}

long databin_size_index(const struct databin *db, uint32_t id)
{
	uint32_t lo = 0, hi = db->nsizes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (db->sizes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < db->nsizes && db->sizes[lo].id == id ? (long)lo : -1;
}

uint64_t databin_entry_size(const struct databin *db, uint32_t id)
{
	long i = databin_size_index(db, id);
	if (i >= 0)
		return db->sizes[i].size;
	return (uint64_t)databin_entry_blocks(db, id) * DATABIN_BLOCK;
}

static size_t without_trailing_zeros(const uint8_t *p, size_t len)
{
	while (len && !p[len - 1])
		len--;
	return len;
}

/* Blocks that len bytes need; an entry has one at least. */
static size_t blocks_for(size_t len)
{
	return len ? (len - 1) / DATABIN_BLOCK + 1 : 1;
}

size_t databin_padded_len(const uint8_t *old, size_t old_len, const uint8_t *bytes,
			  size_t len)
{
	size_t old_blocks = old_len / DATABIN_BLOCK;
	size_t needed = blocks_for(without_trailing_zeros(old, old_len));
	size_t spare = old_blocks > needed ? old_blocks - needed : 0;
	return (blocks_for(without_trailing_zeros(bytes, len)) + spare) * DATABIN_BLOCK;
}

enum mh_err databin_repad(const uint8_t *old, size_t old_len, uint8_t **bytes,
			  size_t *len, struct mh_diag *d)
{
	size_t want = databin_padded_len(old, old_len, *bytes, *len);
	if (want > *len) {
		uint8_t *p = realloc(*bytes, want);
		if (!p)
			return mh_fail(d, MH_ENOMEM, 0, "an entry of %zu bytes", want);
		memset(p + *len, 0, want - *len);
		*bytes = p;
	}
	*len = want;
	return MH_OK;
}

/* Whether {id, size} is accepted as the pair after `prev_id` (-1 for the
 * first): ids ascend and the size falls in the entry's last block. */
static bool pair_valid(const uint32_t *start, uint32_t count, int64_t prev_id,
		       uint32_t id, uint32_t size)
{
	if ((int64_t)id <= prev_id || id >= count)
		return false;
	int64_t blocks = (int64_t)start[id + 1] - start[id];
	return (blocks - 1) * DATABIN_BLOCK < size &&
	       (int64_t)size <= blocks * DATABIN_BLOCK;
}

void databin_free(struct databin *db)
{
	if (!db)
		return;
	free(db->start);
	free(db->sizes);
	free(db->fill);
	memset(db, 0, sizeof *db);
}

/* Whether the words after a start list of `count` entries go on as more of
 * it, as in a file cut short at a block where an entry starts: the list
 * ends at the file's block count but the words after it ascend on, at
 * least one past it, and are followed by a valid size pair for the longer
 * list or by zeros to the TOC's end.  (A whole TOC goes on with its size
 * table, whose ids are below the block count, or with its fill: a fill
 * that ascends to the TOC's end, such as 0xff bytes, is not taken for a
 * start list.)  If so, *listed and *listed_blocks are the entries and
 * blocks the TOC was written for. */
static bool runs_past_end(const uint8_t *toc, size_t toc_len, uint32_t count,
			  uint32_t *listed, uint32_t *listed_blocks)
{
	size_t words = toc_len / 4, j = (size_t)count + 1;
	uint32_t total = le32(toc + 4 * (size_t)count), last = total;
	for (; j < words && le32(toc + 4 * j) >= last; j++)
		last = le32(toc + 4 * j);
	if (last == total || j == words)
		return false;
	/* The longer list: words 0 .. j-1, so j-1 entries. */
	bool whole = j + 2 <= words;
	if (whole) {
		uint32_t id = le32(toc + 4 * j), size = le32(toc + 4 * j + 4);
		int64_t blocks = id < j - 1 ? (int64_t)le32(toc + 4 * ((size_t)id + 1)) -
						      le32(toc + 4 * (size_t)id) : -1;
		whole = blocks >= 0 && (blocks - 1) * DATABIN_BLOCK < size &&
			(int64_t)size <= blocks * DATABIN_BLOCK;
	}
	for (size_t i = 4 * j; !whole && i < toc_len && toc[i] == 0; i++)
		whole = i + 1 == toc_len;
	if (!whole)
		return false;
	*listed = (uint32_t)(j - 1);
	*listed_blocks = last;
	return true;
}

/* Scans the start list of a plain TOC; fills db->count and db->start. */
static enum mh_err decode_starts(const uint8_t *toc, size_t toc_len,
				 uint32_t total, struct databin *db,
				 struct mh_diag *d)
{
	uint32_t count = 0, prev = 0;

	for (size_t off = 0;; off += 4, count++) {
		if (off + 4 > toc_len)
			return mh_fail(d, MH_ECORRUPT, off,
				       "start list runs past the TOC's %zu bytes "
				       "without reaching the archive's %u blocks",
				       toc_len, total);
		uint32_t w = le32(toc + off);
		if (w < prev)
			return mh_fail(d, MH_ECORRUPT, off,
				       "start[%u] = %u is below start[%u] = %u: "
				       "the start list must ascend",
				       count, w, count - 1, prev);
		if (w > total)
			return mh_fail(d, MH_ECORRUPT, off,
				       "start[%u] = %u is past the archive's "
				       "%u blocks", count, w, total);
		if (w == total)
			break;
		prev = w;
	}
	if (count == 0)
		return mh_fail(d, MH_ECORRUPT, 0, "the archive holds no entries");
	db->start = malloc(((size_t)count + 1) * sizeof *db->start);
	if (!db->start)
		return mh_fail(d, MH_ENOMEM, 0, "start list of %u entries", count);
	for (uint32_t i = 0; i <= count; i++)
		db->start[i] = le32(toc + 4 * (size_t)i);
	db->count = count;
	return MH_OK;
}

/* An archive's size must be whole blocks. */
static enum mh_err not_whole_blocks(uint64_t file_size, struct mh_diag *d)
{
	return mh_fail(d, MH_ECORRUPT, file_size,
		       "archive size %llu is not a whole number of %u-byte blocks",
		       (unsigned long long)file_size, DATABIN_BLOCK);
}

enum mh_err databin_decode(const uint8_t *stored, size_t len, uint64_t file_size,
			   bool encrypted, struct databin *db, struct mh_diag *d)
{
	memset(db, 0, sizeof *db);
	if (file_size % DATABIN_BLOCK)
		return not_whole_blocks(file_size, d);
	if (len < 4)
		return mh_fail(d, MH_ETRUNC, 0, "TOC shorter than one word");

	uint64_t total = file_size / DATABIN_BLOCK;
	uint8_t w0[4];
	memcpy(w0, stored, 4);
	if (encrypted)
		cipher_decrypt(0, 0, w0, 4);
	uint32_t toc_blocks = le32(w0);
	if (toc_blocks == 0 || toc_blocks > total || total > UINT32_MAX)
		return mh_fail(d, MH_ECORRUPT, 0,
			       "start[0] = %u blocks does not fit an archive of "
			       "%llu blocks", toc_blocks, (unsigned long long)total);
	if (toc_blocks > DATABIN_MAX_TOC_BLOCKS)
		return mh_fail(d, MH_ECORRUPT, 0,
			       "start[0] = %u: a TOC of more than %u blocks is "
			       "not a DATA.BIN", toc_blocks, DATABIN_MAX_TOC_BLOCKS);
	size_t toc_len = (size_t)toc_blocks * DATABIN_BLOCK;
	if (len < toc_len)
		return mh_fail(d, MH_ETRUNC, len,
			       "TOC of %u blocks needs %zu bytes, have %zu",
			       toc_blocks, toc_len, len);

	uint8_t *toc = malloc(toc_len);
	if (!toc)
		return mh_fail(d, MH_ENOMEM, 0, "TOC of %zu bytes", toc_len);
	memcpy(toc, stored, toc_len);
	if (encrypted)
		cipher_decrypt(0, 0, toc, toc_len);

	enum mh_err err = decode_starts(toc, toc_len, (uint32_t)total, db, d);
	if (err)
		goto fail;
	uint32_t listed, listed_blocks;
	if (runs_past_end(toc, toc_len, db->count, &listed, &listed_blocks)) {
		err = mh_fail(d, MH_ETRUNC, 4 * (uint64_t)db->count,
			      "entry %u (file_%05u) starts at block %u, where the file "
			      "ends, but the TOC lists %u entries to block %u: the file "
			      "is cut short", db->count, db->count - 1, (uint32_t)total,
			      listed, listed_blocks);
		goto fail;
	}

	size_t pos = ((size_t)db->count + 1) * 4;
	size_t cap = (toc_len - pos) / 8;
	db->sizes = malloc((cap ? cap : 1) * sizeof *db->sizes);
	if (!db->sizes) {
		err = mh_fail(d, MH_ENOMEM, pos, "size table");
		goto fail;
	}
	int64_t prev = -1;
	for (; pos + 8 <= toc_len; pos += 8) {
		uint32_t id = le32(toc + pos), size = le32(toc + pos + 4);
		if (!pair_valid(db->start, db->count, prev, id, size))
			break;
		db->sizes[db->nsizes++] = (struct databin_size){id, size};
		prev = id;
	}
	db->fill_len = toc_len - pos;
	db->fill = malloc(db->fill_len ? db->fill_len : 1);
	if (!db->fill) {
		err = mh_fail(d, MH_ENOMEM, pos, "TOC fill");
		goto fail;
	}
	memcpy(db->fill, toc + pos, db->fill_len);
	db->encrypted = encrypted;
	free(toc);
	return MH_OK;
fail:
	free(toc);
	databin_free(db);
	return err;
}

enum mh_err databin_open(databin_read_fn read, void *ctx, uint64_t file_size,
			 struct databin *db, struct mh_diag *d)
{
	struct mh_diag tried[2] = {0};
	uint8_t head[4];

	memset(db, 0, sizeof *db);
	if (file_size % DATABIN_BLOCK)
		return not_whole_blocks(file_size, d);
	if (file_size < DATABIN_BLOCK)
		return mh_fail(d, MH_ETRUNC, file_size,
			       "%llu bytes is less than one %u-byte block",
			       (unsigned long long)file_size, DATABIN_BLOCK);
	if (read(ctx, 0, head, sizeof head))
		return mh_fail(d, MH_EIO, 0, "cannot read the TOC");

	for (int encrypted = 0; encrypted < 2; encrypted++) {
		uint8_t w[4];
		memcpy(w, head, 4);
		if (encrypted)
			cipher_decrypt(0, 0, w, 4);
		uint32_t toc_blocks = le32(w);
		if (toc_blocks == 0 || toc_blocks > DATABIN_MAX_TOC_BLOCKS ||
		    (uint64_t)toc_blocks * DATABIN_BLOCK > file_size) {
			mh_fail(&tried[encrypted], MH_ECORRUPT, 0,
				"start[0] = %u blocks is not a plausible TOC "
				"length", toc_blocks);
			continue;
		}
		size_t toc_len = (size_t)toc_blocks * DATABIN_BLOCK;
		uint8_t *toc = malloc(toc_len);
		if (!toc)
			return mh_fail(d, MH_ENOMEM, 0, "TOC of %zu bytes", toc_len);
		if (read(ctx, 0, toc, toc_len)) {
			free(toc);
			return mh_fail(d, MH_EIO, 0, "cannot read the TOC");
		}
		enum mh_err err = databin_decode(toc, toc_len, file_size,
						 encrypted, db, &tried[encrypted]);
		free(toc);
		if (err == MH_OK)
			return MH_OK;
		if (err == MH_ENOMEM)
			return mh_fail(d, err, 0, "%s", tried[encrypted].msg);
	}
	/* A reading whose start list runs past the file's end is a DATA.BIN
	 * cut short (the other reading is noise): say that alone. */
	for (int encrypted = 0; encrypted < 2; encrypted++)
		if (tried[encrypted].code == MH_ETRUNC)
			return mh_fail(d, MH_ETRUNC, tried[encrypted].offset,
				       "the table of contents runs past the end of "
				       "the file: %s", tried[encrypted].msg);
	return mh_fail(d, MH_ECORRUPT, tried[0].offset,
		       "not a DATA.BIN: read plain, %s (at byte %llu); "
		       "decrypted, %s (at byte %llu)",
		       tried[0].msg, (unsigned long long)tried[0].offset,
		       tried[1].msg, (unsigned long long)tried[1].offset);
}

static unsigned count_zeros(const uint8_t *p, size_t n)
{
	unsigned z = 0;
	for (size_t i = 0; i < n; i++)
		z += p[i] == 0;
	return z;
}

/* +1 if the entry's head reads as plain data (more zero bytes than when
 * decrypted: game data is structured, cipher output is not), -1 if it
 * reads as encrypted, 0 if it cannot tell. */
static int plain_evidence(const struct databin *db, uint32_t id,
			  databin_read_fn read, void *ctx)
{
	uint8_t raw[64], dec[64];
	size_t n = sizeof raw;
	uint64_t size = databin_entry_size(db, id);
	if (size < n)
		n = (size_t)size;
	if (n == 0 || read(ctx, databin_entry_offset(db, id), raw, n))
		return 0;
	memcpy(dec, raw, n);
	cipher_decrypt(db->start[id], 0, dec, n);
	unsigned zr = count_zeros(raw, n), zd = count_zeros(dec, n);
	return (zr > zd) - (zr < zd);
}

/* What the games store plain in an encrypted archive begins with: the
 * PSP loads modules and plays movies and sounds as they are on the disc. */
static const struct {
	char magic[5];
	const char *what;
} PLAIN_MAGICS[] = {
	{"~PSP", "a PSP module (~PSP)"},
	{"\x7f" "ELF", "a PSP module (ELF)"},
	{"PSMF", "a PSMF movie"},
	{"RIFF", "a RIFF sound"},
};

const char *databin_plain_magic(const uint8_t *head, size_t len)
{
	for (size_t i = 0; len >= 4 && i < sizeof PLAIN_MAGICS / sizeof *PLAIN_MAGICS; i++)
		if (!memcmp(head, PLAIN_MAGICS[i].magic, 4))
			return PLAIN_MAGICS[i].what;
	return NULL;
}

/* Whether another game than `game` lists id as stored plain. */
static bool shared_plain_id(enum databin_game game, uint32_t id)
{
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++)
		if (g != (int)game && databin_game_plain_id((enum databin_game)g, id))
			return true;
	return false;
}

/* Entries on `game`'s plain list that begin, as stored, with a magic of
 * PLAIN_MAGICS; reported in *id and *what, the first no other game lists
 * (the best witness), else the first. */
static unsigned magic_hits(const struct databin *db, enum databin_game game,
			   databin_read_fn read, void *ctx, uint32_t *id,
			   const char **what)
{
	unsigned hits = 0;
	for (size_t r = 0; r < GAMES[game].nplain; r++)
		for (uint32_t i = GAMES[game].plain[r].first;
		     i <= GAMES[game].plain[r].last && i < db->count; i++) {
			uint8_t head[4];
			const char *w;
			if (databin_entry_size(db, i) < sizeof head ||
			    read(ctx, databin_entry_offset(db, i), head, sizeof head) ||
			    !(w = databin_plain_magic(head, sizeof head)))
				continue;
			if (!hits++ || (shared_plain_id(game, *id) && !shared_plain_id(game, i))) {
				*id = i;
				*what = w;
			}
		}
	return hits;
}

void databin_tell_game(const struct databin *db, databin_read_fn read, void *ctx,
		       struct databin_game_clue *clue)
{
	*clue = (struct databin_game_clue){GAME_UNKNOWN, CLUE_NONE, 0, NULL};

	/* A magic on a game's list is all but proof; the game with the most
	 * wins, a tie (the lists share ids) decides nothing. */
	unsigned best_hits = 0;
	bool tie = false;
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++) {
		uint32_t id = 0;
		const char *what = NULL;
		unsigned hits = magic_hits(db, (enum databin_game)g, read, ctx, &id, &what);
		if (hits && hits == best_hits)
			tie = true;
		if (hits > best_hits) {
			*clue = (struct databin_game_clue){(enum databin_game)g, CLUE_MAGIC,
							   id, what};
			best_hits = hits;
			tie = false;
		}
	}
	if (best_hits && !tie)
		return;
	*clue = (struct databin_game_clue){GAME_UNKNOWN, CLUE_NONE, 0, NULL};

	if (db->encrypted) {
		int best_score = 0;
		for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++) {
			int score = 0, ids = 0;
			for (size_t r = 0; r < GAMES[g].nplain; r++)
				for (uint32_t id = GAMES[g].plain[r].first;
				     id <= GAMES[g].plain[r].last && id < db->count; id++) {
					score += plain_evidence(db, id, read, ctx);
					ids++;
				}
			/* A majority of the list must read plain. */
			if (ids && 2 * score > ids && score > best_score) {
				clue->game = (enum databin_game)g;
				clue->how = CLUE_STATISTICS;
				best_score = score;
			}
		}
		return;
	}
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++)
		if (GAMES[g].entries == db->count) {
			clue->game = (enum databin_game)g;
			clue->how = CLUE_COUNT;
		}
}

enum databin_game databin_guess_game(struct databin *db, databin_read_fn read,
				     void *ctx)
{
	struct databin_game_clue clue;
	databin_tell_game(db, read, ctx, &clue);
	db->game = clue.game;
	return clue.game;
}

enum mh_err databin_encode(const struct databin *db, uint8_t **out, size_t *len,
			   struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (db->count == 0)
		return mh_fail(d, MH_ERANGE, 0, "no entries");
	uint32_t toc_blocks = db->start[0];
	size_t toc_len = (size_t)toc_blocks * DATABIN_BLOCK;
	size_t used = ((size_t)db->count + 1) * 4 + (size_t)db->nsizes * 8;
	if (toc_blocks == 0 || toc_blocks > DATABIN_MAX_TOC_BLOCKS ||
	    used + db->fill_len != toc_len)
		return mh_fail(d, MH_ERANGE, 0,
			       "start list, %u size pairs and %zu fill bytes "
			       "do not make the TOC's %u blocks",
			       db->nsizes, db->fill_len, toc_blocks);
	for (uint32_t i = 0; i < db->count; i++) {
		if (db->start[i] == db->start[db->count])
			return mh_fail(d, MH_ERANGE, 4 * (uint64_t)i,
				       "start[%u] = %u reaches the archive's end "
				       "before start[%u]", i, db->start[i], db->count);
		if (db->start[i + 1] < db->start[i])
			return mh_fail(d, MH_ERANGE, 4 * ((uint64_t)i + 1),
				       "start[%u] = %u is below start[%u] = %u: "
				       "the start list must ascend", i + 1,
				       db->start[i + 1], i, db->start[i]);
	}
	int64_t prev = -1;
	for (uint32_t i = 0; i < db->nsizes; i++) {
		const struct databin_size *s = &db->sizes[i];
		if (!pair_valid(db->start, db->count, prev, s->id, s->size))
			return mh_fail(d, MH_ERANGE, ((uint64_t)db->count + 1) * 4 + 8 * (uint64_t)i,
				       "size pair %u {id %u, size %u} is out of "
				       "order or outside its entry's last block",
				       i, s->id, s->size);
		prev = s->id;
	}
	if (db->fill_len >= 8 &&
	    pair_valid(db->start, db->count, prev, le32(db->fill), le32(db->fill + 4)))
		return mh_fail(d, MH_ERANGE, used,
			       "the fill would read back as one more size pair");

	uint8_t *toc = malloc(toc_len);
	if (!toc)
		return mh_fail(d, MH_ENOMEM, 0, "TOC of %zu bytes", toc_len);
	for (uint32_t i = 0; i <= db->count; i++)
		put_le32(toc + 4 * (size_t)i, db->start[i]);
	uint8_t *p = toc + ((size_t)db->count + 1) * 4;
	for (uint32_t i = 0; i < db->nsizes; i++, p += 8) {
		put_le32(p, db->sizes[i].id);
		put_le32(p + 4, db->sizes[i].size);
	}
	memcpy(p, db->fill, db->fill_len);
	uint32_t listed, listed_blocks;
	if (runs_past_end(toc, toc_len, db->count, &listed, &listed_blocks)) {
		free(toc);
		return mh_fail(d, MH_ERANGE, ((uint64_t)db->count + 1) * 4,
			       "the words after the start list would read back as "
			       "more of it (%u entries to block %u): a cut file",
			       listed, listed_blocks);
	}
	if (db->encrypted)
		cipher_encrypt(0, 0, toc, toc_len);
	*out = toc;
	*len = toc_len;
	return MH_OK;
}
