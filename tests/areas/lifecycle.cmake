# Window files and the job's life (issue 21): files of unique windows never
# outlive the job (leaked, killed, aborted; both backends, MPI_Info and
# MPISW_HINTS). ctest -L lifecycle
add_executable(t_lifecycle ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_lifecycle.c)
target_link_libraries(t_lifecycle PRIVATE mpisw_testlib mpisw m)
foreach(mode leak kill abort)
  foreach(how info env)
    foreach(backend mmap pager)
      mpisw_mpi_test(lifecycle_${mode}_${how}_${backend} PROG t_lifecycle NP 2
                     DRIVER ${MPISW_SH} ${MPISW_TOOLS}/lifecycle.sh ${mode} ${how} ${backend} 2 --
                     LABELS lifecycle)
    endforeach()
  endforeach()
endforeach()

# The MPI-free cores behind it: files without names, byte-range claims.
add_executable(test_claim ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_claim.c $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_claim PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(test_claim PRIVATE _GNU_SOURCE)
add_test(NAME unit_test_claim COMMAND test_claim)
set_tests_properties(unit_test_claim PROPERTIES TIMEOUT 30)
