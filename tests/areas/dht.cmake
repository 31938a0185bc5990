# The DHT application (apps/dht): correctness for every window kind at 1, 2
# and 4 ranks, the out-of-core run under MPISW_MEMORY_LIMIT, and each exit
# code. tools/dhtcheck.sh checks the exit code, the JSON line (verify ok,
# bytes on storage, memory within the budget) and that no file is left.
# 4 ranks oversubscribe 2 cores, where each MPICH atomic waits for a busy-
# polling peer: tiny tables there.
if(EXISTS ${PROJECT_SOURCE_DIR}/apps/dht/main.c)  # built by apps/, added after tests/
  function(mpisw_dht_test name np rc check)
    cmake_parse_arguments(T "" "" "ARGS;ENV" ${ARGN})
    set(tn dht_${name}_np${np})
    add_test(NAME ${tn}
             COMMAND ${MPISW_SH} ${MPISW_TOOLS}/dhtcheck.sh ${rc} ${check} ${T_ENV} --
                     ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} -n ${np}
                     $<TARGET_FILE:dht> ${T_ARGS})
    set_tests_properties(${tn} PROPERTIES TIMEOUT ${MPISW_TEST_TIMEOUT} PROCESSORS ${np}
                         LABELS "mpi;dht")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(${tn} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endfunction()

  # name: check: dht options
  set(_kinds
    "memory:memory:--kind memory"
    "storage:storage:--kind storage"
    "combined_mf:storage:--kind combined --factor 0.5 --order memory_first"
    "combined_sf:storage:--kind combined --factor 0.5 --order storage_first"
    "auto:memory:--kind auto")
  foreach(k IN LISTS _kinds)
    string(REPLACE ":" ";" k "${k}")
    list(GET k 0 name)
    list(GET k 1 check)
    list(GET k 2 opts)
    separate_arguments(opts UNIX_COMMAND "${opts}")
    foreach(np 1 2 4)
      if(np EQUAL 4)
        set(elements 128)
      else()
        set(elements 2048)
      endif()
      mpisw_dht_test(${name} ${np} 0 ${check}
                     ARGS --elements ${elements} --path @DIR@ ${opts})
    endforeach()
  endforeach()

  # Out of core: 8 KiB of memory per process, the table is larger; auto puts
  # the excess on storage and completes, memory windows stop with exit 3.
  foreach(np 1 2 4)
    if(np EQUAL 4)
      set(elements 128)
    else()
      set(elements 2048)
    endif()
    mpisw_dht_test(outofcore_auto ${np} 0 outofcore ENV MPISW_MEMORY_LIMIT=8K
                   ARGS --elements ${elements} --path @DIR@ --kind auto)
  endforeach()
  foreach(np 1 2)
    mpisw_dht_test(outofcore_memory ${np} 3 budget ENV MPISW_MEMORY_LIMIT=8K
                   ARGS --elements 2048 --kind memory)
  endforeach()
  # The same budget through the DHT's own option (what the benchmark uses).
  mpisw_dht_test(memory_limit_option 2 0 outofcore
                 ARGS --elements 2048 --path @DIR@ --kind auto --memory-limit 8K)
  mpisw_dht_test(memory_limit_option_memory 2 3 budget
                 ARGS --elements 2048 --kind memory --memory-limit 8K)
  # Without MPISW_MEMORY_LIMIT: a memory table larger than the machine is
  # refused before anything is allocated.
  mpisw_dht_test(too_large_memory 2 3 budget ARGS --elements 64G --kind memory)
  mpisw_dht_test(heap_full 2 5 heapfull ARGS --elements 1024 --heap-factor 0.01)
  mpisw_dht_test(bad_option 1 2 usage ARGS --kind disk)
  mpisw_dht_test(no_such_path 2 4 allocerr
                 ARGS --elements 1024 --kind storage --path /nonexistent-mpisw-dir/t-%r)
endif()
