# Unchanged real programs (issue 15, item 5), on both MPIs, each built for
# the MPI of this build tree: HDF5 with h5pcc.mpich or h5pcc.openmpi, mpi4py
# with mpicc.mpich or mpicc.openmpi, MPICH's own test/mpi/io with either.
# The same test names in both trees. They run on real files with libmpisw
# linked or preloaded: every file whose name is not pooled must reach the
# MPI library untouched (issue 15, item 1); on Open MPI that is ompio, whose
# set_size/preallocate bug with several ranks none of these programs meets
# (h5_roundtrip calls neither; measured with a PMPI shim). ctest -L realprog
#
# The pooled runs (MPISW_REALPROG_POOLED, ON; OFF leaves them out): every
# harness also runs with its files routed into the pool;
# docs/POOLED_FILES.md "Real programs" lists the names.
#   HDF5      realprog_h5_*_mem   file mem:DIR/out.h5
#             realprog_h5_*_glob  DIR/out.h5 with MPISW_MEM_PATHS=DIR/*.h5
#   mpi4py    realprog_mpi4py_*_pooled  MPISW_MEM_PATHS=$TMPDIR/mpi4py*
#             (TMPDIR a fresh directory), counts as the plain MPI's, and
#             the tests mpi4py skips for it with --no-skip-mpi
#   MPICH io  realprog_mpich_io_pooled  the io programs' files by
#             MPISW_MEM_PATHS (tests/realprog/mpich_io.sh)
option(MPISW_REALPROG_POOLED
       "Also run the real programs (tests/realprog) on pooled files (mem: names, MPISW_MEM_PATHS)" ON)

# What differs between the MPIs: the HDF5 wrapper (and its Debian package),
# and mpi4py's counts on the plain MPI, "PASSED SKIPPED [FAILING...]", on
# 1 and 2 ranks alike, and with --no-skip-mpi on pooled files:
#   MPICH 4.0.2    89 tests: 63 passed, 26 skipped (the view tests mpi4py
#                  skips for MPICH >= 4.0, < 4.1); --no-skip-mpi pooled: 89
#   Open MPI 4.1.4 89 tests: 88 passed, 1 skipped: TestDatarep.testRegister
#                  (MPI_Register_datarep, which ompio does not implement:
#                  plain Open MPI with --no-skip-mpi fails it with
#                  MPI_ERR_OTHER). It names no file, so pooling cannot reach
#                  it and libmpisw does not provide MPI_Register_datarep:
#                  --no-skip-mpi pooled passes the other 88 and fails exactly
#                  that one, as plain Open MPI does.
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  set(_rp_h5pcc h5pcc.mpich)
  set(_rp_h5pkg libhdf5-mpich-dev)
  set(_m4p_baseline "63 26")
  set(_m4p_noskip "89 0")
elseif(MPISW_MPI_FLAVOR STREQUAL "openmpi")
  set(_rp_h5pcc h5pcc.openmpi)
  set(_rp_h5pkg libhdf5-openmpi-dev)
  set(_m4p_baseline "88 1")
  set(_m4p_noskip "88 0 testRegister")
else()
  return()
endif()
# An uninstrumented HDF5/Python/MPICH program with the ASan libmpisw is the
# preload situation the sanitizer pass leaves out (see the Makefile).
if(MPISW_SANITIZE)
  message(STATUS "mpisw: real-program tests (tests/realprog) left out of the sanitizer build")
  return()
endif()

set(_rp_dir ${CMAKE_CURRENT_SOURCE_DIR}/realprog)
set(_rp_bin ${CMAKE_CURRENT_BINARY_DIR}/realprog)
file(MAKE_DIRECTORY ${_rp_bin})
set(_rp_wheres real)
if(MPISW_REALPROG_POOLED)
  set(_rp_wheres real pooled-mem pooled-glob)
endif()

