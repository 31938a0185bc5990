/* The writes of the atomic-sync kill trials (t_atomic loop, atomic_check):
 * step k stamps ATOMIC_CHANGE pseudo-random pages of the rank's window with
 * one byte, so the state after any number of syncs can be computed. */
#ifndef MPISW_TEST_ATOMIC_STEPS_H
#define MPISW_TEST_ATOMIC_STEPS_H
#include <string.h>

enum { ATOMIC_PAGES = 32, ATOMIC_CHANGE = 6 };

static inline void atomic_step_pages(int rank, int k, int *pg) {
  unsigned s = (unsigned)k * 2654435761u + (unsigned)rank * 40503u;
  for (int i = 0; i < ATOMIC_CHANGE; i++) {
    s = s * 1103515245u + 12345u;
    pg[i] = (int)((s >> 8) % ATOMIC_PAGES);
  }
}
static inline char atomic_step_byte(int k) { return (char)(k % 255 + 1); }

/* The window's bytes after k syncs (zeros before the first). */
static inline void atomic_state_after(int rank, int k, char *buf, size_t page) {
  memset(buf, 0, ATOMIC_PAGES * page);
  for (int s = 1; s <= k; s++) {
    int pg[ATOMIC_CHANGE];
    atomic_step_pages(rank, s, pg);
    for (int i = 0; i < ATOMIC_CHANGE; i++) memset(buf + pg[i] * page, atomic_step_byte(s), page);
  }
}
#endif
