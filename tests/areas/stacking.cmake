# A PMPI tool stacked with mpisw (issue 14): a tiny profiler (tests/stacking/
# prof.c) that counts MPI_Win_allocate, MPI_Win_free, MPI_Put,
# MPI_Accumulate, MPI_Get_accumulate, MPI_Win_flush, MPI_Win_get_attr,
# MPI_Win_attach and MPI_Win_detach and calls PMPI_X, in front of mpisw.
# t_stack checks that the profiler sees one call per user call and that
# mpisw's work still happens behind it; run_stack.sh checks MPISW_REPORT.
#   stacking_preload_np2  LD_PRELOAD="libmpisw_testprof.so:libmpisw-<mpi>.so"
#   stacking_linked_np2   the program linked with the profiler ahead of libmpisw
# ctest -L stacking
add_library(mpisw_testprof SHARED ${CMAKE_CURRENT_SOURCE_DIR}/stacking/prof.c)
target_link_libraries(mpisw_testprof PRIVATE MPI::MPI_C)

add_executable(t_stack_preload ${CMAKE_CURRENT_SOURCE_DIR}/stacking/t_stack.c)
target_link_libraries(t_stack_preload PRIVATE mpisw_testlib mpisw ${CMAKE_DL_LIBS})
add_executable(t_stack_linked ${CMAKE_CURRENT_SOURCE_DIR}/stacking/t_stack.c)
# The profiler first: it is found before libmpisw. The program reaches it
# only through dlsym, so keep it linked even under --as-needed.
target_link_libraries(t_stack_linked PRIVATE mpisw_testprof mpisw_testlib mpisw ${CMAKE_DL_LIBS})
target_link_options(t_stack_linked PRIVATE "LINKER:--no-as-needed")

set(_stack_env ${MPISW_MPIEXEC_ENV})
if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
  # Open MPI 4.1's osc/ucx crashes on dynamic windows with UCX's posix
  # transport (tests/areas/ompi_dynamic.cmake): the memory-handle step has one.
  list(APPEND _stack_env "UCX_TLS=^posix")
endif()
foreach(how preload linked)
  set(tn stacking_${how}_np2)
  if(how STREQUAL "preload")
    set(_cmd env LD_PRELOAD=$<TARGET_FILE:mpisw_testprof>:$<TARGET_FILE:mpisw>
             $<TARGET_FILE:t_stack_preload>)
    set(_labels "mpi;stacking;preload")
  else()
    set(_cmd $<TARGET_FILE:t_stack_linked>)
    set(_labels "mpi;stacking")
  endif()
  add_test(NAME ${tn}
           COMMAND ${MPISW_SH} ${CMAKE_CURRENT_SOURCE_DIR}/stacking/run_stack.sh 2 --
                   ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} -n 2 ${_cmd})
  set_tests_properties(${tn} PROPERTIES TIMEOUT ${MPISW_TEST_TIMEOUT} SKIP_RETURN_CODE 77
                       PROCESSORS 2 LABELS "${_labels}" ENVIRONMENT "${_stack_env}")
endforeach()
