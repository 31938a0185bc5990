/* Inserts, one-sided only: MPI_Compare_and_swap and MPI_Fetch_and_op inside
 * one MPI_Win_lock_all epoch per window; MPI_Win_flush completes each step
 * at the owner before the next depends on it. No MPI_Win_sync here: on a
 * storage window it is a durable sync (msync), far more than the memory
 * barrier the inserts need, and flush already orders them. */
#include <stdio.h>

#include "dht.h"
#include "hash.h"

uint64_t dht_key_of(const struct dht *t, int rank, uint64_t i) {
  return dht_mix((uint64_t)rank * t->inserts_per_rank + i + 1);
}

static uint64_t cas(uint64_t desired, uint64_t expected, int owner, MPI_Aint disp,
                    MPI_Win win) {
  uint64_t old;
  MPI_Compare_and_swap(&desired, &expected, &old, MPI_UINT64_T, owner, disp, win);
  MPI_Win_flush(owner, win);
  return old;
}

/* One key: 0, or DHT_HEAP_FULL. */
static int insert(struct dht *t, uint64_t key) {
  struct dht_place at = dht_place_of(key, t->nranks, t->elements);
  int owner = at.owner;
  uint64_t slot = at.slot;
  /* disp_unit is 8 bytes: entry s is at 2s, its next field at 2s + 1 */
  MPI_Aint slot_disp = 2 * (MPI_Aint)slot;

  /* 1. Claim the slot: its key goes from 0 (empty) to ours. */
  if (cas(key, 0, owner, slot_disp, t->vol.win) == 0) return 0;
  t->collisions++;

  /* 2. Take a heap element of the owner: fetch-and-add on its counter. */
  uint64_t one = 1, idx;
  MPI_Fetch_and_op(&one, &idx, MPI_UINT64_T, owner, 0, MPI_SUM, t->heap.win);
  MPI_Win_flush(owner, t->heap.win);
  if (idx >= t->heap_elements) return DHT_HEAP_FULL;
  uint64_t elem = idx + 1; /* heap window index; 0 is the counter */

  /* 3. Link it at the head of the slot's chain. Guess the chain is empty;
   * the CAS tells the real head when it is not, and we try again with it. */
  struct dht_entry e = {key, 0};
  for (;;) {
    MPI_Put(&e, 2, MPI_UINT64_T, owner, 2 * (MPI_Aint)elem, 2, MPI_UINT64_T, t->heap.win);
    MPI_Win_flush(owner, t->heap.win); /* the element is complete before it is linked */
    uint64_t head = cas(elem, e.next, owner, slot_disp + 1, t->vol.win);
    if (head == e.next) return 0;
    e.next = head;
    t->cas_retries++;
  }
}

int dht_insert_all(struct dht *t) {
  int rc = 0;
  for (uint64_t i = 0; i < t->inserts_per_rank && rc == 0; i++)
    rc = insert(t, dht_key_of(t, t->rank, i));
  return rc;
}
