# Durability and file safety of storage windows (issue 13): failed
# write-backs remembered, storage errors of MPI_Win_free on the window's
# handler, files cut short by others, another user's file refused, the bytes
# a sync really wrote. Unit parts: tests/unit/test_storage.c. ctest -L durability
add_executable(t_durability ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_durability.c)
target_link_libraries(t_durability PRIVATE mpisw_testlib mpisw m)

# One rank: ranks sharing one device share its write-back error state, so
# one rank's old failure would show up again in another's first good sync.
foreach(f 1 0.5)
  string(REPLACE "." "" _f ${f})
  mpisw_mpi_test(durability_wbfail_f${_f} PROG t_durability ARGS wbfail ${f} NP 1
                 LABELS "durability;root" DRIVER ${MPISW_SH} ${MPISW_TOOLS}/faildev.sh --)
endforeach()
mpisw_mpi_test(durability_truncate_mmap PROG t_durability ARGS truncate mmap NP 1 2
               LABELS durability)
mpisw_mpi_test(durability_truncate_pager PROG t_durability ARGS truncate pager NP 1 2
               LABELS "durability;pager")
mpisw_mpi_test(durability_free_handler PROG t_durability ARGS freehandler NP 1 2 4
               LABELS durability)
mpisw_mpi_test(durability_owner PROG t_durability ARGS owner NP 1 2 LABELS "durability;root")
# 4 KiB written per rank into 4 MiB windows: the report shows about 4 KiB
# per rank (at most a few large folios), never the window size.
mpisw_mpi_test(durability_synced PROG t_durability ARGS synced NP 1 2 LABELS durability
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/reportsync.sh 4096 1048576 --)
# The same on the pager backend: it writes whole blocks (256 KiB here).
mpisw_mpi_test(durability_synced_pager PROG t_durability ARGS synced NP 1 2
               ENV MPISW_HINTS=storage_backend=pager MPISW_PAGER_BLOCK=256K MPISW_TEST_BACKEND=pager
               LABELS "durability;pager"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/reportsync.sh 4096 1048576 --)
# MPI_ERRORS_ARE_FATAL on the window: the free's storage error aborts the job
# with its message (a non-zero exit alone would not tell a crash apart); the
# program prints NOT ABORTED when the free returns. Each rank's stderr goes to
# a file (abort_check.sh): launchers may drop a killed rank's output.
mpisw_mpi_test(durability_free_fatal PROG t_durability ARGS freefatal NP 1 2 LABELS durability
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/abort_check.sh
                      "MPI_Win_free: '[^']*fatal-r[0-9]': the file was truncated to 0 bytes" --)
