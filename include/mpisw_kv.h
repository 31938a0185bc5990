/*
 * mpisw_kv: a key-value store on MPI windows (part of libmpisw).
 *
 * Each process owns an independent store. The default backend, "cache",
 * keeps recently used objects in a memory window (object granularity;
 * sampled-LFU eviction with TinyLFU admission) and everything else in an append-only
 * log inside a storage window (alloc_type=storage): records with header and
 * CRC32C, appended in large aligned batches, never updated in place; deletes
 * are tombstones; compaction copies the live records to the file's other
 * log region. The "naive" backend lays a fixed-slot hash table directly in a
 * storage window and lets the page cache decide what stays in memory.
 *
 * Durability: as with storage windows, data is on storage after
 * mpisw_kv_sync() or mpisw_kv_close(). Between those points, a put lives in
 * memory (the cache backend writes changed objects back when they are
 * evicted, compacted or synced). A reopen after a clean close finds every
 * object; after a crash it finds what was synced, and a torn tail of the log
 * is detected (CRC, sequence numbers) and dropped.
 *
 * Damage: every log record has a CRC of its header and one of its key and
 * value (the naive backend: one per slot). The open skips a damaged record
 * and keeps every valid one after it: the damaged record's key comes back
 * with its previous value, or as MPISW_KV_NOTFOUND (a damaged tombstone
 * brings the deleted value back). The open counts such records exactly
 * (mpisw_kv_stats' log_damaged) and prints one line naming the file to
 * stderr; the damage stays in the log, and is counted at each open, until a
 * compaction rewrites the log without it (at the log's end it is dropped at
 * once). Records cut off by a crash during an append are a torn tail, not
 * damage. A naive slot whose lengths, state or CRC are wrong makes the
 * get, put or delete that meets it fail with MPISW_ERR_IO naming the slot:
 * a damaged length never reads a neighbour's bytes.
 *
 * One open store per file: the open locks the file (flock) until close; a
 * second open, by this process or another, fails with MPISW_ERR_ACCESS
 * ("... is in use: process N has the store open ..."). The lock goes with
 * the holder's descriptors, so a crashed holder (kill -9) leaves none.
 *
 * Return values: MPI_SUCCESS, MPISW_KV_NOTFOUND (a negative constant, not
 * an error: the key is absent), or an MPI error code whose class is one of
 * mpisw_error_class()'s and whose MPI_Error_string reads
 * "mpisw: mpisw_kv_<call>: <what went wrong>". Like MPI-IO files, the store
 * returns errors to the caller and calls no error handler.
 *
 *   MPISW_ERR_HINT    an option has a bad value (names the option)
 *   MPISW_ERR_NOFILE  the log's directory does not exist
 *   MPISW_ERR_ACCESS  permission denied, read-only file system, symlink,
 *                     the store is open already (here or in another process)
 *   MPISW_ERR_NOSPACE the log is full of live data (compaction cannot help)
 *                     or the file system is full
 *   MPISW_ERR_IO      a read or write of the log failed; a record or naive
 *                     slot met by the call is damaged; the file is not a
 *                     store of this version (format 2)
 *   MPISW_ERR_NOMEM   no memory for the index or buffers
 *   MPISW_ERR_USAGE   a key or value too large, a key of length 0, a buffer
 *                     too small for the value (*vlen then says how large),
 *                     a NULL handle, a shared path without %r on > 1 ranks
 *
 * Not thread safe: one thread at a time per store.
 */
#ifndef MPISW_KV_H
#define MPISW_KV_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "mpisw.h" /* MPISW_EXPORT, mpisw_error_class() and its kinds */

