/* SPDX-License-Identifier: MIT */
/* The unit tests' common helpers (cmocka): diagnostics asserted field by
 * field, little-endian fields written and read, files and archives in
 * memory.  The C counterpart of tests/mount/lib.sh; the PRNG is tests/rng.h.
 *
 * Every helper is static inline, so a test includes what it uses and
 * nothing warns about the rest. */
#ifndef MH_TESTLIB_H
#define MH_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "diag.h"

/* ---- diagnostics -------------------------------------------------------- */

/* A call returned `got`; it must have failed with `code` at byte `offset`
 * of its input, recorded in d with a message. */
static inline void assert_diag(const struct mh_diag *d, enum mh_err got,
			       enum mh_err code, uint64_t offset)
{
	if (got != code || d->code != code || d->offset != offset)
		fail_msg("got %s (diag %s) at byte %llu, want %s at byte %llu "
			 "(msg: %s)", mh_strerror(got), mh_strerror(d->code),
			 (unsigned long long)d->offset, mh_strerror(code),
			 (unsigned long long)offset, d->msg);
	if (!d->msg[0])
		fail_msg("%s at byte %llu has no message", mh_strerror(code),
			 (unsigned long long)offset);
}

/* The same for a text: failed with `code` at line:col. */
static inline void assert_text_diag(const struct mh_diag *d, enum mh_err got,
				    enum mh_err code, unsigned line,
				    unsigned col)
{
	if (got != code || d->code != code || d->line != line || d->col != col)
		fail_msg("got %s (diag %s) at %u:%u, want %s at %u:%u "
			 "(msg: %s)", mh_strerror(got), mh_strerror(d->code),
			 d->line, d->col, mh_strerror(code), line, col, d->msg);
	if (!d->msg[0])
		fail_msg("%s at %u:%u has no message", mh_strerror(code), line,
			 col);
}

/* The message says `words` (NULL: anything). */
static inline void assert_diag_says(const struct mh_diag *d, const char *words)
{
	if (words && !strstr(d->msg, words))
		fail_msg("message \"%s\" does not say \"%s\"", d->msg, words);
}

/* ---- little-endian fields ------------------------------------------------
 * The tests write and read the formats' fields with their own helpers,
 * not codecs/bytes.h, so a byte-order slip there cannot hide on both
 * sides of a test. */

static inline void store_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
	store_le16(p, (uint16_t)v);
	store_le16(p + 2, (uint16_t)(v >> 16));
}

static inline uint16_t load_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)load_le16(p) | (uint32_t)load_le16(p + 2) << 16;
}

/* ---- memory ------------------------------------------------------------ */

/* A whole file in memory: p is malloc'ed, len bytes. */
struct file_bytes {
	uint8_t *p;
	size_t len;
};

/* Reads the file at path into *f; false, saying why in why[whylen], when
 * it cannot (then *f is untouched). */
static inline bool read_whole_file(const char *path, struct file_bytes *f,
				   char *why, size_t whylen)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return false;
	}
	size_t cap = 1 << 20, len = 0;
	uint8_t *p = malloc(cap);
	for (;;) {
		if (!p) {
			fclose(fp);
			snprintf(why, whylen, "out of memory reading %s", path);
			return false;
		}
		len += fread(p + len, 1, cap - len, fp);
		if (len < cap)
			break;
		uint8_t *q = realloc(p, cap *= 2);
		if (!q)
			free(p);
		p = q;
	}
	bool err = ferror(fp);
	fclose(fp);
	if (err) {
		free(p);
		snprintf(why, whylen, "cannot read %s", path);
		return false;
	}
	f->p = p;
	f->len = len;
	return true;
}

/* An archive in memory, read through mem_archive_read (the shape of
 * databin's reader callback): `size` bytes of which the first `len` are
 * in buf; the rest reads as zeros, so a large archive need not be
 * allocated. */
struct mem_archive {
	const uint8_t *buf;
	size_t len;
	uint64_t size;
	unsigned reads; /* calls made */
	bool fail;      /* every read fails, as a reader's I/O error */
};

static inline struct mem_archive mem_archive_of(const uint8_t *buf, size_t len)
{
	return (struct mem_archive){buf, len, len, 0, false};
}

static inline int mem_archive_read(void *ctx, uint64_t off, void *out, size_t n)
{
	struct mem_archive *m = ctx;
	m->reads++;
	if (m->fail || off > m->size || n > m->size - off)
		return -1;
	size_t held = off < m->len ? m->len - (size_t)off : 0;
	if (held > n)
		held = n;
	if (held)
		memcpy(out, m->buf + off, held);
	memset((uint8_t *)out + held, 0, n - held);
	return 0;
}

#endif
