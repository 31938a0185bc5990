# The pager module (src/pager/) without MPI: its unit tests link only the
# pager's and the core's objects, so they run without mpiexec. ctest -L pager
# test_pager_shared: the pager's shared range (src/pager/pager_shared.c).
find_package(Threads REQUIRED)
function(mpisw_pager_unit_test name labels)
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/unit/${name}.c
                 $<TARGET_OBJECTS:mpisw_pager> $<TARGET_OBJECTS:mpisw_core>)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src
                                             ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  target_link_libraries(${name} PRIVATE Threads::Threads)
  add_test(NAME unit_${name} COMMAND ${name})
  set_tests_properties(unit_${name} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
                       LABELS "${labels}")
endfunction()
mpisw_pager_unit_test(test_pager pager)
mpisw_pager_unit_test(test_pager_shared "pager;pager_rma")
