# Collective I/O's topology model (src/topo/, src/cio/topo_ranks.c,
# tools/mpisw-topo.c; docs/COLLECTIVE_IO.md "The topology model"). ctest -L topo

# MPI-free: hostlists, topology.conf and its errors, distances, link loads,
# distances inside a node on synthetic hwloc machines.
add_executable(test_topo ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_topo.c
               $<TARGET_OBJECTS:mpisw_topo> $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_topo PRIVATE ${PROJECT_SOURCE_DIR}/src
                                             ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_topo PRIVATE _GNU_SOURCE)
target_link_libraries(test_topo PRIVATE hwloc Threads::Threads)
add_test(NAME unit_test_topo COMMAND test_topo)
set_tests_properties(unit_test_topo PROPERTIES TIMEOUT 30 LABELS topo)
