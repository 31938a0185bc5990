# Unchanged real programs (issue 15, item 5), MPICH only: the tools are
# MPICH builds (h5pcc.mpich, mpi4py built with mpicc.mpich, MPICH's own
# test/mpi/io). Today they run on real files with libmpisw linked or
# preloaded: every file whose name is not pooled must reach the MPI library
# untouched (issue 15, item 1). ctest -L realprog
#
# THE SWITCH for pooled files: configure with -DMPISW_REALPROG_POOLED=ON
# (or flip the default below) and every harness also runs with its files
# routed into the pool; docs/POOLED_FILES.md "Real programs" lists the names.
#   HDF5      realprog_h5_*_mem   file mem:DIR/out.h5
#             realprog_h5_*_glob  DIR/out.h5 with MPISW_MEM_PATHS=DIR/*.h5
#   mpi4py    realprog_mpi4py_*_pooled  MPISW_MEM_PATHS=$TMPDIR/mpi4py*
#             (TMPDIR a fresh directory), counts as plain MPICH's, and the
#             26 view tests with --no-skip-mpi
#   MPICH io  realprog_mpich_io_pooled  the io programs' files by
#             MPISW_MEM_PATHS (tests/realprog/mpich_io.sh)
option(MPISW_REALPROG_POOLED
       "Also run the real programs (tests/realprog) on pooled files (mem: names, MPISW_MEM_PATHS)" OFF)

if(NOT MPISW_MPI_FLAVOR STREQUAL "mpich")
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

# ---- Parallel HDF5 (Debian's libhdf5-mpich-dev), built as users build:
# h5pcc.mpich. h5_roundtrip_plain knows nothing of mpisw (LD_PRELOAD);
# h5_roundtrip_linked has libmpisw ahead of MPICH (kept under --as-needed).
find_program(MPISW_H5PCC NAMES h5pcc.mpich)
if(MPISW_H5PCC)
  # h5pcc leaves h5_roundtrip.o in its working directory: one each.
  set(_h5src ${_rp_dir}/h5_roundtrip.c)
  file(MAKE_DIRECTORY ${_rp_bin}/h5plain ${_rp_bin}/h5linked)
  add_custom_command(OUTPUT ${_rp_bin}/h5_roundtrip_plain WORKING_DIRECTORY ${_rp_bin}/h5plain
                     COMMAND ${MPISW_H5PCC} -shlib -O2 -g -Wall -o ${_rp_bin}/h5_roundtrip_plain ${_h5src}
                     DEPENDS ${_h5src} COMMENT "h5pcc.mpich h5_roundtrip_plain" VERBATIM)
  add_custom_command(OUTPUT ${_rp_bin}/h5_roundtrip_linked WORKING_DIRECTORY ${_rp_bin}/h5linked
                     COMMAND ${MPISW_H5PCC} -shlib -O2 -g -Wall -o ${_rp_bin}/h5_roundtrip_linked ${_h5src}
                             -Wl,--no-as-needed,$<TARGET_FILE:mpisw>,-rpath,$<TARGET_FILE_DIR:mpisw>
                     DEPENDS ${_h5src} mpisw COMMENT "h5pcc.mpich h5_roundtrip_linked" VERBATIM)
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
               "echo 'SKIP: no h5pcc.mpich (Debian package libhdf5-mpich-dev; scripts/install-deps.sh installs it)'; exit 77")
    endif()
    mpisw_mpi_props(${tn} ${np} "${labels}")
  endforeach()
endforeach()
