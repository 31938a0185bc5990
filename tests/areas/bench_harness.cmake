# The benchmark driver's package (bench/harness/) and the published results
# (issue 14): suite modules use only harness/api.py; a run overwrites
# OUT/latest-<suite>.json instead of adding dated copies; results/ holds
# each suite's latest figures once, with a README that links only to them.
# tests/python/bench_check.py. ctest -L bench
find_program(MPISW_BENCH_PYTHON3 NAMES python3)
if(MPISW_BENCH_PYTHON3)
  set(_bench_check ${PROJECT_SOURCE_DIR}/tests/python/bench_check.py)
  add_test(NAME bench_suite_api COMMAND ${MPISW_BENCH_PYTHON3} ${_bench_check} api)
  set_tests_properties(bench_suite_api PROPERTIES TIMEOUT 60 LABELS "bench")
  add_test(NAME bench_results_tree COMMAND ${MPISW_BENCH_PYTHON3} ${_bench_check} results)
  set_tests_properties(bench_results_tree PROPERTIES TIMEOUT 120 LABELS "bench")
  # Runs membw (tiny) twice: needs this tree's bench programs.
  add_test(NAME bench_latest_only
           COMMAND ${MPISW_BENCH_PYTHON3} ${_bench_check} latest ${PROJECT_BINARY_DIR})
  set_tests_properties(bench_latest_only PROPERTIES TIMEOUT 120 LABELS "bench")
endif()
