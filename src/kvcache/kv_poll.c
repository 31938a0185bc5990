/* Polled O_DIRECT reads for cache misses. A pread that sleeps for the device
 * hands the core to other processes, and the objects the next gets need are
 * gone from the CPU caches when it comes back: on a busy machine that tripled
 * the latency of the following hits. Instead the read is submitted with
 * Linux AIO and its completion is awaited by watching the completion ring
 * that the kernel maps into the process (no system call, no sleep), for a
 * bounded time; then it sleeps in io_getevents like pread would. */
#include <errno.h>
#include <linux/aio_abi.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kvcache/kv_poll.h"

#define AIO_RING_MAGIC 0xa10a10a1u
#define SPIN_NS 20000000L   /* 20 ms, then sleep */

struct aio_ring {          /* the kernel's layout (fs/aio.c) */
  unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
  struct io_event io_events[];
};

int mpisw__kv_poll_init(uint64_t *out) {
  aio_context_t ctx = 0;
  if (syscall(SYS_io_setup, 4, &ctx) != 0) return -1;
  *out = (uint64_t)ctx;
  return 0;
}

void mpisw__kv_poll_close(uint64_t *ctx) {
  if (*ctx) syscall(SYS_io_destroy, (aio_context_t)*ctx);
  *ctx = 0;
}

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Reads len bytes at off into buf (both sector aligned). Returns the bytes
 * read or -errno. */
long mpisw__kv_poll_read(uint64_t actx, int fd, void *buf, uint64_t len, uint64_t off) {
  aio_context_t ctx = (aio_context_t)actx;
  struct iocb cb;
  memset(&cb, 0, sizeof cb);
  cb.aio_fildes = (uint32_t)fd;
  cb.aio_lio_opcode = IOCB_CMD_PREAD;
  cb.aio_buf = (uint64_t)(uintptr_t)buf;
  cb.aio_nbytes = len;
  cb.aio_offset = (int64_t)off;
  struct iocb *list[1] = {&cb};
  long rc;
  do rc = syscall(SYS_io_submit, ctx, 1, list);
  while (rc < 0 && errno == EINTR);
  if (rc != 1) return rc < 0 ? -errno : -EIO;
  struct aio_ring *ring = (struct aio_ring *)ctx;
  struct io_event ev;
  int got = 0;
  if (ring->magic == AIO_RING_MAGIC && ring->nr) {
    long t0 = now_ns();
    for (unsigned k = 0; !got; k++) {
      unsigned head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
      unsigned tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
      if (head != tail) {
        ev = ring->io_events[head % ring->nr];
        __atomic_store_n(&ring->head, (head + 1) % ring->nr, __ATOMIC_RELEASE);
        got = 1;
        break;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if ((k & 1023) == 1023 && now_ns() - t0 > SPIN_NS) break;
    }
  }
  while (!got) {
    rc = syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL);
    if (rc == 1) got = 1;
    else if (rc < 0 && errno != EINTR) return -errno;
  }
  return (long)ev.res;
}
