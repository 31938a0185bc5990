# storage_sync=atomic (issue 16 item 1, docs/DURABILITY.md "Atomic sync").
# Unit: the redo journal and the private mapping's sync without MPI, with 100
# kill -9 trials of a forked process during syncs. ctest -L atomic
add_executable(test_journal ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_journal.c
               $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_journal PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_journal PRIVATE _GNU_SOURCE)
add_test(NAME unit_test_journal COMMAND test_journal 100)
set_tests_properties(unit_test_journal PROPERTIES TIMEOUT 60 LABELS "atomic;durability")

# MPI: the hint in effect (get_info), nothing in the file between syncs,
# recovery when a window is made on the file again, fallbacks. t_atomic
# writes journals itself (journal mode) with the core's objects.
add_executable(t_atomic ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_atomic.c $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(t_atomic PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_atomic PRIVATE mpisw_testlib mpisw m)
add_executable(atomic_check ${MPISW_TOOLS}/atomic_check.c $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(atomic_check PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
target_compile_definitions(atomic_check PRIVATE _GNU_SOURCE)

mpisw_mpi_test(atomic_basic_mmap PROG t_atomic ARGS basic mmap NP 1 2 LABELS "atomic;durability")
mpisw_mpi_test(atomic_basic_pager PROG t_atomic ARGS basic pager NP 2
               LABELS "atomic;durability;pager")
mpisw_mpi_test(atomic_evict_pager PROG t_atomic ARGS evict NP 1 2 ENV MPISW_PAGER_BLOCK=16K
               LABELS "atomic;durability;pager")
# A full file system under the journal (root: a tmpfs of 1 MiB): the failed
# sync leaves the last synced state, the next one after healing writes all.
mpisw_mpi_test(atomic_full_mmap PROG t_atomic ARGS full mmap NP 1 LABELS "atomic;durability;root"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_full.sh --)
mpisw_mpi_test(atomic_journal PROG t_atomic ARGS journal NP 1 2 LABELS "atomic;durability")
mpisw_mpi_test(atomic_fallback PROG t_atomic ARGS fallback NP 2 LABELS "atomic;durability")
mpisw_mpi_test(atomic_crash PROG t_atomic NP 2 LABELS "atomic;durability"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_crash.sh)

# kill -9 at random instants during atomic syncs of a running job: of one
# rank, of every rank, and on the pager (16 KiB blocks, room for half the
# window: written blocks are evicted into the journal between syncs). A trial
# costs a job start: 0.3-0.8 s with MPICH, 1-3 s with Open MPI (its launcher
# is slower to start and to end), hence fewer trials there; the 100 trials of
# the same cores are unit_test_journal's (forked processes, 2 s).
# MPISW_ATOMIC_TRIALS=N at configure time runs N trials each instead.
# With MPICH the four sets below make 100 trials of running jobs (25 each:
# one rank or every rank killed, mmap or pager), about 30 s in all; Open
# MPI's (label reliability, run by .ci/run) 10 each; the machine-crash sets
# 8 and 3 (a loop device mounted per trial).
if(DEFINED ENV{MPISW_ATOMIC_TRIALS})
  set(_atomic_trials $ENV{MPISW_ATOMIC_TRIALS})
  set(_atomic_cuts $ENV{MPISW_ATOMIC_TRIALS})
elseif(MPISW_MPI_FLAVOR STREQUAL "mpich")
  set(_atomic_trials 25)
  set(_atomic_cuts 8)
else()
  set(_atomic_trials 10)
  set(_atomic_cuts 3)
endif()
foreach(backend mmap pager)
  foreach(who one all)
    mpisw_mpi_test(atomic_kill_${who}_${backend} PROG t_atomic NP 2 ENV MPISW_PAGER_BLOCK=16K
                   LABELS "atomic;durability;reliability;${backend}"
                   DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_atomic_trials} ${who}
                          ${backend} $<TARGET_FILE:atomic_check>)
    set_tests_properties(mpi_atomic_kill_${who}_${backend}_np2 PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()

# A machine crash (the page cache lost) during atomic syncs, emulated with
# an ext4 on a loop device whose image is copied while every rank is stopped
# (tests/tools/atomic_powercut.sh; root). Without the journal's fdatasync
# before the in-place writes, the first trials already fail.
foreach(backend mmap pager)
  mpisw_mpi_test(atomic_powercut_${backend} PROG t_atomic NP 2 ENV MPISW_PAGER_BLOCK=16K
                 LABELS "atomic;durability;reliability;root;${backend}"
                 DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_powercut.sh ${_atomic_cuts}
                        ${backend} $<TARGET_FILE:atomic_check>)
  set_tests_properties(mpi_atomic_powercut_${backend}_np2 PROPERTIES TIMEOUT 120)
endforeach()

# kill -9 right after MPI_Win_sync with plain syncs, both backends (issue 19
# item 3, README "Durability"): every byte a returned sync made durable is in
# the file afterwards; unsynced bytes may or may not be (mmap keeps them in
# the page cache, the pager loses what it had not written back). 100 trials
# per backend, one rank, about 15 s each with MPICH; Open MPI's (label
# reliability, .ci/run) 20.
add_executable(t_crash_sync ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_crash_sync.c)
target_link_libraries(t_crash_sync PRIVATE mpisw_testlib mpisw)
add_executable(crash_sync_check ${MPISW_TOOLS}/crash_sync_check.c)
target_include_directories(crash_sync_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
if(DEFINED ENV{MPISW_ATOMIC_TRIALS})
  set(_crash_trials $ENV{MPISW_ATOMIC_TRIALS})
elseif(MPISW_MPI_FLAVOR STREQUAL "mpich")
  set(_crash_trials 100)
else()
  set(_crash_trials 20)
endif()
foreach(backend mmap pager)
  mpisw_mpi_test(crash_after_sync_${backend} PROG t_crash_sync NP 1 ENV MPISW_PAGER_BLOCK=16K
                 LABELS "durability;reliability;${backend}"
                 DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_crash_trials} all
                        ${backend} $<TARGET_FILE:crash_sync_check>)
  set_tests_properties(mpi_crash_after_sync_${backend}_np1 PROPERTIES TIMEOUT 180
                       SKIP_RETURN_CODE 77)
endforeach()
