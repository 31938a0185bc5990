# RMA into pager windows and the route they take (issue 19 item 5):
# an explicit pager whose storage part it holds whole pages a memfd that the
# node-shared route maps into every rank (src/win/pager_glue.c,
# src/pager/pager_shared.c); a larger one keeps private memory and
# MPI_Win_create. Data checked in the windows and in the files after each
# target's MPI_Win_sync (other processes' writes found by the block hashes).
# ctest -L pager_rma
add_executable(t_pager_rma ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_pager_rma.c)
target_link_libraries(t_pager_rma PRIVATE mpisw_testlib mpisw m)
set(_prma MPISW_PAGER_BLOCK=256K)
mpisw_mpi_test(pager_rma_shared  PROG t_pager_rma ARGS shared  NP 2 4 ENV ${_prma}
               LABELS pager pager_rma)
mpisw_mpi_test(pager_rma_default PROG t_pager_rma ARGS default NP 1 2 ENV ${_prma}
               LABELS pager pager_rma)
mpisw_mpi_test(pager_rma_private PROG t_pager_rma ARGS private NP 2 ENV ${_prma}
               LABELS pager pager_rma)
# Its unit test without MPI: unit_test_pager_shared (pager_unit.cmake).
