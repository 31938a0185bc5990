# Which MPI the library is built for (src/process/identity.c, issue 13): the
# library preloaded into a program of the other MPI says so in one line and
# exits non-zero, without a signal. The MPICH build tests MPICH's library in an
# Open MPI program, the Open MPI build the reverse. ctest -L identity
set(_id ${CMAKE_CURRENT_SOURCE_DIR}/identity)
foreach(np 1 2)
  add_test(NAME identity_wrong_mpi_np${np}
           COMMAND ${MPISW_SH} ${_id}/wrong_mpi.sh $<TARGET_FILE:mpisw> ${MPISW_MPI_FLAVOR}
                   ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_plain.c ${np})
  set_tests_properties(identity_wrong_mpi_np${np} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
                       PROCESSORS ${np} LABELS "mpi;preload;identity")
endforeach()
# The other MPI loaded after the library (dlopen, as mpi4py does): MPI_Init
# catches it. late_mpi links no MPI at all.
add_executable(late_mpi ${_id}/late_mpi.c)
target_link_libraries(late_mpi PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME identity_late_mpi
         COMMAND ${MPISW_SH} ${_id}/late_check.sh $<TARGET_FILE:mpisw> ${MPISW_MPI_FLAVOR}
                 $<TARGET_FILE:late_mpi>)
set_tests_properties(identity_late_mpi PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
                     LABELS "preload;identity")
