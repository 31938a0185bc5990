# The MapReduce word count (apps/mapreduce, README "MapReduce one-sided and
# two-sided, with checkpoints"): MR-1S, MR-2S and the serial reference give
# byte-identical counts (tests/tools/mapreduce_check.sh), a job killed with
# kill -9 after a checkpoint and restarted gives them too
# (mapreduce_kill.sh), also from reducers with and without their reduce's
# result (mapreduce_reduce_restart.sh), bad input gets its exit code
# (mapreduce_errors.sh).
# make test runs a small set (tiny corpora: the time budget); the rest of
# the matrix, more kill trials and every error case are label extended
# (make test-extended); the kill tests are label reliability too, which
# make test leaves to make test-extended with Open MPI.
if(EXISTS ${PROJECT_SOURCE_DIR}/apps/mapreduce/main.c)
  function(mpisw_mapreduce_test name np script)
    cmake_parse_arguments(T "EXTENDED;RELIABILITY" "" "ARGS" ${ARGN})
    set(tn mapreduce_${name})
    if(T_EXTENDED AND MPISW_SANITIZE)
      return()   # the sanitizer tree runs every label but a few: keep its time
    endif()
    add_test(NAME ${tn}
             COMMAND ${MPISW_SH} ${MPISW_TOOLS}/${script} $<TARGET_FILE:mapreduce> ${T_ARGS}
                     -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
    set(labels "mpi;mapreduce")
    set(timeout 120)
    if(T_EXTENDED)
      set(labels "mpi;mapreduce;extended")
      set(timeout 300)
    elseif(T_RELIABILITY)   # kill -9 trials: Open MPI runs them in make test-extended
      set(labels "mpi;mapreduce;reliability")
    endif()
    set_tests_properties(${tn} PROPERTIES TIMEOUT ${timeout} PROCESSORS ${np}
                         LABELS "${labels}")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(${tn} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endfunction()

  # identical counts: NP, texts (gen: generated corpus, user: README.md), --checkpoints
  mpisw_mapreduce_test(identical_np1 1 mapreduce_check.sh ARGS 1 "gen" "none all")
  mpisw_mapreduce_test(identical_np2 2 mapreduce_check.sh ARGS 2 "gen user" "all")
  mpisw_mapreduce_test(identical_np4 4 mapreduce_check.sh ARGS 4 "gen" "all")
  # extended: the rest of the matrix (with "none" where make test has "all")
  mpisw_mapreduce_test(identical_rest_np1 1 mapreduce_check.sh EXTENDED ARGS 1 "user" "none all")
  mpisw_mapreduce_test(identical_rest_np2 2 mapreduce_check.sh EXTENDED ARGS 2 "gen user" "none")
  mpisw_mapreduce_test(identical_rest_np4 4 mapreduce_check.sh EXTENDED ARGS 4 "user" "none all")
  # kill -9 of the whole job after a checkpoint, restart: identical counts
  foreach(mode 1s 2s)
    mpisw_mapreduce_test(kill_${mode}_np2 2 mapreduce_kill.sh RELIABILITY ARGS ${mode} 2 1)
    mpisw_mapreduce_test(kill_${mode}_np2_trials 2 mapreduce_kill.sh EXTENDED ARGS ${mode} 2 3)
    mpisw_mapreduce_test(kill_${mode}_np4_trials 4 mapreduce_kill.sh EXTENDED ARGS ${mode} 4 2)
  endforeach()
  # MR-1S restart with some reducers holding their reduce's result, others not
  mpisw_mapreduce_test(reduce_restart_np2 2 mapreduce_reduce_restart.sh ARGS 2)
  mpisw_mapreduce_test(errors 2 mapreduce_errors.sh ARGS quick)
  mpisw_mapreduce_test(errors_full 2 mapreduce_errors.sh EXTENDED ARGS full)
endif()
