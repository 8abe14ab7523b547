/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PAC decoder and the sniffers (codecs/pac, codecs/kind).
 *
 * Every input goes through pac_sniff and kind_sniff (each given only the
 * head it is promised to need, in a buffer of exactly that size, so a
 * sanitizer sees any read past it) and through pac_decode.  What decodes
 * must sniff as a PAC and re-encode byte for byte; any violation
 * abort()s.  Built with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with
 * tests/fuzz/fuzz_driver.c.
 * Its inputs are whole PACs, larger than a text:
 * fuzz.sh flags: -max_len=8192
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "pac.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A heap copy of data's first n bytes (at least one byte allocated). */
static uint8_t *head_copy(const uint8_t *data, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		abort();
	memcpy(p, data, n);
	return p;
}

static void check_roundtrip(const uint8_t *data, size_t size, const struct pac *pac)
{
	if (pac->count == 0 || pac->count > PAC_MAX_ENTRIES || pac->size != size ||
	    pac->tail > size)
		abort();
	if (pac->align != 16 && pac->align != 8 && pac->align != 4)
		abort();
	struct pac_blob *b = calloc(pac->count, sizeof *b);
	if (!b)
		abort();
	uint64_t end = 4 + 8 * (uint64_t)pac->count;
	for (uint32_t i = 0; i < pac->count; i++) {
		const struct pac_entry *e = &pac->entries[i];
		if ((e->offset == 0) != (e->size == 0))
			abort();
		if (e->size) {
			if (e->offset < end || (uint64_t)e->offset + e->size > pac->tail)
				abort();
			end = (uint64_t)e->offset + e->size;
		}
		b[i] = (struct pac_blob){data + e->offset, e->size};
	}
	if (end != pac->tail)
		abort();

	uint8_t *out = NULL;
	size_t len = 0;
	struct mh_diag d = {0};
	if (pac_encode(b, pac->count, pac->align, data + pac->tail,
		       size - (size_t)pac->tail, &out, &len, &d) != MH_OK)
		abort();
	if (len != size || memcmp(out, data, size))
		abort();
	free(out);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < PAC_HEAD_MAX ? size : PAC_HEAD_MAX;
	uint8_t *head = head_copy(data, n);
	int sniff = pac_sniff(head, n, size);
	free(head);
	if (sniff != 0 && sniff != 100)
		abort();
	/* The promised head suffices: more bytes change nothing. */
	if (pac_sniff(data, size, size) != sniff)
		abort();

	n = size < KIND_HEAD_MAX ? size : KIND_HEAD_MAX;
	head = head_copy(data, n);
	enum kind k = kind_sniff(head, n, size);
	free(head);
	if ((unsigned)k >= KIND_COUNT || !kind_name(k) || !kind_ext(k))
		abort();

	struct pac pac;
	struct mh_diag d = {0};
	enum mh_err err = pac_decode(data, size, &pac, &d);
	if (err == MH_OK) {
		/* A PAC's count word (1..256) is no magic: it sniffs as a PAC. */
		if (sniff != 100 || k != KIND_PAC)
			abort();
		check_roundtrip(data, size, &pac);
	} else {
		if (d.code != err || d.msg[0] == '\0' || pac.entries)
			abort();
	}
	pac_free(&pac);
	return 0;
}
