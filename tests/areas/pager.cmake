# storage_backend=pager (docs/PAGER.md): the MPI tests of the pager and a
# few storage tests re-run with the pager backend through MPISW_HINTS.
add_executable(t_pager mpi/t_pager.c)
target_link_libraries(t_pager PRIVATE mpisw_testlib mpisw m Threads::Threads)

set(_pgblock MPISW_PAGER_BLOCK=256K)
mpisw_mpi_test(pager_roundtrip PROG t_pager ARGS roundtrip NP 1 2 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_evict     PROG t_pager ARGS evict     NP 1 2 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_overwrite PROG t_pager ARGS overwrite NP 1 2 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_combined  PROG t_pager ARGS combined  NP 1 2 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_remote    PROG t_pager ARGS remote    NP 2 4 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_shared    PROG t_pager ARGS shared    NP 1 2 LABELS pager)
mpisw_mpi_test(pager_invalid   PROG t_pager ARGS invalid   NP 1 2 LABELS pager)
mpisw_mpi_test(pager_auto      PROG t_pager ARGS auto      NP 1 2 ENV ${_pgblock} LABELS pager)
mpisw_mpi_test(pager_fallback  PROG t_pager ARGS fallback  NP 1 2 LABELS pager root
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/nopriv.sh --)

# Existing storage tests, unchanged, on the pager backend (those that do not
# check that the window is a file mapping, which the pager replaces).
set(_pg MPISW_HINTS=storage_backend=pager ${_pgblock} MPISW_TEST_BACKEND=pager)
foreach(mode filename offset reuse discard unlink)
  mpisw_mpi_test(pager_file_${mode} PROG t_file ARGS ${mode} NP 2 ENV ${_pg} LABELS pager)
endforeach()
