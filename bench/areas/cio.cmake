# Collective I/O benchmarks (issue 18; bench/suite_cio.py, suite "cio";
# docs/COLLECTIVE_IO.md "Benchmarks and figures"): the source document's cube
# and BT-IO patterns, each strategy of mpisw's engine (mpisw_cb_strategy) and
# ROMIO untouched. Linked with the static library: the programs also build
# the engine's distance matrix (src/cio/topo_ranks.c) for their own model of
# each strategy's hop-bytes. cio_pattern.c is MPI-free (also the unit test's).
foreach(b cio_cube cio_btio)
  add_executable(${b} ${CMAKE_CURRENT_SOURCE_DIR}/${b}.c ${CMAKE_CURRENT_SOURCE_DIR}/cio_run.c
                      ${CMAKE_CURRENT_SOURCE_DIR}/cio_pattern.c)
  target_include_directories(${b} PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${b} PRIVATE _GNU_SOURCE)
  target_link_libraries(${b} PRIVATE mpisw_static m)
endforeach()

# The simulated cluster's runs (suite cio, MPICH's hydra, root): up, the
# program under each placement, down. Configured into BUILD/bench.
set(CIO_SIMCLUSTER_TOOLS ${PROJECT_SOURCE_DIR}/tests/tools)
set(CIO_BENCH_DIR ${CMAKE_CURRENT_BINARY_DIR})
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cio_simcluster.sh.in
               ${CMAKE_CURRENT_BINARY_DIR}/cio_simcluster.sh @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)

if(BUILD_TESTING)
  # unit_cio_patterns (no MPI): the cube's and BT-IO's communication
  # matrices C, and TATP's hop-bytes on them equal to the brute-force
  # optimum (every case <= 8 domains), <= OTP's and LATP's.
  add_executable(test_cio_patterns ${PROJECT_SOURCE_DIR}/tests/unit/test_cio_patterns.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/cio_pattern.c $<TARGET_OBJECTS:mpisw_core>)
  target_include_directories(test_cio_patterns PRIVATE ${PROJECT_SOURCE_DIR}/src
                             ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(test_cio_patterns PRIVATE _GNU_SOURCE)
  target_link_libraries(test_cio_patterns PRIVATE Threads::Threads m)
  add_test(NAME unit_cio_patterns COMMAND test_cio_patterns)
  set_tests_properties(unit_cio_patterns PROPERTIES TIMEOUT 60 LABELS "lap;cio")

  # bench_cio_tiny: both programs at 4 ranks, tiny, every side, written,
  # read back and checked; --corrupt must fail; no file left.
  string(REPLACE ";" " " _cio_preflags "${MPISW_MPIEXEC_PREFLAGS}")
  add_test(NAME bench_cio_tiny
           COMMAND ${MPISW_SH} ${PROJECT_SOURCE_DIR}/tests/tools/cio_bench_check.sh
                   ${MPISW_MPIEXEC} "${_cio_preflags}" $<TARGET_FILE:cio_cube>
                   $<TARGET_FILE:cio_btio>)
  set_tests_properties(bench_cio_tiny PROPERTIES TIMEOUT 120 PROCESSORS 2
                       LABELS "bench;cio;${MPISW_MPI_FLAVOR}")
  if(MPISW_MPIEXEC_ENV)
    set_tests_properties(bench_cio_tiny PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
  endif()
endif()
