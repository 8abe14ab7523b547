/* SPDX-License-Identifier: MIT */
/* CRC-32 as zlib's crc32_z computes it (gzip's and PNG's: polynomial
 * 0xEDB88320 reflected, inverted before and after), the same value for
 * the same bytes, faster on long runs: the journal checksums every byte
 * a commit writes, the tail of a growth shifted in place included. */
#ifndef MH_CRC32_H
#define MH_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of `crc`'s bytes followed by p[0..len): crc is an earlier
 * return (0 for none), as with crc32_z. */
uint32_t mh_crc32(uint32_t crc, const void *p, size_t len);

#endif
