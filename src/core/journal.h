/* A redo journal for one storage range of a file: what an atomic sync
 * (storage_sync=atomic, docs/DURABILITY.md "Atomic sync") is about to
 * write, made durable before the file itself is touched, so that a crash
 * at any instant leaves either the previous or the new state of the range.
 *
 * File format (all little-endian u64): a 64-byte header
 *   magic "MPISWJN1", seq, count, body_len, range_off, range_len,
 *   body_sum, head_sum (hash of the 56 bytes before it)
 * then body_len bytes of records {off, len, len bytes padded to 8}.
 * Header and body go in one write, then fdatasync: a torn write shows as a
 * wrong head_sum or body_sum and the journal is discarded (the file was not
 * touched yet). After the records are written in place and the file synced,
 * the header is zeroed ("applied"). MPI-free. */
#ifndef MPISW_CORE_JOURNAL_H
#define MPISW_CORE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/hints.h"

#define MPISW_JOURNAL_SUFFIX ".mpisw-journal-"
#define MPISW_JOURNAL_HEAD 64

struct mpisw_journal {
  int fd;                       /* -1: closed */
  char path[MPISW_PATH_MAX];
  uint64_t range_off, range_len; /* the file bytes this journal may write */
  uint64_t seq;                 /* of the last commit */
  char *buf;                    /* header space + body being built */
  uint64_t cap, len;            /* len counts the header too */
  uint64_t count;               /* records in the body */
  uint64_t last_off, last_len;  /* the last record, extended by adjacent adds */
  uint64_t last_at;             /* its offset in buf */
  int direct_fd;                /* the data file opened O_DIRECT for apply, or -1 */
  char *bounce;                 /* aligned copy of a record for direct_fd */
  int data_fd, apply_err;       /* apply's file and first errno */
};


/* "<data_path>.mpisw-journal-<range_off>"; -1 (MPISW_K_HINT) when too long. */
int mpisw_journal_name(const char *data_path, uint64_t range_off, char *out, size_t n,
                       struct mpisw_error *e);

/* What recovery found. */
enum { MPISW_JOURNAL_NONE = 0, MPISW_JOURNAL_APPLIED, MPISW_JOURNAL_REPLAYED,
       MPISW_JOURNAL_DISCARDED };

/* Recovery before the range is used: a journal at jpath with a valid commit
 * is written into data_fd (idempotent) and the file synced, then marked
 * applied; one without a valid commit (torn, bad checksum) is discarded.
 * *what (may be NULL) says which; *seq (may be NULL) its sequence number.
 * A committed journal whose range is not inside [range_off,
 * range_off+range_len) is MPISW_K_USAGE (the window must be made on the
 * same bytes to recover them). No journal file: 0, NONE. */
int mpisw_journal_recover(const char *jpath, int data_fd, uint64_t range_off,
                          uint64_t range_len, int *what, uint64_t *seq, struct mpisw_error *e);

/* Opens (creates, 0600, no symlink) the journal for writing. jpath NULL:
 * a journal in memory only (commit writes nothing; apply still writes the
 * records), for a file without a name, which no crash leaves behind. */
int mpisw_journal_open(struct mpisw_journal *j, const char *jpath, uint64_t range_off,
                       uint64_t range_len, uint64_t seq, struct mpisw_error *e);
/* Starts a new body. */
void mpisw_journal_begin(struct mpisw_journal *j);
/* Copies len bytes for file offset off into the body (adjacent to the last
 * record: that record grows). Returns the copy, NULL (*e) when out of memory
 * or outside the range. */
const void *mpisw_journal_add(struct mpisw_journal *j, uint64_t off, const void *src,
                              uint64_t len, struct mpisw_error *e);
/* Bytes the commit will write (header + body; 0 in memory only). */
uint64_t mpisw_journal_bytes(const struct mpisw_journal *j);
/* Writes header + body at offset 0 and fdatasyncs: durable on return. */
int mpisw_journal_commit(struct mpisw_journal *j, struct mpisw_error *e);
/* Writes apply's page-aligned records with O_DIRECT through a second
 * descriptor of data_fd: exactly the changed pages reach the device, where
 * buffered writes would write every large folio they touch whole (ext4
 * caches files in folios of up to 2 MiB). 0, or -1 when the file system
 * refuses O_DIRECT (then apply writes through the page cache). */
int mpisw_journal_direct(struct mpisw_journal *j, int data_fd);
/* Writes the committed records in place into data_fd and fdatasyncs it. */
int mpisw_journal_apply(struct mpisw_journal *j, int data_fd, struct mpisw_error *e);
/* Zeroes the header (no sync needed: replaying an applied journal again is
 * harmless, and the next commit overwrites it) and drops its cached pages. */
int mpisw_journal_mark_applied(struct mpisw_journal *j, struct mpisw_error *e);
/* Closes; removes the journal file when remove is set. */
void mpisw_journal_close(struct mpisw_journal *j, int remove);

#endif
