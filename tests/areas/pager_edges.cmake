# Adjacent unaligned windows over one file on both backends (issue 13): no
# rank's write-back may touch a neighbour's bytes. 1000 bytes: neighbours
# share a page; 10000 bytes with 8 KiB pager blocks: whole pages in the
# middle (O_DIRECT), shared pages at both ends, windows across blocks.
add_executable(t_pager_edges mpi/t_pager_edges.c)
target_link_libraries(t_pager_edges PRIVATE mpisw_testlib mpisw m Threads::Threads)

foreach(backend mmap pager)
  mpisw_mpi_test(edges_${backend}_1000 PROG t_pager_edges ARGS ${backend} 1000 4 NP 2 4
                 LABELS pager)
  mpisw_mpi_test(edges_${backend}_10000 PROG t_pager_edges ARGS ${backend} 10000 3 NP 2 4
                 ENV MPISW_PAGER_BLOCK=8K LABELS pager)
endforeach()
