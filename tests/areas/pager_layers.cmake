# The pager is its own MPI-free module (src/pager/) on top of src/core/:
# calls flow down, so pager/ includes only core/ headers (and never <mpi.h>),
# and core/ includes nothing from the folders above it (pager/ included).
add_test(NAME layers_core_includes
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/include_graph.sh ${PROJECT_SOURCE_DIR}/src core)
add_test(NAME layers_pager_includes
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/include_graph.sh ${PROJECT_SOURCE_DIR}/src pager core)
set_tests_properties(layers_core_includes layers_pager_includes PROPERTIES
                     TIMEOUT 30 LABELS "pager;layers")
