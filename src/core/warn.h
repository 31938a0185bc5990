/* Warnings of the MPI-free cores: one process speaks for the job, on one
 * stream (stderr; unit tests redirect it). */
#ifndef MPISW_CORE_WARN_H
#define MPISW_CORE_WARN_H

#include <stdio.h>

/* 1 in the process that speaks for the job: rank 0 as the launcher numbers
 * it (PMI_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, SLURM_PROCID), or a process
 * the launcher did not number. Only it prints warnings. */
int mpisw_config_speaker(void);

/* A warning: "mpisw: <text>" and a newline on the warning stream, printed by
 * the speaker only. */
void mpisw_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mpisw_set_warn_stream(FILE *f);
FILE *mpisw_warn_stream(void);

#endif
