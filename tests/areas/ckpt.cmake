# Checkpoints (issue 16, src/ckpt/, docs/CHECKPOINTS.md): the API on every
# kind of region and a restart in a new job, incremental writes, corrupt
# versions rejected, a full LOCAL file system, bad input, and kill -9 at
# random instants during checkpoints. ctest -L ckpt
add_executable(t_ckpt ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_ckpt.c)
target_link_libraries(t_ckpt PRIVATE mpisw_testlib mpisw m)

set(_ckj ${MPISW_SH} ${MPISW_TOOLS}/ckpt_jobs.sh)
mpisw_mpi_test(ckpt_api PROG t_ckpt NP 1 2 4 LABELS ckpt DRIVER ${_ckj} api --)
# the storage window on the pager backend (read and restored through its faults)
mpisw_mpi_test(ckpt_api_pager PROG t_ckpt NP 2 LABELS "ckpt;pager"
               ENV MPISW_HINTS=storage_backend=pager MPISW_TEST_BACKEND=pager
               DRIVER ${_ckj} api --)
# 5 versions of 64 chunks: 3 written whole, 2 with one chunk each (the
# report: 2 x 63 x 4 KiB skipped of 5 x 256 KiB + headers = 39% saved)
mpisw_mpi_test(ckpt_incremental PROG t_ckpt ARGS incr NP 1 2 LABELS ckpt ENV MPISW_REPORT=1
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/expect_stderr.sh
                      "once:mpisw:   checkpoint incr: 5 versions, "
                      "once:unchanged not written (incremental saved 39%)" --)
mpisw_mpi_test(ckpt_corrupt PROG t_ckpt NP 1 2 4 LABELS ckpt
               DRIVER ${_ckj} corrupt
                      "mpisw_ckpt_restart: checkpoint 'bad' rank 0: checkpoint image '[^']*bad\\.r0\\.s2\\.ckpt': checksum mismatch in chunk 3 of region 0"
                      "checkpoint image '[^']*bad\\.r[0-9]\\.s1\\.ckpt': header checksum mismatch; not used"
                      --)
mpisw_mpi_test(ckpt_nospace PROG t_ckpt ARGS full NP 1 2 LABELS "ckpt;root"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/mountdrv.sh tmpfs8m --)
mpisw_mpi_test(ckpt_badinfo PROG t_ckpt ARGS badinfo NP 1 2 LABELS ckpt)
# take_local's exclusive lock: puts of other ranks never tear an image
mpisw_mpi_test(ckpt_take_local_rma PROG t_ckpt ARGS locked NP 2 4 LABELS ckpt)
# kill -9 at random instants during checkpoints (issue 16 "Reliability").
# ckpt_crash: 100 trials inside one job of 2 ranks (each rank forks the
# writer it kills; one rank's writer killed, the others a few ms later, or
# all at once; the parents restart collectively and check; ~2-6 s).
# ckpt_kill9: whole jobs killed by the launcher's rules (one rank, or every
# rank, SIGKILLed), 4 trials only: a job start costs 0.3-1.5 s here.
mpisw_mpi_test(ckpt_crash PROG t_ckpt ARGS crash 100 NP 2 LABELS ckpt
               ENV OMPI_MCA_mpi_warn_on_fork=0)
add_test(NAME mpi_ckpt_kill9_np2
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/ckpt_kill.sh 4 2 --
                 ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} -n 2 $<TARGET_FILE:t_ckpt>)
mpisw_mpi_props(mpi_ckpt_kill9_np2 2 "mpi;ckpt;reliability")
# The image format without MPI (src/ckpt/image.c, crc32c.c): CRC32C check
# value and table twin, incremental rewrite, restore, damage named.
add_executable(test_ckpt_image ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ckpt_image.c
               ${PROJECT_SOURCE_DIR}/src/ckpt/image.c ${PROJECT_SOURCE_DIR}/src/ckpt/crc32c.c
               $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_ckpt_image PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(test_ckpt_image PRIVATE _GNU_SOURCE)
target_link_libraries(test_ckpt_image PRIVATE Threads::Threads)
add_test(NAME unit_test_ckpt_image COMMAND test_ckpt_image)
set_tests_properties(unit_test_ckpt_image PROPERTIES TIMEOUT 30 LABELS ckpt)
