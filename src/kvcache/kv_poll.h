/* kv_poll.c: polled O_DIRECT reads (Linux AIO). Calls nothing else of the
 * store. */
#ifndef MPISW_KV_POLL_H
#define MPISW_KV_POLL_H

#include <stdint.h>

/* An AIO context into *ctx: 0, or -1 (then *ctx stays 0: use pread). */
int mpisw__kv_poll_init(uint64_t *ctx);
void mpisw__kv_poll_close(uint64_t *ctx);
/* Reads len bytes at off of fd (O_DIRECT) through ctx: bytes read, or -errno. */
long mpisw__kv_poll_read(uint64_t ctx, int fd, void *buf, uint64_t len, uint64_t off);

#endif
