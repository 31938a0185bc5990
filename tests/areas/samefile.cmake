# Windows that would overwrite each other's bytes of one file are refused
# with MPISW_ERR_USAGE (issue 13); sharing asked for works. ctest -L samefile
add_executable(t_samefile ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_samefile.c)
target_link_libraries(t_samefile PRIVATE mpisw_testlib mpisw m)
mpisw_mpi_test(samefile_info    PROG t_samefile ARGS info    NP 2 4 LABELS samefile)
mpisw_mpi_test(samefile_env     PROG t_samefile ARGS env     NP 2 4 LABELS samefile
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/envrun.sh
                      "MPISW_HINTS=alloc_type=storage@SC@storage_alloc_filename=@DIR@/same" --)
mpisw_mpi_test(samefile_offsets PROG t_samefile ARGS offsets NP 1 2 4 LABELS samefile)
mpisw_mpi_test(samefile_shared  PROG t_samefile ARGS shared  NP 1 2 4 LABELS samefile)
mpisw_mpi_test(samefile_twowin  PROG t_samefile ARGS twowin  NP 1 2 LABELS samefile)
mpisw_mpi_test(samefile_jobs    PROG t_samefile NP 2 LABELS samefile
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/samefile_jobs.sh --)
