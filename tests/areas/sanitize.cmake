# The sanitizer build (cmake -DMPISW_SANITIZE=address,undefined; make test's
# build/asan-mpich). The runtime options (ASAN_OPTIONS, UBSAN_OPTIONS,
# LSAN_OPTIONS) are set by the Makefile's test-asan target, which also says
# which tests this pass leaves out and why.
if(MPISW_SANITIZE AND TARGET test_pager_tsan)
  # ThreadSanitizer cannot share a program with AddressSanitizer: the TSan
  # test keeps its own flags only (it runs here as in the normal trees).
  foreach(_prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(_opts test_pager_tsan ${_prop})
    if(_opts)
      list(FILTER _opts EXCLUDE REGEX "^-fsanitize=|^-fno-sanitize-recover")
      set_target_properties(test_pager_tsan PROPERTIES ${_prop} "${_opts}")
    endif()
  endforeach()
  target_compile_options(test_pager_tsan PRIVATE -fsanitize=thread)
  target_link_options(test_pager_tsan PRIVATE -fsanitize=thread)
endif()

if(MPISW_SANITIZE)
  include(${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz.cmake)

  # The pass can fail: a heap overflow and a signed overflow on rank 0 of an
  # MPI job must stop the job with the sanitizer's report.
  add_executable(t_sanitize_selfcheck ${PROJECT_SOURCE_DIR}/tests/sanitize/t_sanitize_selfcheck.c)
  target_link_libraries(t_sanitize_selfcheck PRIVATE mpisw MPI::MPI_C)
  set(_checks "")
  if(MPISW_SANITIZE MATCHES "address")
    list(APPEND _checks "heap|AddressSanitizer: heap-buffer-overflow")
  endif()
  if(MPISW_SANITIZE MATCHES "undefined")
    list(APPEND _checks "ubsan|runtime error: signed integer overflow")
  endif()
  foreach(_c IN LISTS _checks)
    string(REGEX REPLACE "\\|.*" "" _what "${_c}")
    string(REGEX REPLACE "^[^|]*\\|" "" _pattern "${_c}")
    add_test(NAME sanitize_selfcheck_${_what}_np2
             COMMAND ${MPISW_SH} ${PROJECT_SOURCE_DIR}/tests/sanitize/expect_report.sh
                     "${_pattern}" ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} -n 2
                     $<TARGET_FILE:t_sanitize_selfcheck> ${_what})
    set_tests_properties(sanitize_selfcheck_${_what}_np2 PROPERTIES
      TIMEOUT 60 PROCESSORS 2 LABELS "mpi;sanitize" ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
  endforeach()
endif()
