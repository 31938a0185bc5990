# Staging of checkpoints (issue 16): the drain thread and copy engine of
# src/ckpt/stage.c, stage_copy.c without MPI (no mpiexec). ctest -L stage
find_package(Threads REQUIRED)
add_executable(test_stage ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_stage.c
               ${PROJECT_SOURCE_DIR}/src/ckpt/stage.c ${PROJECT_SOURCE_DIR}/src/ckpt/stage_copy.c
               $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_stage PRIVATE ${PROJECT_SOURCE_DIR}/src
                                              ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_stage PRIVATE _GNU_SOURCE)
target_link_libraries(test_stage PRIVATE Threads::Threads)
add_test(NAME unit_test_stage COMMAND test_stage)
set_tests_properties(unit_test_stage PROPERTIES TIMEOUT 60 LABELS "stage;ckpt")
# The slow file system of checkpoint benchmarks (tests/tools/slowfs.sh): bad
# input refused, the cap holds, down leaves nothing behind. Root (skips).
add_test(NAME slowfs_updown COMMAND ${MPISW_SH} ${MPISW_TOOLS}/slowfs_check.sh)
set_tests_properties(slowfs_updown PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS "stage;root")
