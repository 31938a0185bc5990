# The pager module (src/pager/) without MPI: its unit test links only the
# pager's and the core's objects, so it runs without mpiexec. ctest -L pager
find_package(Threads REQUIRED)
add_executable(test_pager ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pager.c
               $<TARGET_OBJECTS:mpisw_pager> $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_pager PRIVATE ${PROJECT_SOURCE_DIR}/src
                                              ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_pager PRIVATE _GNU_SOURCE)
target_link_libraries(test_pager PRIVATE Threads::Threads)
add_test(NAME unit_test_pager COMMAND test_pager)
set_tests_properties(unit_test_pager PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS pager)
