/* The process module: MPI bugs worked around before MPI_Init (quirks.c) and
 * what the program has not freed yet (leaks.c). */
#include "process/module.h"
#include "process/process.h"

static void created(MPI_Win win, MPI_Info info, int flavor, void *base, MPI_Aint size) {
  mpisw_open_win(win, size);
}

static void mem_allocated(void *base, MPI_Aint size) { mpisw_open_mem(base, size); }
static void mem_freed(void *base) { mpisw_closed_mem(base); }

const struct mpisw_module mpisw_process_module = {
    .name = "process",
    .before_init = mpisw_quirks_before_init,
    .win_created = created,
    .win_freed = mpisw_closed_win,
    .mem_allocated = mem_allocated,
    .mem_freed = mem_freed,
};
