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
mpisw_mpi_test(atomic_journal PROG t_atomic ARGS journal NP 1 2 LABELS "atomic;durability")
mpisw_mpi_test(atomic_fallback PROG t_atomic ARGS fallback NP 2 LABELS "atomic;durability")
mpisw_mpi_test(atomic_crash PROG t_atomic NP 2 LABELS "atomic;durability"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_crash.sh)

# kill -9 at random instants during atomic syncs of a running job: of one
# rank, of every rank, and on the pager (16 KiB blocks, room for half the
# window: written blocks are evicted into the journal between syncs). A trial costs about one job start (0.15-0.5 s); the 100
# trials of the same cores are unit_test_journal's (forked, 2 s).
# MPISW_ATOMIC_TRIALS=N runs N trials each instead.
if(DEFINED ENV{MPISW_ATOMIC_TRIALS})
  set(_atomic_trials $ENV{MPISW_ATOMIC_TRIALS})
  set(_atomic_trials_pager $ENV{MPISW_ATOMIC_TRIALS})
else()
  set(_atomic_trials 10)
  set(_atomic_trials_pager 10)
endif()
mpisw_mpi_test(atomic_kill_one PROG t_atomic NP 2 LABELS "atomic;durability"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_atomic_trials} one mmap
                      $<TARGET_FILE:atomic_check>)
mpisw_mpi_test(atomic_kill_all PROG t_atomic NP 2 LABELS "atomic;durability"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_atomic_trials} all mmap
                      $<TARGET_FILE:atomic_check>)
mpisw_mpi_test(atomic_kill_pager PROG t_atomic NP 1 LABELS "atomic;durability;pager"
               ENV MPISW_PAGER_BLOCK=16K
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_atomic_trials_pager} all pager
                      $<TARGET_FILE:atomic_check>)
foreach(t atomic_kill_one_np2 atomic_kill_all_np2 atomic_kill_pager_np1)
  set_tests_properties(mpi_${t} PROPERTIES TIMEOUT 120)
endforeach()
