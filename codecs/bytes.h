/* SPDX-License-Identifier: MIT */
/* Little-endian loads and stores (and big-endian ones, for PNG): the one
 * place byte order is handled.  Formats are described by offsets, never
 * by structs laid over bytes. */
#ifndef MH_BYTES_H
#define MH_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One load or store of the whole value where the host is little-endian:
 * the same code as the bytes' shifts in an optimized build, and one
 * access for a sanitizer to check instead of one a byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MH_HOST_LE 1
#else
#define MH_HOST_LE 0
#endif

static inline uint16_t le16(const uint8_t *p)
{
#if MH_HOST_LE
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
#else
	return (uint16_t)(p[0] | p[1] << 8);
#endif
}

static inline uint32_t le32(const uint8_t *p)
{
#if MH_HOST_LE
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
#endif
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
#if MH_HOST_LE
	memcpy(p, &v, sizeof v);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
#if MH_HOST_LE
	memcpy(p, &v, sizeof v);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

/* Big-endian, for the formats that are (PNG). */
static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* n floats as little-endian IEEE singles: a copy where the host is
 * little-endian (megabytes of them in a model.glb). */
static inline void put_le_f32s(uint8_t *p, const float *v, size_t n)
{
#if MH_HOST_LE
	memcpy(p, v, n * sizeof *v);
#else
	for (size_t i = 0; i < n; i++) {
		uint32_t bits;
		memcpy(&bits, &v[i], sizeof bits);
		put_le32(p + 4 * i, bits);
	}
#endif
}

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* FNV-1a, 64 bits, continuing from h (FNV1A64_INIT to start): a stable
 * hash for names and checksums, not a secret.  Any one byte changed
 * changes it (each step is a bijection of the state). */
#define FNV1A64_INIT 0xcbf29ce484222325ull

static inline uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#endif
