# Every storage window kind on the node-shared route (src/win/node_shared.c,
# issue 19 item 5): combined windows, MPI_Win_create over MPI_Alloc_mem
# storage, storage shared windows; RMA across the memory/storage boundary,
# the route in MPI_Win_get_info. ctest -L kinds_route
add_executable(t_kinds_route ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_kinds_route.c)
target_link_libraries(t_kinds_route PRIVATE mpisw_testlib mpisw m)
# make test: the route at 2 and 4 ranks, and one rank (never routed) where
# the default is asked. The MPI_Win_create path (off) and the default at 2
# ranks (the same as on or off, per MPI) under label extended, for make
# test's budget.
foreach(kind combined create shared)
  mpisw_mpi_test(kinds_route_${kind}_on PROG t_kinds_route ARGS ${kind} on NP 2 4
                 LABELS kinds_route)
  mpisw_mpi_test(kinds_route_${kind}_default PROG t_kinds_route ARGS ${kind} default NP 1
                 LABELS kinds_route)
  mpisw_mpi_test(kinds_route_${kind}_off PROG t_kinds_route ARGS ${kind} off NP 2
                 LABELS kinds_route extended)
  mpisw_mpi_test(kinds_route_${kind}_default2 PROG t_kinds_route ARGS ${kind} default NP 2
                 LABELS kinds_route extended)
endforeach()
