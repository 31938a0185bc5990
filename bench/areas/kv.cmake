# kv_bench: the mpisw_kv store (cache vs naive vs all in memory); driven by
# bench/suite_kv.py (python3 bench/run.py --suite kv).
add_executable(kv_bench kv_bench.c)
target_compile_definitions(kv_bench PRIVATE _GNU_SOURCE)
target_link_libraries(kv_bench PRIVATE mpisw m)
