/* The library's modules, in the order they are asked: the windows on
 * storage first (they make the window the others then see), the RMA
 * extensions, pooled files (then the pool they live in, made on the
 * windows), the process's bookkeeping last; checkpoints, above them all,
 * first. A new module adds its table
 * (process/module.h) here. */
#include "cio/cio.h"
#include "ckpt/internal.h"
#include "ckpt/stage_module.h"
#include "dispatch/dispatch.h"
#include "pfile/pfile.h"
#include "process/module.h"
#include "pool/pool.h"
#include "process/process.h"
#include "rmax/api.h"
#include "win/internal.h"

static const struct mpisw_module *const modules[] = {
    &mpisw_ckpt_module, /* checkpoint sets let go before their windows */
    &mpisw_win_module,
    &mpisw_rmax_module,
    &mpisw_pfile_module, /* closes pooled files before the pool goes */
    &mpisw_cio_module,   /* the collective I/O engine's report line */
    &mpisw_pool_module,
    &mpisw_stage_module, /* MPI_Finalize waits for checkpoint drains to PFS */
    &mpisw_process_module,
};
#define EACH(m)                                                              \
  if (!mpisw_disabled)                                                       \
    for (const struct mpisw_module *const *m = modules;                      \
         m < modules + sizeof modules / sizeof modules[0]; m++)

void mpisw_modules_before_init(void) {
  EACH(m) if ((*m)->before_init) (*m)->before_init();
}

void mpisw_modules_after_init(void) {
  EACH(m) if ((*m)->after_init) (*m)->after_init();
}

void mpisw_modules_before_finalize(void) {
  EACH(m) if ((*m)->before_finalize) (*m)->before_finalize();
}

void mpisw_modules_report(void) {
  EACH(m) if ((*m)->report) (*m)->report();
}

void mpisw_modules_win_created(MPI_Win win, MPI_Info info, int flavor, void *base,
                               MPI_Aint size) {
  EACH(m) if ((*m)->win_created) (*m)->win_created(win, info, flavor, base, size);
}

void mpisw_modules_win_freed(MPI_Win was) {
  EACH(m) if ((*m)->win_freed) (*m)->win_freed(was);
}

void mpisw_modules_mem_allocated(void *base, MPI_Aint size) {
  EACH(m) if ((*m)->mem_allocated) (*m)->mem_allocated(base, size);
}

void mpisw_modules_mem_freed(void *base) {
  EACH(m) if ((*m)->mem_freed) (*m)->mem_freed(base);
}
