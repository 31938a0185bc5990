# RMA extensions benchmark (bench/suite_rmax.py, suite "rmax").
find_package(Threads REQUIRED)
add_executable(rmax_bench ${CMAKE_CURRENT_SOURCE_DIR}/rmax_bench.c)
target_compile_definitions(rmax_bench PRIVATE _GNU_SOURCE)
target_link_libraries(rmax_bench PRIVATE mpisw m Threads::Threads)
