# The PARTNER and XOR checkpoint levels' benchmark (bench/suite_ckpt_levels.py,
# suite "ckpt_levels"; issue 16 target "XOR level with groups of 4"): bytes on
# disk per level, take and restart times, a lost node rebuilt byte-exact,
# through the public API on simulated nodes. levels_nodes.sh launches it there
# (the driver runs that as a plain process).
add_executable(levels_bench ${CMAKE_CURRENT_SOURCE_DIR}/levels_bench.c)
target_include_directories(levels_bench PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(levels_bench PRIVATE _GNU_SOURCE)
target_link_libraries(levels_bench PRIVATE mpisw m)
find_program(MPISW_SH sh REQUIRED)
set(LEVELS_TOOLS ${PROJECT_SOURCE_DIR}/tests/tools)
set(LEVELS_BENCH ${CMAKE_CURRENT_BINARY_DIR}/levels_bench)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/levels_nodes.sh.in
               ${CMAKE_CURRENT_BINARY_DIR}/levels_nodes.sh @ONLY)

# bench_ckpt_levels_tiny_<mode>: the benchmark once, tiny, on 4 simulated
# nodes: a record with byte_exact true after a node is lost, XOR parity at
# most 1/3 of the images plus its headers, nothing left behind; --corrupt must
# report byte_exact false (tests/tools/levels_bench_check.sh).
if(BUILD_TESTING)
  foreach(mode partner xor)
    add_test(NAME bench_ckpt_levels_tiny_${mode}
             COMMAND ${MPISW_SH} ${PROJECT_SOURCE_DIR}/tests/tools/levels_bench_check.sh
                     ${CMAKE_CURRENT_BINARY_DIR}/levels_nodes.sh ${mode})
    set_tests_properties(bench_ckpt_levels_tiny_${mode} PROPERTIES TIMEOUT 120 PROCESSORS 4
                         SKIP_RETURN_CODE 77
                         LABELS "bench;ckpt;ckpt_redund;root;multinode;${MPISW_MPI_FLAVOR}")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(bench_ckpt_levels_tiny_${mode} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endforeach()
endif()
