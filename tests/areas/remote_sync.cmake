# Remote sync (storage_sync_scope=remote, MPIX_Win_sync_target; src/win/remote_*.c,
# docs/DURABILITY.md "Remote sync"): ctest -L remote_sync
add_executable(t_remote_sync ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_remote_sync.c)
target_link_libraries(t_remote_sync PRIVATE mpisw_testlib mpisw m)
mpisw_mpi_test(remote_sync_busy_mmap   PROG t_remote_sync ARGS busy mmap    NP 2 3 LABELS remote_sync)
mpisw_mpi_test(remote_sync_busy_pager  PROG t_remote_sync ARGS busy pager   NP 2   LABELS remote_sync)
# RMA that completes while the targets compute needs an MPI whose one-node
# windows are shared memory (Open MPI's osc/sm); MPICH 4.0 over UCX waits
# for the target to enter MPI even to open an epoch.
if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
  mpisw_mpi_test(remote_sync_during_mmap PROG t_remote_sync ARGS during mmap NP 2 3 LABELS remote_sync)
endif()
mpisw_mpi_test(remote_sync_target_mmap PROG t_remote_sync ARGS target mmap  NP 3   LABELS remote_sync)
mpisw_mpi_test(remote_sync_target_pager PROG t_remote_sync ARGS target pager NP 3  LABELS remote_sync)
mpisw_mpi_test(remote_sync_dead_pager  PROG t_remote_sync ARGS dead pager   NP 2   LABELS remote_sync
               ENV MPISW_REMOTE_SYNC_TIMEOUT=2)
mpisw_mpi_test(remote_sync_dead_mmap   PROG t_remote_sync ARGS dead mmap    NP 2   LABELS remote_sync
               ENV MPISW_REMOTE_SYNC_TIMEOUT=2)
mpisw_mpi_test(remote_sync_ranges      PROG t_remote_sync ARGS ranges mmap  NP 2   LABELS remote_sync)
mpisw_mpi_test(remote_sync_alone       PROG t_remote_sync ARGS alone mmap   NP 2   LABELS remote_sync)
mpisw_multinode_test(mpi_remote_sync_multinode_mmap  PROG t_remote_sync ARGS busy mmap  LABELS remote_sync)
mpisw_multinode_test(mpi_remote_sync_multinode_pager PROG t_remote_sync ARGS busy pager LABELS remote_sync)
mpisw_multinode_test(mpi_remote_sync_multinode_ranges PROG t_remote_sync ARGS ranges mmap LABELS remote_sync)