# ---- Parallel HDF5 (Debian's libhdf5-mpich-dev or libhdf5-openmpi-dev),
# built as users build: h5pcc.<mpi>. h5_roundtrip_plain knows nothing of
# mpisw (LD_PRELOAD); h5_roundtrip_linked has libmpisw ahead of the MPI
# (kept under --as-needed).
find_program(MPISW_H5PCC NAMES ${_rp_h5pcc})
if(MPISW_H5PCC)
  # h5pcc leaves h5_roundtrip.o in its working directory: one each.
  set(_h5src ${_rp_dir}/h5_roundtrip.c)
  file(MAKE_DIRECTORY ${_rp_bin}/h5plain ${_rp_bin}/h5linked)
  add_custom_command(OUTPUT ${_rp_bin}/h5_roundtrip_plain WORKING_DIRECTORY ${_rp_bin}/h5plain
                     COMMAND ${MPISW_H5PCC} -shlib -O2 -g -Wall -o ${_rp_bin}/h5_roundtrip_plain ${_h5src}
                     DEPENDS ${_h5src} COMMENT "${_rp_h5pcc} h5_roundtrip_plain" VERBATIM)
  add_custom_command(OUTPUT ${_rp_bin}/h5_roundtrip_linked WORKING_DIRECTORY ${_rp_bin}/h5linked
                     COMMAND ${MPISW_H5PCC} -shlib -O2 -g -Wall -o ${_rp_bin}/h5_roundtrip_linked ${_h5src}
                             -Wl,--no-as-needed,$<TARGET_FILE:mpisw>,-rpath,$<TARGET_FILE_DIR:mpisw>
                     DEPENDS ${_h5src} mpisw COMMENT "${_rp_h5pcc} h5_roundtrip_linked" VERBATIM)
  add_custom_target(realprog_h5 ALL DEPENDS ${_rp_bin}/h5_roundtrip_plain ${_rp_bin}/h5_roundtrip_linked)
