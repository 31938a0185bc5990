# Intrinsic accumulates as processor atomics on node-shared storage windows
# (src/rmax/atomic.c, docs/RMA_EXTENSIONS.md): ctest -L intrinsic
add_executable(t_intrinsic ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_intrinsic.c)
target_link_libraries(t_intrinsic PRIVATE mpisw_testlib mpisw m)
mpisw_mpi_test(intrinsic_answers    PROG t_intrinsic ARGS answers    NP 1 2 LABELS intrinsic rmax)
mpisw_mpi_test(intrinsic_contention PROG t_intrinsic ARGS contention NP 2 4 LABELS intrinsic rmax)
mpisw_mpi_test(intrinsic_semantics  PROG t_intrinsic ARGS semantics  NP 2 3 LABELS intrinsic rmax)
mpisw_mpi_test(intrinsic_range      PROG t_intrinsic ARGS range      NP 2 4 LABELS intrinsic rmax)
mpisw_mpi_test(intrinsic_epoch      PROG t_intrinsic ARGS epoch      NP 2   LABELS intrinsic rmax)
