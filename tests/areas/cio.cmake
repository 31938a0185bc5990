# The collective I/O engine (src/cio/; docs/COLLECTIVE_IO.md "The engine").
# ctest -L cio
add_executable(t_cio ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_cio.c)
target_link_libraries(t_cio PRIVATE mpisw_testlib mpisw)
# Every view x every strategy against the MPI's own collective write.
mpisw_mpi_test(cio_views PROG t_cio ARGS views NP 1 2 4 LABELS cio)
