# Shared file pointers of pooled files, one per collective open (issue 15,
# docs/POOLED_FILES.md "Limits and differences"): two communicators on one
# file at once, MPI_COMM_SELF opens, APPEND, no slot leak, running out; the
# file's communicator (cached duplicate, freed communicators).
# t_pfile_shptr counts the pool's slots, so it links the static library.
add_executable(t_pfile_shptr ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_pfile_shptr.c
               ${CMAKE_CURRENT_SOURCE_DIR}/mpi/testlib.c)
target_include_directories(t_pfile_shptr PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
target_link_libraries(t_pfile_shptr PRIVATE mpisw_static m Threads::Threads)
set(_shptr_env MPISW_POOL_SIZE=64M)
mpisw_mpi_test(pfile_shptr_halves  PROG t_pfile_shptr ARGS halves  NP 2 4   ENV ${_shptr_env} LABELS pfile)
mpisw_mpi_test(pfile_shptr_self    PROG t_pfile_shptr ARGS self    NP 1 2 4 ENV ${_shptr_env} LABELS pfile)
mpisw_mpi_test(pfile_shptr_append  PROG t_pfile_shptr ARGS append  NP 1 2 4 ENV ${_shptr_env} LABELS pfile)
mpisw_mpi_test(pfile_shptr_leak    PROG t_pfile_shptr ARGS leak 2000 NP 1 2 ENV ${_shptr_env} LABELS pfile)
# 4 busy-polling ranks on 2 cores: each open and close waits for a timeslice;
# still more loops than the 768 slots of 4 ranks
mpisw_mpi_test(pfile_shptr_leak800 PROG t_pfile_shptr ARGS leak 800 NP 4 ENV ${_shptr_env} LABELS pfile)
mpisw_mpi_test(pfile_shptr_exhaust PROG t_pfile_shptr ARGS exhaust NP 1 2 4 ENV ${_shptr_env} LABELS pfile)
mpisw_mpi_test(pfile_shptr_comms   PROG t_pfile_shptr ARGS comms   NP 1 2 4 ENV ${_shptr_env} LABELS pfile)
# across simulated nodes: the slots reached with MPI atomics (the rma path)
mpisw_multinode_test(pfile_shptr_multinode PROG t_pfile_shptr ARGS halves LABELS pfile)