#ifdef __cplusplus
extern "C" {
#endif

/* A get or delete of a key that is not in the store. Not an MPI error. */
#define MPISW_KV_NOTFOUND (-1)

/* Largest key, bytes. The largest value is the option kv_max_value. */
#define MPISW_KV_MAX_KEY 1024

/* Options (MPI_Info keys of mpisw_kv_open; sizes take K, M, G suffixes):
 *
 *   kv_backend       cache | naive                              (cache)
 *   kv_cache_size    bytes of the memory window holding objects (16M)
 *   kv_log_size      bytes of one log region; the file holds two,
 *                    plus 4 KiB of header                       (256M)
 *   kv_write_buffer  bytes gathered before one append           (4M)
 *   kv_max_value     largest value, bytes; at most
 *                    kv_write_buffer - 1064 (one record)        (1M, or
 *                                       what a smaller buffer holds)
 *   kv_read          poll | direct | window: how a cache miss reads
 *                    its record: exactly the record's 512-byte
 *                    sectors with O_DIRECT, the process polling for
 *                    the completion (poll: it keeps its core and its
 *                    CPU caches warm; after 20 ms it sleeps) or
 *                    sleeping in pread (direct); or loads from the
 *                    storage window (window: page faults, whole
 *                    pages)                                     (poll)
 *   kv_slots         naive: slots in the table                  (131072)
 *   kv_slot_size     naive: bytes per slot (header, key, value) (1152)
 *   access_style     passed to the storage window (e.g. random)  (none)
 *
 * An existing file keeps its own geometry (log or slot sizes); the options
 * then only fill in what the file does not say. Unknown keys are ignored. */
#define MPISW_KV_BACKEND "kv_backend"
#define MPISW_KV_CACHE_SIZE "kv_cache_size"
#define MPISW_KV_LOG_SIZE "kv_log_size"
#define MPISW_KV_WRITE_BUFFER "kv_write_buffer"
#define MPISW_KV_MAX_VALUE "kv_max_value"
#define MPISW_KV_READ "kv_read"
#define MPISW_KV_SLOTS "kv_slots"
#define MPISW_KV_SLOT_SIZE "kv_slot_size"

typedef struct mpisw_kv mpisw_kv;

/** \brief Opens the store in the file path, creating it when absent.
 *
 * Collective over comm: every process of comm calls it and gets a store of
 * its own; "%r" in path becomes the rank in comm (required when comm has
 * more than one process), "%h" the host name. When any process fails, all
 * return an error and none keeps a store. Use MPI_COMM_SELF for a purely
 * local open.
 *
 * \param path  the store's file ("%r", "%h", "%%" expanded)
 * \param info  options (kv_* keys above, access_style), or MPI_INFO_NULL
 * \param comm  the processes that open together
 * \param kv    out: the store, NULL after an error
 * \return MPI_SUCCESS, or (on every process when one failed):
 *         MPISW_ERR_USAGE kv NULL, path NULL or empty, comm MPI_COMM_NULL,
 *         a path without %r on more than one process;
 *         MPISW_ERR_HINT an option has a bad value (names it);
 *         MPISW_ERR_NOFILE the file's directory does not exist;
 *         MPISW_ERR_ACCESS permission denied, read-only file system,
 *         symlink, the store is open already (here or elsewhere);
 *         MPISW_ERR_NOSPACE no room for the file;
 *         MPISW_ERR_IO the file is not a store of this version, its header
 *         is damaged, or a read, write or lock failed;
 *         MPISW_ERR_NOMEM no memory for the store, its index or windows;
 *         the MPI's class when duplicating comm fails.
 */
MPISW_EXPORT int mpisw_kv_open(const char *path, MPI_Info info, MPI_Comm comm, mpisw_kv **kv);

/** \brief Stores value under key, replacing any older value.
 *
 * Local. Durable after mpisw_kv_sync or mpisw_kv_close.
 *
 * \param kv     an open store
 * \param key    1..MPISW_KV_MAX_KEY bytes
 * \param klen   bytes of key
 * \param value  the value (may be NULL when vlen is 0)
 * \param vlen   0..kv_max_value bytes (naive backend: what fits a slot)
 * \return MPI_SUCCESS;
 *         MPISW_ERR_USAGE kv NULL, key NULL or of 0 or too many bytes,
 *         value NULL with vlen > 0, value too large;
 *         MPISW_ERR_NOSPACE the log is full of live data (the compaction
 *         a full log starts cannot help), or the naive table has no free
 *         slot;
 *         MPISW_ERR_IO a read or write failed, a damaged naive slot was
 *         met, or an earlier compaction failed (the store takes no more
 *         calls);
 *         MPISW_ERR_NOMEM no memory for the index, or the memory window
 *         has no page left for the value's size class.
 */
MPISW_EXPORT int mpisw_kv_put(mpisw_kv *kv, const void *key, size_t klen, const void *value,
                              size_t vlen);

/** \brief Copies the value of key into buf.
 *
 * Local.
 *
 * \param kv    an open store
 * \param key   1..MPISW_KV_MAX_KEY bytes
 * \param klen  bytes of key
 * \param buf   where the value goes; NULL with cap 0 asks only for the length
 * \param cap   bytes of buf
 * \param vlen  out: the value's length (may be NULL)
 * \return MPI_SUCCESS; MPISW_KV_NOTFOUND when key is absent (not an error);
 *         MPISW_ERR_USAGE kv NULL, key NULL or of 0 or too many bytes, a
 *         value longer than cap (*vlen is then set);
 *         MPISW_ERR_IO a read failed, the record or naive slot is damaged,
 *         or an earlier compaction failed; cache backend, a miss brings the
 *         object into the memory window and may evict another, whose
 *         write-back fails as a put does (MPISW_ERR_NOSPACE,
 *         MPISW_ERR_IO, MPISW_ERR_NOMEM).
 */
MPISW_EXPORT int mpisw_kv_get(mpisw_kv *kv, const void *key, size_t klen, void *buf, size_t cap,
                              size_t *vlen);

/** \brief Removes key.
 *
 * Local; the removal is durable after mpisw_kv_sync or mpisw_kv_close.
 *
 * \param kv    an open store
 * \param key   1..MPISW_KV_MAX_KEY bytes
 * \param klen  bytes of key
 * \return MPI_SUCCESS; MPISW_KV_NOTFOUND when key is absent (not an error);
 *         MPISW_ERR_USAGE kv NULL, key NULL or of 0 or too many bytes;
 *         MPISW_ERR_NOSPACE no room in the log for the tombstone;
 *         MPISW_ERR_IO a write failed, a damaged naive slot was met, or an
 *         earlier compaction failed.
 */
MPISW_EXPORT int mpisw_kv_delete(mpisw_kv *kv, const void *key, size_t klen);

/** \brief Compacts the log: copies the live records to the other log
 * region and frees the old one.
 *
 * Local. Cache backend only (a put on a full log does this by itself);
 * the naive backend does nothing. After a failed compaction the file
 * holds the state before it, and the store takes no more calls but
 * mpisw_kv_close.
 *
 * \param kv  an open store
 * \return MPI_SUCCESS; MPISW_ERR_USAGE kv NULL; MPISW_ERR_NOSPACE the
 *         live records do not fit one region; MPISW_ERR_IO a read or write
 *         failed, or an earlier compaction failed; MPISW_ERR_NOMEM no
 *         memory for the copy.
 */
MPISW_EXPORT int mpisw_kv_compact(mpisw_kv *kv);

/** \brief Makes every completed put and delete durable.
 *
 * Local: writes what the memory holds and syncs the log (MPI_Win_sync of
 * its storage window).
 *
 * \param kv  an open store
 * \return MPI_SUCCESS; MPISW_ERR_USAGE kv NULL; MPISW_ERR_NOSPACE the
 *         log has no room for the buffered records; MPISW_ERR_IO a write
 *         or the sync failed, or an earlier compaction failed.
 */
MPISW_EXPORT int mpisw_kv_sync(mpisw_kv *kv);

/** \brief Syncs and closes the store; *kv becomes NULL.
 *
 * Collective over the communicator of the open (its windows are freed).
 * The store is gone even when an error is returned.
 *
 * \param kv  in: the store; out: NULL
 * \return MPI_SUCCESS; MPISW_ERR_USAGE kv or *kv NULL; the errors of
 *         mpisw_kv_sync (the first error wins); MPISW_ERR_IO the sync of
 *         the windows at free failed.
 */
MPISW_EXPORT int mpisw_kv_close(mpisw_kv **kv);

/* What a store did since it was opened. */
struct mpisw_kv_stats {
  uint64_t objects;         /* live keys */
  uint64_t gets, get_hits;  /* get calls; of them served from the memory window */
  uint64_t puts, deletes;
  uint64_t evictions;       /* objects pushed out of the memory window */
  uint64_t log_reads;       /* records read from storage */
  uint64_t log_read_bytes;  /* bytes read from storage for them */
  uint64_t log_appends;     /* batches appended */
  uint64_t log_append_bytes;/* bytes appended (records and padding) */
  uint64_t log_used;        /* bytes of the active region in use */
  uint64_t log_dead;        /* of them, superseded or deleted records */
  uint64_t log_capacity;    /* bytes of one region */
  uint64_t compactions;
  uint64_t cache_bytes;     /* bytes of objects in the memory window */
  uint64_t cache_capacity;
  uint64_t log_damaged;     /* records the open found damaged and skipped (see
                               "Damage" above); 0 for a sound file */
};
/** \brief Copies what the store did since it was opened into *st.
 *
 * Local.
 *
 * \param kv  an open store
 * \param st  out: the counters
 * \return MPI_SUCCESS; MPISW_ERR_USAGE kv or st NULL; MPISW_ERR_IO an
 *         earlier compaction failed.
 */
MPISW_EXPORT int mpisw_kv_stats(mpisw_kv *kv, struct mpisw_kv_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* MPISW_KV_H */
