# make demo (scripts/demo.sh) on this build: every step passes, and the DHT's
# auto / memory time is a median over interleaved pairs of runs with its
# spread and a word on what it does not mean (one noisy run once said 0.52x,
# the next 1.17x).
add_test(NAME demo_script
         COMMAND ${MPISW_SH} -c "out=$(bash \"$0\" \"$1\" 2>&1); rc=$?; printf '%s\\n' \"$out\"; [ $rc -eq 0 ] || exit 1; printf '%s\\n' \"$out\" | grep -Eq 'per pair: median [0-9.]+x \\(min [0-9.]+x, max [0-9.]+x\\)' || { echo 'no median ratio'; exit 1; }; printf '%s\\n' \"$out\" | grep -q 'is not a measurement' || { echo 'no word on the ratio'; exit 1; }"
                 ${PROJECT_SOURCE_DIR}/scripts/demo.sh ${PROJECT_BINARY_DIR})
set_tests_properties(demo_script PROPERTIES TIMEOUT 120 PROCESSORS 2 LABELS "demo")
