# A rank dies while the others use the pool (issue 15, "Errors and
# safety"): the survivors get MPI_ERR_IO naming the lock and the dead rank,
# never a hang. tests/pool/t_deadrank.c; driver tests/tools/deadrank.sh
# (a hard timeout). ctest -L deadrank.
add_executable(t_deadrank ${CMAKE_CURRENT_SOURCE_DIR}/pool/t_deadrank.c)
target_include_directories(t_deadrank PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_deadrank PRIVATE mpisw_static m Threads::Threads)
