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

#endif
