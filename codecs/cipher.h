/* SPDX-License-Identifier: MIT */
/* The DATA.BIN cipher (mhfu-archive(5) "Cipher").
 *
 * A run is a sequence of u32 words seeded by a block number: the TOC is
 * one run seeded with 0, each entry one run seeded with its start block.
 * Word n of a run is XOR-ed with a key whose two halves are the seed's
 * halves times a fixed base raised to n + 1, so the key of any word is
 * computed directly (cipher_seek) and any byte range of a run can be
 * processed without touching what precedes it. */
#ifndef MH_CIPHER_H
#define MH_CIPHER_H

#include <stddef.h>
#include <stdint.h>

/* Key state: the halves as they stand before the next word's advance. */
struct cipher_key {
	uint32_t k0; /* high half, modulo 0xffd9 */
	uint32_t k1; /* low half, modulo 0xfff1 */
};

/* The state of a run seeded with block `seed` positioned so that the next
 * key produced is the one of word `word`.  O(log word). */
struct cipher_key cipher_seek(uint32_t seed, uint64_t word);

/* Advances the state by one word and returns that word's key. */
uint32_t cipher_next(struct cipher_key *k);

/* Decrypt or encrypt, in place, `len` bytes that sit at byte `offset` of
 * the run seeded with `seed`.  Offset and length need not be aligned. */
void cipher_decrypt(uint32_t seed, uint64_t offset, void *buf, size_t len);
void cipher_encrypt(uint32_t seed, uint64_t offset, void *buf, size_t len);

/* `len` bytes at byte `offset` of a run seeded with `from` become those
 * of the run seeded with `to`, in place: cipher_decrypt(from, offset)
 * then cipher_encrypt(to, offset) in one pass (an entry moved to a new
 * start, a piece at a time). */
void cipher_reencrypt(uint32_t from, uint32_t to, uint64_t offset, void *buf, size_t len);

#endif
