# Every storage window kind on the node-shared route (src/win/node_shared.c,
# issue 19 item 5): combined windows, MPI_Win_create over MPI_Alloc_mem
# storage, storage shared windows; RMA across the memory/storage boundary,
# the route in MPI_Win_get_info. ctest -L kinds_route
add_executable(t_kinds_route ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_kinds_route.c)
target_link_libraries(t_kinds_route PRIVATE mpisw_testlib mpisw m)
foreach(kind combined create shared)
  foreach(mode on off default)
    mpisw_mpi_test(kinds_route_${kind}_${mode} PROG t_kinds_route ARGS ${kind} ${mode}
                   NP 1 2 4 LABELS kinds_route)
  endforeach()
endforeach()
