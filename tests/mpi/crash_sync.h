/* The pattern of t_crash_sync (written) and crash_sync_check (checked). */
#ifndef MPISW_TEST_CRASH_SYNC_H
#define MPISW_TEST_CRASH_SYNC_H

#define CRASH_PAGES 64
/* Every word of page p after step k: k and p, so a word from another page
 * or an older step is told apart. */
#define CRASH_WORD(k, p) (((uint64_t)(k) << 20) | (uint64_t)(p) | ((uint64_t)1 << 63))

#endif
