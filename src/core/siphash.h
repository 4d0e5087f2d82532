/* siphash: SipHash-1-2 (one compression round, two finalization rounds),
 * the keyed hash behind every hash table, so clients cannot pick keys that
 * collide without knowing the random seed. Also a case-insensitive variant
 * that hashes bytes as if ASCII-lowercased (for case-insensitive tables). */
#ifndef CORE_SIPHASH_H
#define CORE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t key[16]);
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t key[16]);
/* Any SipHash-c-d variant (e.g. 2-4 to check against the paper's test vectors). */
uint64_t siphash_rounds(const uint8_t *in, size_t inlen, const uint8_t key[16], int crounds, int drounds);

#endif
