/* SPDX-License-Identifier: MIT */
/* Fuzz target: the DATA.BIN TOC decoder (codecs/databin).
 *
 * The input is an archive's first bytes.  It is decoded both as a plain
 * and as an encrypted TOC, with the archive's size taken as the input's
 * size as is, rounded down and rounded up to whole blocks; and it is
 * opened through databin_open with a reader over the input.  Whatever
 * decodes must re-encode to exactly the input's TOC bytes, and the model
 * must satisfy the invariants the rest of the driver relies on; any
 * violation abort()s.  Built with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh)
 * or with tests/fuzz/fuzz_driver.c.
 * Its inputs are whole archive heads, larger than a text:
 * fuzz.sh flags: -max_len=8192
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "databin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *data;
	size_t size;
};

static int read_input(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct input *in = ctx;
	if (off > in->size || len > in->size - off)
		return -1;
	memcpy(buf, in->data + off, len);
	return 0;
}

/* A failed call must say what and where, and leave an empty model. */
static void check_failure(enum mh_err err, const struct mh_diag *d,
			  const struct databin *db)
{
	if (d->code != err || d->msg[0] == '\0')
		abort();
	if (db->start || db->sizes || db->fill || db->count || db->nsizes)
		abort();
}

/* The model's invariants, then the round trip: encode must give back
 * exactly data[0 .. start[0] blocks). */
static void check_model(const struct databin *db, const uint8_t *data,
			size_t size, uint64_t file_size, bool encrypted)
{
	if (db->count == 0 || db->encrypted != encrypted)
		abort();
	if ((uint64_t)db->start[db->count] * DATABIN_BLOCK != file_size)
		abort();
	for (uint32_t i = 0; i < db->count; i++) {
		if (db->start[i + 1] < db->start[i])
			abort();
		if (databin_entry_offset(db, i) + databin_entry_size(db, i) > file_size)
			abort();
	}
	for (uint32_t i = 0; i < db->nsizes; i++) {
		if (databin_size_index(db, db->sizes[i].id) != (long)i)
			abort();
		if (i && db->sizes[i].id <= db->sizes[i - 1].id)
			abort();
	}
	size_t toc_len = (size_t)db->start[0] * DATABIN_BLOCK;
	if (toc_len > size ||
	    ((size_t)db->count + 1) * 4 + (size_t)db->nsizes * 8 + db->fill_len != toc_len)
		abort();

	uint8_t *out = NULL;
	size_t len = 0;
	struct mh_diag d = {0};
	if (databin_encode(db, &out, &len, &d) != MH_OK)
		abort();
	if (len != toc_len || memcmp(out, data, len))
		abort();
	free(out);
}

static void decode_one(const uint8_t *data, size_t size, uint64_t file_size,
		       bool encrypted)
{
	struct databin db;
	struct mh_diag d = {0};
	enum mh_err err = databin_decode(data, size, file_size, encrypted, &db, &d);
	if (err == MH_OK)
		check_model(&db, data, size, file_size, encrypted);
	else
		check_failure(err, &d, &db);
	databin_free(&db);
}

static void open_one(const uint8_t *data, size_t size, uint64_t file_size)
{
	struct input in = {data, size};
	struct databin db;
	struct mh_diag d = {0};
	enum mh_err err = databin_open(read_input, &in, file_size, &db, &d);
	if (err != MH_OK) {
		check_failure(err, &d, &db);
		return;
	}
	check_model(&db, data, size, file_size, db.encrypted);
	enum databin_game g = databin_guess_game(&db, read_input, &in);
	if (g >= GAME_COUNT || db.game != g)
		abort();
	for (uint32_t i = 0; i < db.count && i < 128; i++)
		(void)databin_entry_plain(&db, i);
	databin_free(&db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t B = DATABIN_BLOCK;
	const uint64_t sizes[] = {size, size / B * B, (size + B - 1) / B * B};

	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		if (s && sizes[s] == sizes[s - 1])
			continue;
		decode_one(data, size, sizes[s], false);
		decode_one(data, size, sizes[s], true);
		/* databin_open reads only what the file holds. */
		if (sizes[s] <= size)
			open_one(data, size, sizes[s]);
	}
	return 0;
}
