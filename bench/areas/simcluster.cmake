# The simulated cluster's link benchmark (bench/suite_simcluster.py, suite
# "simcluster"; issue 18's cluster to measure on): achieved bandwidth per
# link vs the configured rate, up and down times. simcluster_links.sh brings
# a cluster up, runs simcluster_bw in it, tears it down (root, MPICH's hydra).
add_executable(simcluster_bw ${PROJECT_SOURCE_DIR}/tests/mpi/t_simcluster.c)
target_link_libraries(simcluster_bw PRIVATE MPI::MPI_C)
set(SIMCLUSTER_TOOLS ${PROJECT_SOURCE_DIR}/tests/tools)
set(SIMCLUSTER_BW ${CMAKE_CURRENT_BINARY_DIR}/simcluster_bw)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/simcluster_links.sh.in
               ${CMAKE_CURRENT_BINARY_DIR}/simcluster_links.sh @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)

# bench_simcluster_tiny: the wrapper once, tiny; its records (MPICH, root).
if(BUILD_TESTING AND MPISW_MPI_FLAVOR STREQUAL "mpich")
  add_test(NAME bench_simcluster_tiny
           COMMAND ${PROJECT_SOURCE_DIR}/tests/tools/simcluster_bench_check.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/simcluster_links.sh)
  set_tests_properties(bench_simcluster_tiny PROPERTIES TIMEOUT 120 PROCESSORS 2
                       SKIP_RETURN_CODE 77 LABELS "bench;root;simcluster")
endif()
