# The mmap backend steady out of core (issue 19, item 4): the write-behind
# thread (MPISW_WRITEBEHIND) and the advice chosen from access_style
# (MPISW_MMAP_ADVICE); docs/DURABILITY.md "Write-behind". 8 MiB windows.
add_executable(t_writebehind ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_writebehind.c)
target_link_libraries(t_writebehind PRIVATE mpisw_testlib mpisw)

mpisw_mpi_test(storage_writebehind_on PROG t_writebehind ARGS on NP 1 2
               ENV MPISW_WRITEBEHIND=on LABELS "durability;storage")
mpisw_mpi_test(storage_writebehind_off PROG t_writebehind ARGS off NP 1
               ENV MPISW_WRITEBEHIND=off LABELS "durability;storage")
# auto in a 32 MiB memory cgroup: an 8 MiB storage part is a quarter of the
# limit (core/memlimit.c's mpisw_cgroup_limit), so it is served. The
# sanitizer build's own memory does not fit 32 MiB (its shadow and
# quarantine): there a 1 GiB cgroup and a 256 MiB window, the same quarter.
if(MPISW_SANITIZE)
  set(_wb_cg 1073741824)
  set(_wb_mib 256)
else()
  set(_wb_cg 33554432)
  set(_wb_mib 8)
endif()
mpisw_mpi_test(storage_writebehind_auto_cgroup PROG t_writebehind ARGS on ${_wb_mib} NP 1
               LABELS "durability;storage;root"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/cgroupdrv.sh ${_wb_cg} --)
# A window the write-behind serves (the cgroup above) gets MADV_SEQUENTIAL
# for a sequential access_style (core/storage.c advice_for, applied by
# writebehind.c when it serves the window).
mpisw_mpi_test(storage_mmap_advice_served_sequential PROG t_writebehind
               ARGS advice sequential sr ${_wb_mib} NP 1 LABELS "storage;root"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/cgroupdrv.sh ${_wb_cg} --)
# auto (the default) elsewhere: sequential and random leave read-around to
# the kernel, read_once alone gets MADV_SEQUENTIAL; hint: access_style as before.
foreach(c "sequential;-" "random;-" "read_once;sr" "read_once,write_mostly;-")
  list(GET c 0 style)
  list(GET c 1 flag)
  string(REPLACE "," "_" _s ${style})
  mpisw_mpi_test(storage_mmap_advice_auto_${_s} PROG t_writebehind ARGS advice ${style} ${flag}
                 NP 1 LABELS storage)
endforeach()
foreach(c "sequential;sr" "random;rr")
  list(GET c 0 style)
  list(GET c 1 flag)
  mpisw_mpi_test(storage_mmap_advice_hint_${style} PROG t_writebehind
                 ARGS advice ${style} ${flag} NP 1 ENV MPISW_MMAP_ADVICE=hint LABELS storage)
endforeach()
# kill -9 after MPI_Win_sync with the thread writing behind all along: every
# synced byte is in the file. 20 trials with MPICH (6 s), 5 with Open MPI
# (its launch is slower: 8 s); the 100 of crash_after_sync_mmap run without it.
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  set(_wb_trials 20)
else()
  set(_wb_trials 5)
endif()
mpisw_mpi_test(crash_after_sync_mmap_writebehind PROG t_crash_sync NP 1
               ENV MPISW_WRITEBEHIND=on
               LABELS "durability;reliability;mmap"
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/atomic_kill.sh ${_wb_trials} all
                      mmap $<TARGET_FILE:crash_sync_check>)
set_tests_properties(mpi_crash_after_sync_mmap_writebehind_np1 PROPERTIES TIMEOUT 180
                     SKIP_RETURN_CODE 77)
