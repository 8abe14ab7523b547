/* SPDX-License-Identifier: MIT */
#include "loose.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"

void loose_name(enum loose_layout layout, uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, layout == LOOSE_FUCOMPLETE ? "%04u" : "%04X", (unsigned)id);
}

bool loose_parse_name(enum loose_layout layout, const char *name, uint32_t *id)
{
	const char *digits = layout == LOOSE_FUCOMPLETE ? "0123456789" : "0123456789ABCDEF";
	size_t n = strlen(name);
	if (n < 4 || n > 8 || strspn(name, digits) != n)
		return false;
	uint32_t v = 0;
	for (const char *p = name; *p; p++)
		v = v * (layout == LOOSE_FUCOMPLETE ? 10u : 16u) +
		    (uint32_t)(strchr(digits, *p) - digits);
	/* Only the one spelling loose_name gives: no extra leading zeros. */
	char again[16];
	loose_name(layout, v, again, sizeof again);
	if (strcmp(again, name))
		return false;
	*id = v;
	return true;
}

size_t loose_header_len(enum loose_layout layout)
{
	return layout == LOOSE_FUCOMPLETE ? 4 : 0;
}

bool loose_header(enum loose_layout layout, uint64_t entry_len, uint8_t *out)
{
	if (layout != LOOSE_FUCOMPLETE)
		return true;
	if (entry_len > UINT32_MAX)
		return false;
	put_le32(out, (uint32_t)entry_len);
	return true;
}

size_t loose_bitmap_len(uint32_t count)
{
	return ((size_t)count + 7) / 8;
}

void loose_bitmap_mark(uint8_t *bitmap, uint32_t id)
{
	bitmap[id / 8] |= (uint8_t)(1u << (id % 8));
}
