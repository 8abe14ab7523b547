/* SPDX-License-Identifier: MIT */
/* Fuzz target: entry texts (codecs/entries) written over a pack.
 *
 * The input's first 8 bytes seed a small MHFU pack (tests/clipgen.h), its
 * 9th picks the entry (now and then one past the last, 199), and the rest
 * is written two ways:
 *  1. as the entry's text itself;
 *  2. as edits (3 bytes each: a position and a byte) to the text the
 *     entry prints, so the parser sees near-valid parts and clips.
 * Either way a text entries_parse refuses says where and why and leaves
 * no edit; one entries_apply refuses leaves the pack's bytes as they were
 * (all parts or none); one it takes encodes, decodes, and the entry's
 * text printed from the result writes back with every part unchanged and
 * the same bytes (so with no edits, the printed text writes back as it
 * was).  Any broken promise abort()s.  Built with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh)
 * or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clipgen.h"
#include "entries.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

static uint8_t *encode(const struct anim *a, size_t *len)
{
	uint8_t *out;
	check(anim_encode(a, &out, len, NULL) == MH_OK);
	return out;
}

static void decode(const uint8_t *bytes, size_t len, struct anim *a)
{
	check(anim_decode(bytes, len, CLIP_MHFU, a, NULL) == MH_OK);
}

/* The entry's printed text writes back over the pack in bytes changing
 * nothing. */
static void writes_back(const uint8_t *bytes, size_t len, uint32_t entry)
{
	struct anim a;
	decode(bytes, len, &a);
	size_t tlen;
	char *text = entries_print(&a, entry, "fuzz", NULL, &tlen);
	check(text != NULL);
	struct entries_edit e;
	check(entries_parse(text, tlen, entries_parts(&a), &e, NULL) == MH_OK);
	check(entries_apply(&a, entry, &e, NULL) == MH_OK);
	for (uint32_t k = 0; k < e.nparts; k++)
		check(e.parts[k].action == ENTRIES_UNCHANGED);
	entries_edit_free(&e);
	check(anim_compact(&a, NULL) == MH_OK);
	size_t n;
	uint8_t *again = encode(&a, &n);
	check(n == len && memcmp(again, bytes, len) == 0);
	free(again);
	free(text);
	anim_free(&a);
}

/* text written over entry `entry` of the pack in bytes. */
static void write_entry(const uint8_t *bytes, size_t len, uint32_t entry, const char *text,
			size_t tlen)
{
	struct anim a;
	decode(bytes, len, &a);
	struct entries_edit e;
	struct mh_diag d = {0};
	enum mh_err err = entries_parse(text, tlen, entries_parts(&a), &e, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(!e.nparts && !e.parts);
		anim_free(&a);
		return;
	}
	err = entries_apply(&a, entry, &e, &d);
	entries_edit_free(&e);
	size_t n;
	uint8_t *out;
	if (err) {
		check(d.code == err && d.msg[0]);
		out = encode(&a, &n); /* untouched */
		check(n == len && memcmp(out, bytes, len) == 0);
	} else {
		check(anim_compact(&a, NULL) == MH_OK);
		out = encode(&a, &n);
		if (entry < ENTRIES_MAX)
			writes_back(out, n, entry);
	}
	free(out);
	anim_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 9)
		return 0;
	uint64_t seed;
	memcpy(&seed, data, 8);
	struct rng r = {seed};
	struct anim a;
	gen_mhfu_pack(&r, &a, 1 + data[0] % 2, 4, 2);
	uint32_t entry = data[8] == 0xff ? ENTRIES_MAX - 1 + data[7] % 2u :
			 (data[8] & 7u) + (data[8] & 0x10 ? 100u : 0u);
	size_t len;
	uint8_t *bytes = encode(&a, &len);
	anim_free(&a);
	const uint8_t *rest = data + 9;
	size_t nrest = size - 9;

	write_entry(bytes, len, entry, (const char *)rest, nrest);
	if (entry < ENTRIES_MAX) {
		struct anim b;
		decode(bytes, len, &b);
		size_t tlen;
		char *text = entries_print(&b, entry, "fuzz", NULL, &tlen);
		check(text != NULL);
		gen_apply_edits((uint8_t *)text, tlen, rest, nrest);
		write_entry(bytes, len, entry, text, tlen);
		free(text);
		anim_free(&b);
	}
	free(bytes);
	return 0;
}
