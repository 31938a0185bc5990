# Calls flow down the layers (docs/ARCHITECTURE.md): each folder includes
# headers of the folders below it only (tests/tools/include_graph.sh).
#   core/     the MPI-free cores: nothing above them, no <mpi.h>
#   pager/    the user-level pager, MPI-free: core/ only
#   process/  process state, environment, quirks, report: core/ and <mpi.h>
#   pmpi/     MPI call shims and error codes: process/, core/ and <mpi.h>
#   win/      windows on storage: pmpi/, process/, pager/, core/
#   rmax/     RMA extensions: win/ and below
#   kvcache/  the key-value store (public mpisw_kv_*): win/ and below
#   pool/     the pool of pooled files: win/ and below
#   ckpt/     checkpoints (public mpisw_ckpt_*, staging's drain thread): win/ and below
#   dispatch/ what each interposed call does: ckpt/, cio/, pfile/, rmax/, win/ and below
#   interpose/ the entry points: dispatch/, rmax/ and below
#   topo/     collective I/O's topology model, MPI-free: core/ only (and hwloc)
#   cio/      collective I/O: pfile/ and below, topo/
set(_graph ${MPISW_SH} ${MPISW_TOOLS}/include_graph.sh ${PROJECT_SOURCE_DIR}/src)
add_test(NAME layers_core_includes    COMMAND ${_graph} core)
add_test(NAME layers_pager_includes   COMMAND ${_graph} pager core)
add_test(NAME layers_process_includes COMMAND ${_graph} process core mpi)
add_test(NAME layers_pmpi_includes    COMMAND ${_graph} pmpi process core mpi)
add_test(NAME layers_win_includes     COMMAND ${_graph} win pmpi process pager core mpi)
add_test(NAME layers_rmax_includes    COMMAND ${_graph} rmax win pmpi process pager core mpi)
add_test(NAME layers_kvcache_includes COMMAND ${_graph} kvcache win pmpi process pager core mpi)
add_test(NAME layers_pool_includes    COMMAND ${_graph} pool win pmpi process pager core mpi)
add_test(NAME layers_ckpt_includes    COMMAND ${_graph} ckpt win pmpi process pager core mpi)
add_test(NAME layers_dispatch_includes
         COMMAND ${_graph} dispatch ckpt cio pfile pool rmax win pmpi process pager core mpi)
add_test(NAME layers_interpose_includes
         COMMAND ${_graph} interpose dispatch ckpt pfile pool rmax win pmpi process pager core mpi)
# The library never calls its own MPI_X / PMPI_X from inside (a PMPI tool
# stacked in front would count calls the user never made).
add_test(NAME layers_no_reentry COMMAND ${MPISW_SH} ${MPISW_TOOLS}/no_reentry.sh
         ${PROJECT_SOURCE_DIR}/src)
set_tests_properties(layers_core_includes layers_pager_includes layers_process_includes
                     layers_pmpi_includes layers_win_includes layers_rmax_includes
                     layers_kvcache_includes layers_pool_includes layers_ckpt_includes
                     layers_dispatch_includes
                     layers_interpose_includes layers_no_reentry
                     PROPERTIES TIMEOUT 30 LABELS layers)
set_tests_properties(layers_pager_includes PROPERTIES LABELS "pager;layers")
# Pooled files: pfile/ builds on the pool and below; dispatch/ may call it.
add_test(NAME layers_pfile_includes
         COMMAND ${_graph} pfile pool win pmpi process pager core mpi)
set_tests_properties(layers_pfile_includes PROPERTIES TIMEOUT 30 LABELS layers)
# Collective I/O's topology model, MPI-free: topo/ builds on core/ only (and
# hwloc); cio/, the collective I/O module, on pfile/ and below and topo/.
add_test(NAME layers_topo_includes COMMAND ${_graph} topo core)
add_test(NAME layers_cio_includes
         COMMAND ${_graph} cio topo pfile pool win pmpi process pager core mpi)
set_tests_properties(layers_topo_includes layers_cio_includes PROPERTIES TIMEOUT 30 LABELS
                     "layers;topo")
