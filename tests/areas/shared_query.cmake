# MPI_Win_shared_query on storage shared windows answers as the MPI does for
# memory windows of the same shape, segments of size 0 included (issue 21).
add_executable(t_zeroseg ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_zeroseg.c)
target_link_libraries(t_zeroseg PRIVATE mpisw_testlib mpisw m)
mpisw_mpi_test(shared_query_zeroseg PROG t_zeroseg NP 1 2 3 4 LABELS shared_query)
