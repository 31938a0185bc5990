# The pager on a device whose writes fail (issue 13; tests/tools/faildev.sh,
# root): no hang under eviction, the error at every sync and at free until
# the data is written, nothing lost.
add_executable(t_pager_faildev mpi/t_pager_faildev.c)
target_link_libraries(t_pager_faildev PRIVATE mpisw_testlib mpisw m Threads::Threads)

foreach(mode evict evict_free noevict noevict_free)
  mpisw_mpi_test(pager_faildev_${mode} PROG t_pager_faildev ARGS ${mode} NP 1 2
                 ENV MPISW_PAGER_BLOCK=256K LABELS pager root
                 DRIVER ${MPISW_SH} ${MPISW_TOOLS}/faildev.sh --)
endforeach()
