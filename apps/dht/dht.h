/* dht: a distributed hash table on MPI windows, every update one-sided.
 *
 * Each rank owns a local volume (an array of entries) and an overflow heap
 * (a counter, then an array of entries), each its own MPI window. A key goes
 * to one owner and one slot of its volume (hash.h). Insert: compare-and-swap
 * the slot's key from 0 (empty) to the key; when the slot is taken, take a
 * heap element with fetch-and-add on the owner's heap counter, write the key
 * there, and link it at the head of the slot's chain with compare-and-swap on
 * the slot's next field. Chains stay on the owner. */
#ifndef DHT_H
#define DHT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes (docs/DHT.md). Every rank exits with the same one. */
enum dht_exit {
  DHT_OK = 0,
  DHT_VERIFY_FAILED = 1,  /* a key is missing, twice, or the chains are broken */
  DHT_BAD_OPTION = 2,
  DHT_OVER_BUDGET = 3,    /* the table's memory would pass the memory budget */
  DHT_ALLOC_ERROR = 4,    /* any other window allocation or MPI failure */
  DHT_HEAP_FULL = 5       /* an owner's overflow heap ran out of elements */
};

enum dht_kind { DHT_MEMORY, DHT_STORAGE, DHT_COMBINED, DHT_AUTO };
enum dht_verify { DHT_VERIFY_FULL, DHT_VERIFY_LOCAL, DHT_VERIFY_NONE };

struct dht_options {
  uint64_t elements;     /* entries in each rank's volume */
  double heap_factor;    /* heap entries per volume entry */
  double fill;           /* each rank inserts fill * elements keys */
  enum dht_kind kind;
  double factor;         /* combined: the share on storage */
  const char *order;     /* memory_first | storage_first */
  const char *path;      /* directory (unique files) or file name with %r */
  const char *access;    /* access_style hint for the storage part, or NULL */
  enum dht_verify verify;
  int quiet;             /* no human summary line */
};

/* One entry: a key (0 = empty) and the next heap entry of its chain
 * (heap window index, 0 = none; index 0 of the heap window is the counter). */
struct dht_entry {
  uint64_t key;
  uint64_t next;
};
#define DHT_ENTRY ((MPI_Aint)sizeof(struct dht_entry))

struct dht_window {
  MPI_Win win;
  struct dht_entry *base;
  uint64_t bytes;         /* this rank's window size */
  uint64_t storage_bytes; /* of which on storage (from MPI_Win_get_info) */
};

struct dht {
  int rank, nranks;
  uint64_t elements, heap_elements, inserts_per_rank;
  struct dht_window vol, heap;   /* heap.base[0].key is the heap counter */
  /* counted by this rank's inserts */
  uint64_t collisions, cas_retries;
};

/* options.c: 0, or DHT_BAD_OPTION after printing why (rank 0). */
int dht_parse_options(int argc, char **argv, int rank, struct dht_options *o);
const char *dht_kind_name(enum dht_kind k);
void dht_human(char *buf, size_t n, double bytes); /* "1.5 MiB" */

/* budget.c: DHT_OK, or DHT_OVER_BUDGET (with a message) when memory windows
 * of this size cannot fit the memory the ranks on this node may use. */
int dht_memory_precheck(const struct dht_options *o, uint64_t bytes_per_rank, int local_ranks,
                        int rank);

/* table.c: windows in and out; an exit code. */
/* The table's dimensions from the options, and its bytes per rank. */
void dht_table_size(struct dht *t, const struct dht_options *o);
uint64_t dht_table_bytes(const struct dht *t);
/* Collective; the table is sized first (dht_table_size). */
int dht_table_create(struct dht *t, const struct dht_options *o);
void dht_table_free(struct dht *t);

/* insert.c: this rank's inserts, one-sided; an exit code (DHT_HEAP_FULL). */
int dht_insert_all(struct dht *t);
uint64_t dht_key_of(const struct dht *t, int rank, uint64_t i);

/* verify.c: every inserted key found exactly once; DHT_OK or DHT_VERIFY_FAILED. */
int dht_verify(struct dht *t, enum dht_verify how, uint64_t *heap_used_total);


#endif
