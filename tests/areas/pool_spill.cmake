# Pooled files spilling to storage (issue 15, "a pool on storage windows
# (pager backend) larger than memory"): a pool whose MPISW_POOL_HINTS ask for
# storage_backend=pager really runs on the pager, and files three times the
# pager's memory limit are written, read back byte-exact across ranks, freed
# and reused as holes. Skips (77) where the pager cannot run.
# Also the benchmark driver's per-step environment (bench/harness/step.py,
# which suite pio_spill uses to give the pool its hints).
add_executable(t_pool_spill ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_pool_spill.c
               ${CMAKE_CURRENT_SOURCE_DIR}/mpi/testlib.c)
target_include_directories(t_pool_spill PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
target_link_libraries(t_pool_spill PRIVATE mpisw_static m Threads::Threads)
mpisw_mpi_test(pool_spill PROG t_pool_spill NP 2 4 LABELS pool pager
               ENV MPISW_POOL_SIZE=64M MPISW_TEST_POOL_DIR=/tmp MPISW_TEST_PAGER_MEMORY=8388608
               DRIVER env
               "MPISW_POOL_HINTS=alloc_type=storage$<SEMICOLON>storage_alloc_filename=/tmp$<SEMICOLON>storage_backend=pager$<SEMICOLON>storage_pager_memory=8M")
find_program(MPISW_SPILL_PYTHON3 NAMES python3)
if(MPISW_SPILL_PYTHON3)
  add_test(NAME bench_step_env
           COMMAND ${MPISW_SPILL_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/python/bench_check.py stepenv)
  set_tests_properties(bench_step_env PROPERTIES TIMEOUT 60 LABELS "bench")
endif()
