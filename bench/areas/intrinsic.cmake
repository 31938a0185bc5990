# Intrinsic accumulates benchmark (bench/suite_intrinsic.py, suite "intrinsic").
add_executable(intrinsic_bench ${CMAKE_CURRENT_SOURCE_DIR}/intrinsic_bench.c)
target_compile_definitions(intrinsic_bench PRIVATE _GNU_SOURCE)
target_link_libraries(intrinsic_bench PRIVATE mpisw m)
