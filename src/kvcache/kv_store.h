/* One open store: the state the files of src/kvcache share. Who calls whom
 * (never in a circle):
 *   kv_open.c   mpisw_kv_*: open/close, windows, errors; dispatches through
 *               the backend table (kv_backend.h) -> kv_cache.c, kv_naive.c
 *   kv_cache.c  cache backend   -> kv_log, kv_slab, kv_index, kv_super, kv_poll, kv_file
 *   kv_naive.c  naive backend   -> kv_super
 *   kv_log.c    log, compaction -> kv_super, kv_index, kv_slab, kv_poll, kv_file
 *   kv_super.c  superblock      -> kv_file
 *   kv_slab.c   memory window chunks; evicts through the callback it is
 *               given, reads index entries (no calls)
 *   kv_file.c   the window's sync (the window module), and the leaves
 *   kv_index.c, kv_poll.c, kv_lock.c, kv_util.c
 * (all of them use kv_util.c's hash and CRC). Each file's interface is in
 * its own header; tests/tools/kv_layers.py checks this graph on the
 * objects. */
#ifndef MPISW_KV_STORE_H
#define MPISW_KV_STORE_H

#include <mpi.h>
#include <stdint.h>

#include "kvcache/kv_backend.h"
#include "kvcache/kv_index.h"
#include "kvcache/kv_slab.h"
#include "kvcache/kv_super.h"
#include "kvcache/kv_util.h"
#include "mpisw_kv.h"

struct mpisw_kv {
  struct kv_options o;
  const struct kv_backend *ops;  /* from the superblock's backend */
  MPI_Comm comm;           /* a dup of the open's communicator, errors return */
  int rank;
  char path[4096];         /* the file actually used */
  MPI_Win log_win, mem_win;
  char *file_base;         /* the storage window: superblock at 0 */
  char *mem_base;          /* the memory window (cache backend) */
  uint64_t file_size;
  int fd_direct;           /* O_DIRECT reads (or plain, where unsupported) */
  int fd_rw;               /* fallocate of freed regions; holds the store's lock */
  int fd_dw;               /* O_DIRECT appends, -1: copies into the window */
  uint64_t aio_ctx;        /* kv_read=poll: Linux AIO context, 0: none */
  struct kv_super sb;
  uint32_t crc_seed;       /* from sb.id */
  int sb_damaged;          /* the open found one superblock copy damaged */

  /* cache backend */
  struct kv_index idx;
  struct kv_slab slab;
  int active;
  char *region;            /* file_base + KV_BLOCK + active * log_size */
  uint64_t tail;           /* next append offset in the region (block aligned) */
  uint64_t dead;           /* bytes of superseded records and tombstones */
  uint64_t seq;            /* next record's sequence number */
  char *wbuf;              /* write buffer (block aligned memory) */
  uint64_t wlen;
  char *rbuf;              /* O_DIRECT bounce buffer */
  uint64_t rbuf_size;
  uint64_t n_dirty;
  int compacting;
  int broken;              /* a compaction failed half way: only close works */

  struct mpisw_kv_stats st;
};

#endif
