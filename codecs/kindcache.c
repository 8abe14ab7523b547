/* SPDX-License-Identifier: MIT */
#include "kindcache.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "kind.h"

static const uint8_t MAGIC[8] = {'M', 'H', 'F', 'U', 'K', 'I', 'N', 'D'};

#define KEY_FIELDS 11u

/* The key's fields in file order. */
static void key_fields(const struct kindcache_key *k, uint64_t f[KEY_FIELDS])
{
	const uint64_t v[KEY_FIELDS] = {
		k->dev, k->ino, k->size, (uint64_t)k->mtime_sec, (uint64_t)k->mtime_nsec,
		(uint64_t)k->ctime_sec, (uint64_t)k->ctime_nsec, k->toc, k->driver, k->game,
		k->encrypted};
	memcpy(f, v, sizeof v);
}

uint64_t kindcache_toc_hash(const struct databin *db)
{
	uint8_t word[8];
	uint64_t h = FNV1A64_INIT;
	put_le32(word, db->count);
	put_le32(word + 4, db->nsizes);
	h = fnv1a64(h, word, 8);
	for (uint32_t i = 0; db->start && i <= db->count; i++) {
		put_le32(word, db->start[i]);
		h = fnv1a64(h, word, 4);
	}
	for (uint32_t i = 0; i < db->nsizes; i++) {
		put_le32(word, db->sizes[i].id);
		put_le32(word + 4, db->sizes[i].size);
		h = fnv1a64(h, word, 8);
	}
	return db->fill_len ? fnv1a64(h, db->fill, db->fill_len) : h;
}

bool kindcache_key_equal(const struct kindcache_key *a, const struct kindcache_key *b)
{
	uint64_t fa[KEY_FIELDS], fb[KEY_FIELDS];
	key_fields(a, fa);
	key_fields(b, fb);
	return !memcmp(fa, fb, sizeof fa);
}

static bool kind_ok(uint8_t k)
{
	return k < KIND_COUNT || k == KINDCACHE_UNKNOWN;
}

enum mh_err kindcache_encode(const struct kindcache_key *key, const uint8_t *kinds,
			     uint32_t count, uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (count > KINDCACHE_MAX_ENTRIES)
		return mh_fail(d, MH_ERANGE, 0, "%u entries, over %u", count,
			       KINDCACHE_MAX_ENTRIES);
	for (uint32_t i = 0; i < count; i++)
		if (!kind_ok(kinds[i]))
			return mh_fail(d, MH_ERANGE, 0, "entry %u: kind %u out of range", i,
				       kinds[i]);
	size_t n = KINDCACHE_HEAD + (size_t)count + KINDCACHE_TAIL;
	uint8_t *p = malloc(n);
	if (!p)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for the kinds file");
	uint64_t f[KEY_FIELDS];
	key_fields(key, f);
	memcpy(p, MAGIC, sizeof MAGIC);
	put_le32(p + 8, KINDCACHE_VERSION);
	put_le32(p + 12, count);
	for (unsigned i = 0; i < KEY_FIELDS; i++)
		put_le64(p + 16 + 8 * i, f[i]);
	if (count)
		memcpy(p + KINDCACHE_HEAD, kinds, count);
	put_le64(p + n - KINDCACHE_TAIL, fnv1a64(FNV1A64_INIT, p, n - KINDCACHE_TAIL));
	*out = p;
	*len = n;
	return MH_OK;
}

enum mh_err kindcache_decode(const uint8_t *buf, size_t len, struct kindcache_key *key,
			     uint8_t **kinds, uint32_t *count, struct mh_diag *d)
{
	*kinds = NULL;
	*count = 0;
	if (len < KINDCACHE_HEAD + KINDCACHE_TAIL)
		return mh_fail(d, MH_ETRUNC, len, "%zu bytes, shorter than a kinds file's %u",
			       len, KINDCACHE_HEAD + KINDCACHE_TAIL);
	if (memcmp(buf, MAGIC, sizeof MAGIC))
		return mh_fail(d, MH_EUNKNOWN, 0, "not a kinds file (no MHFUKIND magic)");
	if (le32(buf + 8) != KINDCACHE_VERSION)
		return mh_fail(d, MH_EUNKNOWN, 8, "version %u, not %u", le32(buf + 8),
			       KINDCACHE_VERSION);
	uint32_t n = le32(buf + 12);
	if (n > KINDCACHE_MAX_ENTRIES)
		return mh_fail(d, MH_ECORRUPT, 12, "%u entries, over %u", n,
			       KINDCACHE_MAX_ENTRIES);
	size_t want = KINDCACHE_HEAD + (size_t)n + KINDCACHE_TAIL;
	if (len != want)
		return mh_fail(d, len < want ? MH_ETRUNC : MH_ECORRUPT, len < want ? len : want,
			       "%zu bytes for %u entries, not %zu", len, n, want);
	if (le64(buf + len - KINDCACHE_TAIL) != fnv1a64(FNV1A64_INIT, buf, len - KINDCACHE_TAIL))
		return mh_fail(d, MH_ECORRUPT, len - KINDCACHE_TAIL, "checksum mismatch");
	for (uint32_t i = 0; i < n; i++)
		if (!kind_ok(buf[KINDCACHE_HEAD + i]))
			return mh_fail(d, MH_ECORRUPT, KINDCACHE_HEAD + i,
				       "entry %u: kind %u out of range", i, buf[KINDCACHE_HEAD + i]);
	uint8_t *k = NULL;
	if (n && !(k = malloc(n)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for %u kinds", n);
	if (n)
		memcpy(k, buf + KINDCACHE_HEAD, n);
	uint64_t f[KEY_FIELDS];
	for (unsigned i = 0; i < KEY_FIELDS; i++)
		f[i] = le64(buf + 16 + 8 * i);
	*key = (struct kindcache_key){
		.dev = f[0], .ino = f[1], .size = f[2], .mtime_sec = (int64_t)f[3],
		.mtime_nsec = (int64_t)f[4], .ctime_sec = (int64_t)f[5],
		.ctime_nsec = (int64_t)f[6], .toc = f[7], .driver = f[8], .game = f[9],
		.encrypted = f[10]};
	*kinds = k;
	*count = n;
	return MH_OK;
}
