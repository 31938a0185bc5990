/* One 64-bit hash for change detection and integrity checks (not
 * cryptography): the atomic sync's journal and written-page hashes, the
 * checkpoint levels' file sums, the high half of a checkpoint chunk's sum.
 * Four multiply-rotate lanes over 8-byte words, the tail byte by byte:
 * position-dependent, any single changed bit changes the result, and not
 * linear like a CRC. MPI-free. */
#ifndef MPISW_CORE_HASH_H
#define MPISW_CORE_HASH_H

#include <stdint.h>

/* Hash of n bytes at p; seed 0, or the result of the previous piece to
 * chain pieces (the same split gives the same result). */
uint64_t mpisw_hash64(uint64_t seed, const void *p, uint64_t n);

#endif
