# Remote sync benchmark (bench/suite_remote_sync.py, suite "remote_sync").
add_executable(remote_sync_bench ${CMAKE_CURRENT_SOURCE_DIR}/remote_sync_bench.c)
target_compile_definitions(remote_sync_bench PRIVATE _GNU_SOURCE)
target_link_libraries(remote_sync_bench PRIVATE mpisw m)
