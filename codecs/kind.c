/* SPDX-License-Identifier: MIT */
#include "kind.h"

#include <string.h>

#include "anim.h"
#include "skeleton.h"

static const struct {
	const char *name;
	const char *ext;
	const char *magic; /* NULL: not told by a magic */
	size_t magic_len;
} KINDS[KIND_COUNT] = {
	[KIND_DATA] = {"data", ".bin", NULL, 0},
	[KIND_PAC] = {"pac", ".pac", NULL, 0},
	[KIND_PMO] = {"pmo", ".pmo", "pmo\0", 4},
	[KIND_TMH] = {"tmh", ".tmh", ".TMH0.14", 8},
	[KIND_HITS] = {"hits", ".hit", "HITS", 4},
	[KIND_OVL] = {"ovl", ".ovl", "MWo3", 4},
	[KIND_DBST] = {"dbst", ".dbst", "dbsT", 4},
	[KIND_HEAD] = {"head", ".head", "Head ", 5},
	[KIND_SKELETON] = {"skeleton", ".skeleton", NULL, 0},
	[KIND_ANIM] = {"anim", ".anim", NULL, 0},
};

enum kind kind_sniff(const uint8_t *head, size_t len, uint64_t size)
{
	for (int k = 0; k < KIND_COUNT; k++)
		if (KINDS[k].magic && len >= KINDS[k].magic_len &&
		    !memcmp(head, KINDS[k].magic, KINDS[k].magic_len))
			return (enum kind)k;
	/* A skeleton's magic is checked first; a PAC's table is a tighter
	 * test than a pack's header, which comes last. */
	if (skeleton_sniff(head, len, size))
		return KIND_SKELETON;
	if (pac_sniff(head, len, size))
		return KIND_PAC;
	if (anim_sniff(head, len, size))
		return KIND_ANIM;
	return KIND_DATA;
}

enum kind kind_of(const uint8_t *buf, size_t len)
{
	return kind_sniff(buf, len < KIND_HEAD_MAX ? len : KIND_HEAD_MAX, len);
}

const char *kind_name(enum kind k)
{
	return k < KIND_COUNT ? KINDS[k].name : KINDS[KIND_DATA].name;
}

const char *kind_ext(enum kind k)
{
	return k < KIND_COUNT ? KINDS[k].ext : KINDS[KIND_DATA].ext;
}
