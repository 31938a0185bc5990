/* Files and block devices behind windows: open or create safely, reserve
 * space up front, map the parts of a layout, sync, and undo on failure. */
#ifndef MPISW_CORE_STORAGE_H
#define MPISW_CORE_STORAGE_H

#include <stdint.h>
#include <sys/uio.h>

#include "core/error.h"
#include "core/hints.h"
#include "core/layout.h"

struct mpisw_file {
  int fd;                        /* -1: none */
  char path[MPISW_PATH_MAX];     /* the file actually used */
  int created;                   /* this call made it: removed on rollback */
  int unique;                    /* made in a directory, without a name (core/unique.h) */
  int blockdev;
  uint64_t old_size;             /* size before this call grew it */
  int grown;
  int claim_lost;                /* another window holds some of our bytes (core/claim.h):
                                  * a file made here is theirs too, kept at rollback */
};

struct mpisw_file_opts {
  int may_create;        /* 0: the file must exist (a shared window's peers) */
  int perm;              /* mode for a new file; -1: 0600 */
  const char *tag;       /* part of a unique name in a directory, e.g. "r3" */
  long striping_factor;  /* Lustre only; 0: not set */
  long striping_unit;
};

void mpisw_file_init(struct mpisw_file *f);

/* Opens path read-write (a directory: creates a unique file inside it).
 * Never follows a symlink as the last component, never reuses a regular
 * file owned by another user (MPISW_K_ACCESS), and makes a file it creates
 * durable in its directory (fsync of the parent). */
int mpisw_file_open(struct mpisw_file *f, const char *path, const struct mpisw_file_opts *o,
                    struct mpisw_error *e);

/* Makes [off, off+len) backed by real space (posix_fallocate), growing the
 * file if needed, never shrinking it. Block devices: checks their size.
 * First claims the range for the window (core/claim.h): MPISW_K_USAGE when
 * another window holds part of it. */
int mpisw_file_reserve(struct mpisw_file *f, uint64_t off, uint64_t len, struct mpisw_error *e);

/* Writes all n bytes of buf at off (retrying short writes and EINTR).
 * 0, or the errno (EIO when the device accepted nothing). */
int mpisw_pwrite_all(int fd, const void *buf, uint64_t n, uint64_t off);
/* The same for n buffers (pwritev); advances iov past what a short write
 * took, so the caller's array is changed. */
int mpisw_pwritev_all(int fd, struct iovec *iov, int n, uint64_t off);
/* All n bytes at off read, past EINTR and short reads: 0, the errno of a
 * failed read, or ENODATA when the file ends first. */
int mpisw_pread_all(int fd, void *buf, uint64_t n, uint64_t off);
/* The same, stopping at the end of the file: *got bytes read (< n there);
 * 0 or the errno of a failed read. */
int mpisw_pread_upto(int fd, void *buf, uint64_t n, uint64_t off, uint64_t *got);

/* Undoes what open/reserve did (shrinks a grown file, removes a new one). */
void mpisw_file_rollback(struct mpisw_file *f);

/* Closes; removes the file when remove is set (never a block device). A
 * unique file has no name: remove unset links it under f->path. */
void mpisw_file_close(struct mpisw_file *f, int remove);

/* One contiguous window range made of a layout's memory and file parts. */
struct mpisw_region {
  struct mpisw_layout l;
  char *reserve;         /* start of the reservation, NULL when empty */
  char *base;            /* the window base: reserve + l.lead */
};

/* mem_fd < 0: the memory part is private anonymous memory; otherwise a
 * MAP_SHARED mapping of mem_fd (shared windows). */
int mpisw_region_map(struct mpisw_region *r, const struct mpisw_layout *l, int file_fd,
                     int mem_fd, unsigned access, struct mpisw_error *e);

/* A mapped range the mmap write-behind now serves (src/win/writebehind.c):
 * the advice MPISW_MMAP_ADVICE gives such a range, where it differs. */
void mpisw_region_advise_served(char *addr, uint64_t len, unsigned access);

/* Maps len bytes of fd at file offset off over [addr, addr+len), replacing
 * whatever was there, with the access_style advice. 0, or -1 with errno. */
int mpisw_map_file_fixed(void *addr, uint64_t len, int fd, uint64_t off, unsigned access);

/* Storage part durable on return (msync MS_SYNC). 0 bytes: nothing to do.
 * rewrite: an earlier sync failed, and the kernel forgets a failed
 * write-back once it has reported it, so every page of the storage part
 * still in memory is marked dirty again first and written anew.
 * *written (may be NULL): bytes the kernel had to write, the dirty and
 * under-write-back pages of the file range just before msync (cachestat(2),
 * Linux 6.5); the whole range when the kernel cannot tell. fd: the file. */
int mpisw_region_sync(const struct mpisw_region *r, int fd, int rewrite, uint64_t *written,
                      struct mpisw_error *e);

void mpisw_region_unmap(struct mpisw_region *r);

/* Page size of the machine. */
uint64_t mpisw_page_size(void);

/* Parent directories made durable after a file was created (for tests). */
extern unsigned long mpisw_dir_syncs;

/* Process umask, read without changing it. */
int mpisw_current_umask(void);

#endif
