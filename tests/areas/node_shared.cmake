# Storage windows on the MPI's node-shared window (src/win/node_shared.c):
# RMA into per-rank files through shifted segments. ctest -L node_shared
add_executable(t_node_shared ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_node_shared.c)
target_link_libraries(t_node_shared PRIVATE mpisw_testlib mpisw m)
foreach(mode on off default)
  mpisw_mpi_test(node_shared_${mode} PROG t_node_shared ARGS ${mode} NP 1 2 4 LABELS node_shared)
endforeach()
# Asked for across (simulated) nodes, it falls back with RMA intact: MPICH's
# fork launcher gives each host name its own node.
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  add_test(NAME node_shared_multinode_np4
           COMMAND ${MPISW_SH} ${MPISW_TOOLS}/multinode.sh ${MPISW_MPIEXEC} 2 2
                   $<TARGET_FILE:t_node_shared> multinode)
  set_tests_properties(node_shared_multinode_np4 PROPERTIES TIMEOUT ${MPISW_TEST_TIMEOUT}
                       SKIP_RETURN_CODE 77 PROCESSORS 4 LABELS "mpi;root;multinode;node_shared")
  if(MPISW_MPIEXEC_ENV)
    set_tests_properties(node_shared_multinode_np4 PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
  endif()
endif()
