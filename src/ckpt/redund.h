/* Redundancy levels of checkpoints (issue 16): PARTNER (a copy of each
 * rank's image in the storage window of a rank on another node, moved there
 * with RMA) and XOR (parity over groups of k ranks on distinct nodes). The
 * images are opaque bytes here: files the checkpoint core wrote under this
 * rank's LOCAL directory, sizes differing by rank. Every call returns
 * MPI_SUCCESS or an MPI error code of the library's classes (mpisw_error_code:
 * "mpisw: <call>: rank R: reason"); the caller raises it. Collective calls
 * agree, so every rank gets the same answer (docs/CHECKPOINTS.md "Levels:
 * PARTNER and XOR"). */
#ifndef MPISW_CKPT_REDUND_H
#define MPISW_CKPT_REDUND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* The level bits of mpisw.h's MPISW_CKPT_LEVEL_* (values fixed by the API). */
#define MPISW_REDUND_PARTNER 2
#define MPISW_REDUND_XOR 4

struct mpisw_redund;

struct mpisw_redund_opts {
  int levels;          /* MPISW_REDUND_PARTNER and/or MPISW_REDUND_XOR */
  int xor_size;        /* k: ranks per XOR group (MPISW_CKPT_XOR_SIZE) */
  int keep;            /* versions kept per level (MPISW_CKPT_KEEP) */
  uint64_t image_max;  /* this rank's expected image size: the partner window's
                          slots are made for it (0: at the first store) */
};

/* Collective over comm. name: the checkpoint's name ([A-Za-z0-9_.-]+);
 * local_dir: this rank's expanded LOCAL directory (made if missing).
 * Finds which ranks share a node (the MPI's shared-memory split and the host
 * name, as %h sees it), the partner ring and the XOR groups, and makes the
 * partner window in local_dir (an existing one from an earlier job is kept,
 * with its copies). MPISW_ERR_USAGE when a level needs a second node and all
 * ranks are on one. */
int mpisw_redund_open(const char *name, MPI_Comm comm, const char *local_dir,
                      const struct mpisw_redund_opts *o, struct mpisw_redund **r);

/* Collective: stores this rank's image (a complete file under local_dir) of
 * version on level (one bit): PARTNER puts it into the partner's window and
 * makes it durable there; XOR writes this rank's parity segment. Returns
 * when every rank's copy or parity is durable. */
int mpisw_redund_store(struct mpisw_redund *r, int level, int version, const char *image_path);

/* Collective: the versions this rank's image can be rebuilt for from level,
 * newest first (at most max; *count of them), should it be lost now. */
int mpisw_redund_versions(struct mpisw_redund *r, int level, int *versions, int max, int *count);

/* Collective: every rank whose image of version is lost (need != 0) gets it
 * back from level, byte-exact, at its place under local_dir (the path it
 * was stored from); the file is complete (written, fdatasync'd, renamed)
 * before the call returns. XOR counts a member whose parity is missing as
 * lost too, and fails with MPISW_ERR_IO when a group lost more than one
 * member (nothing is written). path (may be NULL) receives the rebuilt
 * file's path ("" when this rank needed nothing). */
int mpisw_redund_rebuild(struct mpisw_redund *r, int level, int version, int need, char *path,
                         size_t pathlen);

/* Collective: frees the partner window (its file stays) and the state. */
int mpisw_redund_close(struct mpisw_redund **r);

/* For tests and the report: the partner of this rank (-1 without PARTNER),
 * the XOR group's size and this rank's place in it (0 without XOR), the
 * number of nodes. */
void mpisw_redund_layout(const struct mpisw_redund *r, int *partner, int *xor_k, int *xor_pos,
                         int *nnodes);
/* The parity file of version for this rank ("" when none is kept). */
void mpisw_redund_xor_path(const struct mpisw_redund *r, int version, char *out, size_t len);

#endif
