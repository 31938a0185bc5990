# Staging's module in MPI jobs (src/ckpt/stage_module.c): MPI_Finalize waits
# for pending drains; MPISW_REPORT's staging line; a failed drain said at
# MPI_Finalize. ctest -L stage
add_executable(t_stage ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_stage.c)
target_include_directories(t_stage PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_stage PRIVATE mpisw_static m Threads::Threads)
mpisw_mpi_test(stage_finalize PROG t_stage ARGS finalize NP 1 2 LABELS "stage;ckpt")
mpisw_mpi_test(stage_report PROG t_stage ARGS report NP 2 LABELS "stage;ckpt" ENV MPISW_REPORT=1
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/expect_stderr.sh
                      "once:mpisw:   staging: 16 checkpoint images drained to PFS, 2 failed" "has: 64.0 MiB in "
                      "once:mpisw: MPI_Finalize: rank 0: a checkpoint drain to PFS failed: stage: cannot open"
                      "once:mpisw: MPI_Finalize: rank 1: a checkpoint drain to PFS failed: stage: cannot open" --)
# The PFS level wired into the checkpoint API (src/ckpt/pfs.c): drains,
# status, pruning, restart from PFS when LOCAL is gone, staging off, drain
# errors, MPI_Finalize waiting. Linked with libmpisw.a (image checks).
add_executable(t_ckpt_pfs ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_ckpt_pfs.c)
target_include_directories(t_ckpt_pfs PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_ckpt_pfs PRIVATE mpisw_testlib mpisw_static m Threads::Threads)
mpisw_mpi_test(ckpt_pfs_drain PROG t_ckpt_pfs ARGS drain NP 1 2 LABELS "stage;ckpt")
mpisw_mpi_test(ckpt_pfs_sync PROG t_ckpt_pfs ARGS sync NP 1 2 LABELS "stage;ckpt")
mpisw_mpi_test(ckpt_pfs_fail PROG t_ckpt_pfs ARGS fail NP 2 LABELS "stage;ckpt")
mpisw_mpi_test(ckpt_pfs_finalize PROG t_ckpt_pfs ARGS finalize NP 1 2 LABELS "stage;ckpt")
