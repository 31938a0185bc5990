# Checkpoints (issue 16, src/ckpt/, docs/CHECKPOINTS.md): the API on every
# kind of region and a restart in a new job, incremental writes, corrupt
# versions rejected, a full LOCAL file system, bad input, and kill -9 at
# random instants during checkpoints. ctest -L ckpt
add_executable(t_ckpt ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_ckpt.c)
target_link_libraries(t_ckpt PRIVATE mpisw_testlib mpisw m)

set(_ckj ${MPISW_SH} ${MPISW_TOOLS}/ckpt_jobs.sh)
mpisw_mpi_test(ckpt_api PROG t_ckpt NP 1 2 4 LABELS ckpt DRIVER ${_ckj} api --)
mpisw_mpi_test(ckpt_incremental PROG t_ckpt ARGS incr NP 1 2 LABELS ckpt)
mpisw_mpi_test(ckpt_corrupt PROG t_ckpt NP 1 2 4 LABELS ckpt
               DRIVER ${_ckj} corrupt
                      "mpisw_ckpt_restart: checkpoint 'bad' rank 0: checkpoint image '[^']*bad\\.r0\\.s2\\.ckpt': checksum mismatch in chunk 3 of region 0"
                      "checkpoint image '[^']*bad\\.r[0-9]\\.s1\\.ckpt': header checksum mismatch; not used"
                      --)
mpisw_mpi_test(ckpt_nospace PROG t_ckpt ARGS full NP 1 2 LABELS "ckpt;root"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/mountdrv.sh tmpfs8m --)
mpisw_mpi_test(ckpt_badinfo PROG t_ckpt ARGS badinfo NP 1 2 LABELS ckpt)
