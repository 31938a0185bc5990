# storage_sync=atomic (issue 16 item 1, docs/DURABILITY.md "Atomic sync").
# Unit: the redo journal and the private mapping's sync without MPI, with 100
# kill -9 trials of a forked process during syncs. ctest -L atomic
add_executable(test_journal ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_journal.c
               $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_journal PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_journal PRIVATE _GNU_SOURCE)
add_test(NAME unit_test_journal COMMAND test_journal 100)
set_tests_properties(unit_test_journal PROPERTIES TIMEOUT 60 LABELS "atomic;durability")
