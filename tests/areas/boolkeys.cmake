# One boolean rule for every key mpisw interprets (issue 14; README "Hints"):
# each spelling's effect in MPI_Win_get_info, junk refused with
# MPISW_ERR_HINT naming key, value and spellings, on every call that takes
# info (allocate, allocate_shared, create, create_dynamic, set_info,
# MPIX_Win_dup_with_info, MPIX_Win_from_memhandle). ctest -L boolkeys
add_executable(t_boolkeys ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_boolkeys.c)
target_link_libraries(t_boolkeys PRIVATE mpisw_testlib mpisw m Threads::Threads)
mpisw_mpi_test(boolkeys_storage PROG t_boolkeys ARGS storage NP 1 2 LABELS boolkeys)
mpisw_mpi_test(boolkeys_rma     PROG t_boolkeys ARGS rma     NP 1 2 LABELS boolkeys)
