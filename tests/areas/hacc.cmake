# The HACC-IO application (apps/hacc_io): every method checkpoints 2 steps
# and restarts byte-exact at 1 and 2 ranks (indep also at 4; win also with
# --fill put, --readers and --settle, on mmap and the pager, the pager with
# 23 MB a rank so the put of its int64 array covers whole 2 MiB blocks), a
# restart at other rank counts, corrupt and foreign files refused, bad
# options, missing and unwritable paths, a full file system (root, a tmpfs of
# 8 MiB). tests/tools/hacccheck.sh runs each scenario. Tiny sizes: 20000
# particles (760 KB).
if(EXISTS ${PROJECT_SOURCE_DIR}/apps/hacc_io/main.c)  # built by apps/, added after tests/
  function(mpisw_hacc_test name scenario np opts)
    cmake_parse_arguments(T "" "" "DRIVER" ${ARGN})
    set(tn hacc_${name})
    add_test(NAME ${tn}
             COMMAND ${T_DRIVER} ${MPISW_SH} ${MPISW_TOOLS}/hacccheck.sh ${scenario} ${np}
                     "${opts}" $<TARGET_FILE:hacc_io> ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
    set_tests_properties(${tn} PROPERTIES TIMEOUT ${MPISW_TEST_TIMEOUT} PROCESSORS ${np}
                         SKIP_RETURN_CODE 77 LABELS "mpi;hacc")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(${tn} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endfunction()

  # The sanitizer tree (make test's third pass, within the same time budget)
  # runs each method once at 2 ranks and the file checks; the other trees
  # run everything.
  if(MPISW_SANITIZE)
    set(_hacc_nps 2)
  else()
    set(_hacc_nps 1 2)
  endif()
  foreach(m indep coll win pool ckpt)
    foreach(np IN LISTS _hacc_nps)
      mpisw_hacc_test(${m}_np${np} roundtrip ${np} "--method ${m}")
    endforeach()
  endforeach()
  # The win options of the benchmark: MPI_Put into the window (the pager's
  # whole-block hint), several restart readers, --settle (syncfs + wait).
  mpisw_hacc_test(win_put_readers_np1 roundtrip 1 "--method win --fill put --readers 3 --settle 0")
  if(NOT MPISW_SANITIZE)
    mpisw_hacc_test(indep_np4 roundtrip 4 "--method indep")
    mpisw_hacc_test(win_pager_np2 roundtrip 2 "--method win --backend pager --fill put --readers 2 --particles 1200000")
    mpisw_hacc_test(rerank rerank 3 "")
  endif()
  mpisw_hacc_test(corrupt corrupt 2 "")
  mpisw_hacc_test(errors errors 1 "")
  mpisw_hacc_test(full_disk full 1 "" DRIVER ${MPISW_SH} ${MPISW_TOOLS}/mountdrv.sh tmpfs8m --)
  set_tests_properties(hacc_full_disk PROPERTIES LABELS "mpi;hacc;root")
  # Open MPI's jobs start in about 0.7 s (3 s when one exits non-zero): to
  # keep make test's time, its file checks, full disk and pager runs (the
  # same code on both MPIs, all in build/mpich's make test) go to make
  # test-extended there.
  if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
    set_tests_properties(hacc_corrupt hacc_errors hacc_win_pager_np2
                         PROPERTIES LABELS "mpi;hacc;extended")
    set_tests_properties(hacc_full_disk PROPERTIES LABELS "mpi;hacc;root;extended")
  endif()
endif()
