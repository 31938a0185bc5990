# RMA extensions (src/rmax/, docs/RMA_EXTENSIONS.md): ctest -L rmax
add_executable(t_rmax ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_rmax.c)
target_link_libraries(t_rmax PRIVATE mpisw_testlib mpisw m Threads::Threads)

foreach(kind memory storage)
  mpisw_mpi_test(rmax_duplock_${kind}   PROG t_rmax ARGS duplock ${kind}   NP 1 2 4 LABELS rmax)
  mpisw_mpi_test(rmax_info_${kind}      PROG t_rmax ARGS info ${kind}      NP 1 2   LABELS rmax)
  mpisw_mpi_test(rmax_memhandle_${kind} PROG t_rmax ARGS memhandle ${kind} NP 1 2 4 LABELS rmax)
  mpisw_mpi_test(rmax_order_${kind}     PROG t_rmax ARGS order ${kind}     NP 2 3   LABELS rmax)
  mpisw_mpi_test(rmax_rrput_${kind}     PROG t_rmax ARGS rrput ${kind}     NP 1 2 4 LABELS rmax)
endforeach()
mpisw_mpi_test(rmax_intrinsic PROG t_rmax ARGS intrinsic memory NP 1 2 LABELS rmax)
mpisw_mpi_test(rmax_duplimit  PROG t_rmax ARGS duplimit memory  NP 1   LABELS rmax)
# no arena: memory handles on MPI_Alloc_mem memory take the dynamic-window path
mpisw_mpi_test(rmax_memhandle_noarena PROG t_rmax ARGS memhandle memory NP 2
               ENV MPISW_ARENA_SIZE=0 LABELS rmax)
