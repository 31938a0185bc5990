# MPI-IO benchmark, IOR-style (bench/suite_pio.py, suite "pio"; issue 15):
# ROMIO on /dev/shm and /tmp, pooled files ("mem:" names) once they exist.
add_executable(pio_bench ${CMAKE_CURRENT_SOURCE_DIR}/pio_bench.c)
target_compile_definitions(pio_bench PRIVATE _GNU_SOURCE)
target_link_libraries(pio_bench PRIVATE mpisw m)

# bench_pio_tiny: the benchmark once, tiny, on /dev/shm at 2 ranks, with the
# data read back checked (a broken benchmark fails make test); its self-check
# (--corrupt: one byte flipped after the read) must fail loudly; no file is
# left behind either way. tests/tools/pio_bench_check.sh.
if(BUILD_TESTING)
  string(REPLACE ";" " " _pio_preflags "${MPISW_MPIEXEC_PREFLAGS}")
  add_test(NAME bench_pio_tiny
           COMMAND ${MPISW_SH} ${PROJECT_SOURCE_DIR}/tests/tools/pio_bench_check.sh
                   ${MPISW_MPIEXEC} "${_pio_preflags}" $<TARGET_FILE:pio_bench>)
  set_tests_properties(bench_pio_tiny PROPERTIES TIMEOUT 60 PROCESSORS 2
                       LABELS "bench;pio;${MPISW_MPI_FLAVOR}")
  if(MPISW_MPIEXEC_ENV)
    set_tests_properties(bench_pio_tiny PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
  endif()
endif()
