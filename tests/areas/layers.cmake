# Calls flow down the layers (docs/ARCHITECTURE.md): each folder includes
# headers of the folders below it only (tests/tools/include_graph.sh).
#   core/     the MPI-free cores: nothing above them, no <mpi.h>
#   pager/    the user-level pager, MPI-free: core/ only
#   process/  process state, environment, quirks, report: core/ and <mpi.h>
#   pmpi/     MPI call shims and error codes: process/, core/ and <mpi.h>
set(_graph ${MPISW_SH} ${MPISW_TOOLS}/include_graph.sh ${PROJECT_SOURCE_DIR}/src)
add_test(NAME layers_core_includes    COMMAND ${_graph} core)
add_test(NAME layers_pager_includes   COMMAND ${_graph} pager core)
add_test(NAME layers_process_includes COMMAND ${_graph} process core mpi)
add_test(NAME layers_pmpi_includes    COMMAND ${_graph} pmpi process core mpi)
set_tests_properties(layers_core_includes layers_pager_includes layers_process_includes
                     layers_pmpi_includes PROPERTIES TIMEOUT 30 LABELS layers)
set_tests_properties(layers_pager_includes PROPERTIES LABELS "pager;layers")
