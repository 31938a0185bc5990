# The parser fuzz target (fuzz_hints.c) and its short ctest, in the sanitizer
# build only (make test's build/asan-mpich): libFuzzer needs clang (Debian's
# clang and libclang-rt-<N>-dev, which scripts/install-deps.sh installs), while
# the rest of the project builds with the MPI's gcc wrapper, so the target is
# a custom command. make fuzz runs the same binary for ten minutes.
find_program(MPISW_CLANG NAMES clang clang-19 clang-16 clang-15 clang-14)
set(_fuzz_dir ${CMAKE_CURRENT_LIST_DIR})
set(MPISW_FUZZ_SECONDS 20 CACHE STRING "Seconds of fuzzing in the ctest fuzz_hints_short")
if(NOT MPISW_CLANG)
  add_test(NAME fuzz_hints_short COMMAND ${MPISW_SH} -c
           "echo 'fuzz_hints_short: no clang; run make deps (scripts/install-deps.sh)' >&2; exit 1")
else()
  set(_fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz/fuzz_hints)
  set(_fuzz_src ${_fuzz_dir}/fuzz_hints.c ${PROJECT_SOURCE_DIR}/src/core/hints.c
                ${PROJECT_SOURCE_DIR}/src/core/config.c ${PROJECT_SOURCE_DIR}/src/core/error.c
                ${PROJECT_SOURCE_DIR}/src/core/warn.c)
  add_custom_command(
    OUTPUT ${_fuzz_bin}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/fuzz
    COMMAND ${MPISW_CLANG} -g -O1 -std=gnu11 -D_GNU_SOURCE
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
            -I${PROJECT_SOURCE_DIR}/src ${_fuzz_src} -lpthread -o ${_fuzz_bin}
    DEPENDS ${_fuzz_src} ${PROJECT_SOURCE_DIR}/src/core/hints.h
            ${PROJECT_SOURCE_DIR}/src/core/config.h ${PROJECT_SOURCE_DIR}/src/core/error.h
    COMMENT "clang libFuzzer target tests/fuzz_hints" VERBATIM)
  add_custom_target(fuzz_hints ALL DEPENDS ${_fuzz_bin})
  # Replays tests/fuzz/corpus/ (seeds and regression inputs), then fuzzes.
  # No SKIP_RETURN_CODE: libFuzzer exits 77 on a finding.
  add_test(NAME fuzz_hints_short
           COMMAND ${MPISW_SH} ${_fuzz_dir}/run.sh ${_fuzz_bin} ${MPISW_FUZZ_SECONDS}
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz/short)
endif()
set_tests_properties(fuzz_hints_short PROPERTIES TIMEOUT 120 LABELS "fuzz;sanitize")
