/* The checkpoint module's table (process/module.h): sets still open at
 * MPI_Finalize are released (their files stay), a freed window leaves the
 * sets that protect it, and MPISW_REPORT gets one line per set
 * (record.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/internal.h"

/* The sets the program did not free: released (no MPI call is left to
 * them; their files stay). Their drains to PFS are waited for by the
 * staging module (stage_module.c), asked after this one. */
static void before_finalize(void) { mpisw_ckpt_free_all(); }

const struct mpisw_module mpisw_ckpt_module = {
    .name = "ckpt",
    .before_finalize = before_finalize,
    .report = mpisw_ckpt_report,
    .win_freed = mpisw_ckpt_win_freed,
};
