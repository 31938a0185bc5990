# make demo (scripts/demo.sh) on this build: every step passes, and the DHT's
# auto / memory time is a median over interleaved pairs of runs with its
# spread and a word on what it does not mean (one noisy run once said 0.52x,
# the next 1.17x). About 10 s on an idle machine of 2 cores; its 13 runs of
# 2 busy-polling ranks slow down a lot when the cores are shared, hence the
# generous limit.
find_program(MPISW_BASH bash REQUIRED)
add_test(NAME demo_script
         COMMAND ${MPISW_BASH} ${MPISW_TOOLS}/demo_check.sh ${PROJECT_SOURCE_DIR}/scripts/demo.sh
                 ${PROJECT_BINARY_DIR})
set_tests_properties(demo_script PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "demo")
