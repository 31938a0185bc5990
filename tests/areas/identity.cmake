# Which MPI the library is built for (src/win/identity.c, issue 13): the
# library preloaded into a program of the other MPI says so in one line and
# exits non-zero, without a signal. The MPICH build tests MPICH's library in an
# Open MPI program, the Open MPI build the reverse. ctest -L identity
foreach(np 1 2)
  add_test(NAME identity_wrong_mpi_np${np}
           COMMAND ${MPISW_SH} ${MPISW_TOOLS}/wrong_mpi.sh $<TARGET_FILE:mpisw> ${MPISW_MPI_FLAVOR}
                   ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_plain.c ${np})
  set_tests_properties(identity_wrong_mpi_np${np} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
                       PROCESSORS ${np} LABELS "mpi;preload;identity")
endforeach()
