/* SPDX-License-Identifier: MIT */
/* What an entry holds, told from its first bytes: this decides its file
 * extension and whether it also appears as a folder. */
#ifndef MH_KIND_H
#define MH_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "pac.h"

/* Bytes of an entry's head that always suffice for kind_sniff. */
#define KIND_HEAD_MAX PAC_HEAD_MAX

enum kind {
	KIND_DATA = 0, /* anything unrecognised */
	KIND_PAC,      /* PAC container */
	KIND_PMO,      /* "pmo\0" model */
	KIND_TMH,      /* ".TMH0.14" textures */
	KIND_HITS,     /* "HITS" hit boxes */
	KIND_OVL,      /* "MWo3" AI overlay */
	KIND_DBST,     /* "dbsT" */
	KIND_HEAD,     /* "Head " motion table */
	KIND_SKELETON, /* skeleton: bone tree and bind pose */
	KIND_ANIM,     /* animation pack: streams of slots of clips */
	KIND_COUNT
};

/* The kind of `size` bytes whose first `len` bytes are `head`
 * (len >= min(size, KIND_HEAD_MAX) suffices). */
enum kind kind_sniff(const uint8_t *head, size_t len, uint64_t size);

/* The kind of the whole of buf[0..len), sniffed from its head. */
enum kind kind_of(const uint8_t *buf, size_t len);

/* "pac", "pmo", ... and the file extension with its dot, ".bin" for data. */
const char *kind_name(enum kind k);
const char *kind_ext(enum kind k);

#endif
