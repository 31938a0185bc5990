/* State and helpers shared by the redundancy levels (redund.c: node map,
 * open/close, files; partner.c; xor.c). */
#ifndef MPISW_CKPT_REDUND_INTERNAL_H
#define MPISW_CKPT_REDUND_INTERNAL_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "ckpt/redund.h"
#include "core/error.h"

#define REDUND_NAME_MAX 128
#define REDUND_REL_MAX 256   /* an image's path relative to the LOCAL dir */
#define REDUND_IO_PIECE (4u << 20)   /* bytes read, put or reduced at a time */

struct mpisw_redund {
  MPI_Comm comm;                 /* our duplicate, MPI_ERRORS_RETURN */
  int rank, size;
  char name[REDUND_NAME_MAX];
  char dir[PATH_MAX];
  int levels, keep, xor_k;
  /* node map: node ids in order of first rank, local index within node */
  int nnodes, node, local;
  int *node_of, *local_of, *node_count;
  char host[256];
  /* PARTNER (partner.c) */
  int partner;                   /* holder of this rank's copy, -1 */
  int nclients, *clients;        /* ranks whose copies this rank holds, ascending */
  MPI_Win pwin;
  char *pbase;
  uint64_t pwin_size;
  /* XOR (xor.c) */
  int xk, xpos, *xmembers;       /* this rank's group: size, place, world ranks */
  int xgroup;
  MPI_Comm xcomm;
};

/* redund.c */
int mpisw_redund_fail_code(const char *routine, struct mpisw_error *e);
/* The seed of the levels' file sums (mpisw_hash64, core/hash.h). */
#define REDUND_SUM0 0x6a09e667f3bcc908ull
/* Size and checksum of a whole file. */
int mpisw_redund_file_sum(const char *path, uint64_t *size, uint64_t *sum, struct mpisw_error *e);
/* path relative to the LOCAL dir (must lie under it) into rel. */
int mpisw_redund_relpath(const struct mpisw_redund *r, const char *path, char *rel,
                         struct mpisw_error *e);
/* Makes the parent directories of path (like mkdir -p of its dirname). */
int mpisw_redund_mkparents(const char *path, struct mpisw_error *e);
/* fdatasync, rename tmp to path, fsync the directory. */
int mpisw_redund_commit(int fd, const char *tmp, const char *path, struct mpisw_error *e);
int mpisw_redund_pread(int fd, void *buf, size_t len, uint64_t off, const char *path,
                       struct mpisw_error *e);
int mpisw_redund_pwrite(int fd, const void *buf, size_t len, uint64_t off, const char *path,
                        struct mpisw_error *e);

/* partner.c */
int mpisw_partner_open(struct mpisw_redund *r, uint64_t image_max, struct mpisw_error *e);
int mpisw_partner_store(struct mpisw_redund *r, int version, const char *path,
                        struct mpisw_error *e);
int mpisw_partner_versions(struct mpisw_redund *r, int *v, int max, int *n,
                           struct mpisw_error *e);
int mpisw_partner_rebuild(struct mpisw_redund *r, int version, int need, char *path,
                          size_t len, struct mpisw_error *e);
void mpisw_partner_close(struct mpisw_redund *r);

/* xor.c */
int mpisw_xor_open(struct mpisw_redund *r, struct mpisw_error *e);
int mpisw_xor_store(struct mpisw_redund *r, int version, const char *path,
                    struct mpisw_error *e);
int mpisw_xor_versions(struct mpisw_redund *r, int *v, int max, int *n, struct mpisw_error *e);
int mpisw_xor_rebuild(struct mpisw_redund *r, int version, int need, char *path, size_t len,
                      struct mpisw_error *e);
void mpisw_xor_close(struct mpisw_redund *r);

#endif
