# Storage windows on the MPI's node-shared window (src/win/node_shared.c):
# RMA into per-rank files through shifted segments. ctest -L node_shared
add_executable(t_node_shared ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_node_shared.c)
target_link_libraries(t_node_shared PRIVATE mpisw_testlib mpisw m)
foreach(mode on off default)
  mpisw_mpi_test(node_shared_${mode} PROG t_node_shared ARGS ${mode} NP 1 2 4 LABELS node_shared)
endforeach()
# Asked for across (simulated) nodes, it falls back with RMA intact.
mpisw_multinode_test(node_shared_multinode_np4 PROG t_node_shared ARGS multinode LABELS node_shared)
