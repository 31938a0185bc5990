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
# Against scipy's linear_sum_assignment (tests/tools/lap_scipy.py): equal
# optimal totals on random matrices up to 2000 x 2000 (once), the same
# infeasible verdicts; bench/lap_solve runs our solver. Skips (77) without
# scipy (scripts/install-deps.sh installs it).
find_program(MPISW_LAP_PYTHON3 NAMES python3)
if(MPISW_LAP_PYTHON3)
  add_test(NAME unit_lap_scipy COMMAND ${MPISW_LAP_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/tools/lap_scipy.py check $<TARGET_FILE:lap_solve>)
  set_tests_properties(unit_lap_scipy PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS lap)
endif()
