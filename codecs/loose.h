/* SPDX-License-Identifier: MIT */
/* Runtime replacement files: the loose-file layouts the games' mod
 * loaders read in place of DATA.BIN entries (mhfu-archive(5) "RUNTIME
 * REPLACEMENT FILES").
 *
 *   FUComplete (MHFU, MHP2G): NATIVEPSP/NNNN, NNNN the engine id in four
 *   decimal digits, holding u32 size then the entry's bytes; and
 *   NATIVEPSP/FILE.BIN, a bitmap of the replaced ids: bit id%8 of byte
 *   id/8, one bit per entry of the archive.
 *   MHP3rd's loader: P3rdML/files/XXXX, XXXX the engine id in four
 *   upper-case hexadecimal digits, holding the entry's bytes as they are.
 *
 * Names and headers only: the bytes are the caller's. */
#ifndef MH_LOOSE_H
#define MH_LOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum loose_layout { LOOSE_FUCOMPLETE, LOOSE_P3RDML };

#define LOOSE_BITMAP_NAME "FILE.BIN"

/* The file name of entry `id` (len >= 16). */
void loose_name(enum loose_layout layout, uint32_t id, char *buf, size_t len);

/* The entry a file name names, exactly as loose_name writes it; false
 * for any other name. */
bool loose_parse_name(enum loose_layout layout, const char *name, uint32_t *id);

/* Bytes before the entry's in its file: 4 (its size) or 0. */
size_t loose_header_len(enum loose_layout layout);

/* Writes the header of a file holding an entry of entry_len bytes into
 * out (loose_header_len bytes); false when the size does not fit. */
bool loose_header(enum loose_layout layout, uint64_t entry_len, uint8_t *out);

/* FILE.BIN of an archive of `count` entries: its length, and marking
 * id in it (id < count). */
size_t loose_bitmap_len(uint32_t count);
void loose_bitmap_mark(uint8_t *bitmap, uint32_t id);

#endif
