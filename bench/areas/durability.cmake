# Atomic vs plain sync benchmark (bench/suite_durability.py, suite "durability").
add_executable(durability_bench ${CMAKE_CURRENT_SOURCE_DIR}/durability_bench.c)
target_compile_definitions(durability_bench PRIVATE _GNU_SOURCE)
target_link_libraries(durability_bench PRIVATE mpisw m)
