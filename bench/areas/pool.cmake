# The pool's micro-benchmark (bench/pool_bench.c): MPI_Init cost, open+close,
# write/read GB/s at 1 MiB and 100,000 B vs memcpy. It calls the pool's
# internal interface, so it links the static library and sees src/.
add_executable(pool_bench ${CMAKE_CURRENT_SOURCE_DIR}/pool_bench.c)
target_compile_definitions(pool_bench PRIVATE _GNU_SOURCE)
target_include_directories(pool_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(pool_bench PRIVATE mpisw_static m)
