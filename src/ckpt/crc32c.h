/* CRC32C (Castagnoli), the checksum of checkpoint images: the SSE4.2
 * instruction when the processor has it, a table otherwise (same result).
 * MPI-free. */
#ifndef MPISW_CKPT_CRC32C_H
#define MPISW_CKPT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over n bytes of p; start with crc = 0. */
uint32_t mpisw_crc32c(uint32_t crc, const void *p, size_t n);
/* The table version alone (tests compare the two). */
uint32_t mpisw_crc32c_table(uint32_t crc, const void *p, size_t n);

/* A chunk's 64-bit checksum: CRC32C in the low half, the high half of
 * mpisw_hash64 (core/hash.h: not linear like any CRC, so no change keeps
 * both by the same algebra) in the high half. Incremental checkpoints skip a chunk whose sum did not
 * change: with 32 bits alone, one changed chunk in 4 billion would be
 * skipped, which a large job meets; with 64, one in 10^19. */
uint64_t mpisw_chunk_sum(const void *p, size_t n);

#endif
