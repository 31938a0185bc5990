# The assignment solver and the aggregator strategies of collective I/O
# (issue 18; src/core/lap.c, cb_assign.c; docs/COLLECTIVE_IO.md "The
# assignment solver"). ctest -L lap
# Unit, no MPI: brute-force optimality on every case with <= 8 domains,
# TATP <= OTP and LATP, errors, cb_nodes=auto's model.
add_executable(test_lap ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_lap.c $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_lap PRIVATE ${PROJECT_SOURCE_DIR}/src
                                            ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_lap PRIVATE _GNU_SOURCE)
target_link_libraries(test_lap PRIVATE Threads::Threads m)
add_test(NAME unit_test_lap COMMAND test_lap)
set_tests_properties(unit_test_lap PROPERTIES TIMEOUT 60 LABELS lap)