endif()
# io mode, linked or preloaded, ranks: 2 and 4 ranks collective both ways,
# independent once each way.
foreach(run coll_linked_np2 coll_linked_np4 coll_preload_np2 coll_preload_np4
            indep_linked_np2 indep_preload_np4)
  string(REGEX MATCH "[0-9]+$" np "${run}")
  set(io collective)
  if(run MATCHES "^indep")
    set(io independent)
  endif()
  set(prog h5_roundtrip_linked)
  set(labels "realprog;mpi;hdf5")
  if(run MATCHES "preload")
    set(prog h5_roundtrip_plain)
    set(labels "realprog;mpi;hdf5;preload")
  endif()
  foreach(where IN LISTS _rp_wheres)
    set(tn realprog_h5_${run})
    if(where STREQUAL "pooled-mem")
      set(tn ${tn}_mem)
    elseif(where STREQUAL "pooled-glob")
      set(tn ${tn}_glob)
    endif()
    if(MPISW_H5PCC)
      add_test(NAME ${tn}
               COMMAND ${MPISW_SH} ${_rp_dir}/run_h5.sh ${where} ${io} ${np} ${_rp_bin}/${prog}
                       $<TARGET_FILE:mpisw> -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
    else()
      add_test(NAME ${tn} COMMAND ${MPISW_SH} -c
               "echo 'SKIP: no ${_rp_h5pcc} (Debian package ${_rp_h5pkg}; scripts/install-deps.sh installs it)'; exit 77")
    endif()
    mpisw_mpi_props(${tn} ${np} "${labels}")
  endforeach()
endforeach()

# Downloads and builds are cached under the checkout's build/realprog
# (MPISW_REALPROG_CACHE in the environment of ctest moves it), shared by
# every build tree and kept across runs: only the first run fetches.
set(_rp_cache ${PROJECT_SOURCE_DIR}/build/realprog)

# ---- mpi4py's own test_file.py and test_io.py (pinned sdist from PyPI,
# built for this tree's MPI: tests/realprog/mpi4py_prepare.sh; counts
# above). The plain run re-checks the baseline on 1 rank (2 ranks take 20-60
# s on two busy cores, and gave the same counts), the preloaded and pooled
# ones must equal it.
add_test(NAME realprog_mpi4py_prepare
         COMMAND ${MPISW_SH} -c "exec sh \"$0\" \"\${MPISW_REALPROG_CACHE:-$1}\" $2"
                 ${_rp_dir}/mpi4py_prepare.sh ${_rp_cache} ${MPISW_MPI_FLAVOR})
set_tests_properties(realprog_mpi4py_prepare PROPERTIES TIMEOUT 1200 SKIP_RETURN_CODE 77
                     LABELS "realprog;python" FIXTURES_SETUP realprog_mpi4py)
set(_m4p_runs plain_np1 preload_np1 preload_np2)
if(MPISW_REALPROG_POOLED)
  list(APPEND _m4p_runs pooled_np1 pooled_np2 pooled-noskip_np1 pooled-noskip_np2)
endif()
foreach(run IN LISTS _m4p_runs)
  string(REGEX MATCH "[0-9]+$" np "${run}")
  string(REGEX REPLACE "_np[0-9]+$" "" mode "${run}")
  set(expect "${_m4p_baseline}")
  if(mode STREQUAL "pooled-noskip")
    set(expect "${_m4p_noskip}")
  endif()
  string(REPLACE "-" "_" tn "realprog_mpi4py_${run}")
  add_test(NAME ${tn}
           COMMAND ${MPISW_SH} -c "c=\${MPISW_REALPROG_CACHE:-$1}; shift; exec sh \"$0\" \"$c\" \"$@\""
                   ${_rp_dir}/run_mpi4py.sh ${_rp_cache} ${MPISW_MPI_FLAVOR} ${mode} ${np} ${expect}
                   $<TARGET_FILE:mpisw> -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
  mpisw_mpi_props(${tn} ${np} "realprog;python;preload")
  set_tests_properties(${tn} PROPERTIES TIMEOUT 180 FIXTURES_REQUIRED realprog_mpi4py)
endforeach()
# mpi4py's tests with collective I/O through the engine (MPISW_CB_STRATEGY=tatp,
# src/cio/): the baseline's counts on 2 ranks. make test-extended.
add_test(NAME realprog_mpi4py_engine_np2
         COMMAND ${MPISW_SH} -c "c=\${MPISW_REALPROG_CACHE:-$1}; shift; exec sh \"$0\" \"$c\" \"$@\""
                 ${_rp_dir}/run_mpi4py.sh ${_rp_cache} ${MPISW_MPI_FLAVOR} engine 2 ${_m4p_baseline}
                 $<TARGET_FILE:mpisw> -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
mpisw_mpi_props(realprog_mpi4py_engine_np2 2 "realprog;python;preload;extended")
set_tests_properties(realprog_mpi4py_engine_np2 PROPERTIES TIMEOUT 300
                     FIXTURES_REQUIRED realprog_mpi4py)

# ---- MPICH's own test/mpi/io (Debian's mpich source package; fetched,
# checked and built once per MPI by tests/realprog/mpich_io.sh fetch). All 29
# pass on plain MPICH 4.0.2; on plain Open MPI 4.1.4 28 (tst_fileview wants
# ROMIO's error class: mpich_io.sh leaves it out on real files there). make
# test runs the 26 of set "quick" (all but the two multi-GiB datatype tests
# and the slowest) pooled on both MPIs; the linked run on MPICH (label
# extended: make test-extended) and the preloaded runs are .ci/run's steps
# after make test (all 29 on MPICH, the 26 on Open MPI), which keeps make
# test under its 20 minutes on 2 cores.
add_test(NAME realprog_mpich_io_fetch
         COMMAND ${MPISW_SH} -c "exec sh \"$0\" fetch \"\${MPISW_REALPROG_CACHE:-$1}\" $2"
                 ${_rp_dir}/mpich_io.sh ${_rp_cache} ${MPISW_MPI_FLAVOR})
set_tests_properties(realprog_mpich_io_fetch PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
                     LABELS "realprog" FIXTURES_SETUP realprog_mpich_io)
set(_mio_runs)
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  # linked, and linked with collective calls through the engine (src/cio/)
  list(APPEND _mio_runs linked engine)
endif()
if(MPISW_REALPROG_POOLED)
  list(APPEND _mio_runs pooled)
endif()
foreach(mode IN LISTS _mio_runs)
  set(tn realprog_mpich_io_${mode})
  add_test(NAME ${tn}
           COMMAND ${MPISW_SH} -c "c=\${MPISW_REALPROG_CACHE:-$1}; shift; exec sh \"$0\" run \"$c\" \"$@\""
                   ${_rp_dir}/mpich_io.sh ${_rp_cache} ${mode} quick $<TARGET_FILE:mpisw>
                   ${MPISW_MPI_FLAVOR} -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
  set(labels "realprog;mpi;extended")   # linked, engine: .ci/run (make test-extended)
  if(NOT mode STREQUAL "linked" AND NOT mode STREQUAL "engine")
    set(labels "realprog;mpi;preload")
  endif()
  mpisw_mpi_props(${tn} 4 "${labels}")
  set_tests_properties(${tn} PROPERTIES TIMEOUT 240 FIXTURES_REQUIRED realprog_mpich_io)
endforeach()
