# The pool of pooled files (src/pool/, docs/POOLED_FILES.md "The pool"):
# ctest -L pool. t_pool calls the pool's internal interface, so it links the
# static library (the shared one hides it) and sees src/.
add_executable(t_pool ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_pool.c ${CMAKE_CURRENT_SOURCE_DIR}/mpi/testlib.c)
target_include_directories(t_pool PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
target_link_libraries(t_pool PRIVATE mpisw_static m Threads::Threads)
set(_pool_env MPISW_POOL_SIZE=64M)
mpisw_mpi_test(pool_basic   PROG t_pool ARGS basic   NP 1 2 4 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_excl    PROG t_pool ARGS excl    NP 2 4   ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_stripes PROG t_pool ARGS stripes NP 1 2 4 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_sizes   PROG t_pool ARGS sizes   NP 1 2 4 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_reuse   PROG t_pool ARGS reuse   NP 1 2 4 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_busy    PROG t_pool ARGS busy    NP 2 4   ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_shptr   PROG t_pool ARGS shptr   NP 1 2 4 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_threads PROG t_pool ARGS threads NP 1 2 ENV ${_pool_env} LABELS pool)
mpisw_mpi_test(pool_locks   PROG t_pool ARGS locks   NP 2 4   ENV ${_pool_env} LABELS pool)
# A small pool fills: NOSPACE on the writing rank, earlier data intact.
mpisw_mpi_test(pool_full    PROG t_pool ARGS full    NP 1 2   ENV MPISW_POOL_SIZE=8M LABELS pool)
# No pool: MPISW_POOL_SIZE=0, or a bad MPISW_POOL_HINTS, and the reason.
mpisw_mpi_test(pool_none    PROG t_pool ARGS nopool MPISW_POOL_SIZE=0 NP 1 2
               ENV MPISW_POOL_SIZE=0 LABELS pool)
mpisw_mpi_test(pool_disabled PROG t_pool ARGS nopool MPISW_DISABLE=1 NP 2
               ENV MPISW_DISABLE=1 LABELS pool)
mpisw_mpi_test(pool_badhint PROG t_pool ARGS nopool alloc_typ NP 2
               ENV MPISW_POOL_SIZE=8M MPISW_POOL_HINTS=alloc_typ=storage LABELS pool)
# (a ';' inside one variable: $<SEMICOLON> through env, CMake lists split it)
mpisw_mpi_test(pool_notdir  PROG t_pool ARGS nopool "is not a directory" NP 2
               ENV MPISW_POOL_SIZE=8M LABELS pool DRIVER env
               "MPISW_POOL_HINTS=alloc_type=storage$<SEMICOLON>storage_alloc_filename=/etc/passwd")
# More than /dev/shm holds: refused at MPI_Init (a write would die of SIGBUS).
mpisw_mpi_test(pool_shm_full PROG t_pool ARGS nopool "larger than the free space of /dev/shm"
               NP 2 ENV MPISW_POOL_SIZE=1T LABELS pool)
# A pool on local storage larger than the memory cgroup (256 MiB): 384 MiB
# written and read back.
mpisw_mpi_test(pool_storage PROG t_pool ARGS storage NP 2 LABELS pool root
               ENV MPISW_POOL_SIZE=512M
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/cgroupdrv.sh 268435456 -- env
               "MPISW_POOL_HINTS=alloc_type=storage$<SEMICOLON>storage_alloc_filename=/tmp")
# Across two simulated nodes: RMA between them, memcpy within each.
mpisw_multinode_test(pool_multinode_np4 PROG t_pool ARGS multinode LABELS pool)
