# The simulated cluster (tests/tools/simcluster.sh): network namespaces as
# nodes, bridges as a two-level switch tree, tc-shaped veth links, hydra
# launching into them. MPICH only; needs root (skips otherwise).
# ctest -L simcluster
add_executable(t_simcluster ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_simcluster.c)
target_link_libraries(t_simcluster PRIVATE MPI::MPI_C)
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  add_test(NAME simcluster_tree
           COMMAND ${MPISW_TOOLS}/simcluster_check.sh $<TARGET_FILE:t_simcluster> m)
  mpisw_mpi_props(simcluster_tree 2 "mpi;root;simcluster" SIMCLUSTER_MPIEXEC=${MPISW_MPIEXEC})
  # Bad names, rates, options, placements; an up that fails half-way.
  add_test(NAME simcluster_errors COMMAND ${MPISW_TOOLS}/simcluster_errors.sh)
  set_tests_properties(simcluster_errors PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
                       LABELS "root;simcluster")
endif()
