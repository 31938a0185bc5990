# A rank dies while the others use the pool (issue 15, "Errors and
# safety"): the survivors get MPI_ERR_IO naming the lock and the dead rank,
# never a hang. tests/pool/t_deadrank.c; driver tests/tools/deadrank.sh
# (a hard timeout). ctest -L deadrank.
add_executable(t_deadrank ${CMAKE_CURRENT_SOURCE_DIR}/pool/t_deadrank.c)
target_include_directories(t_deadrank PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_deadrank PRIVATE mpisw_static m Threads::Threads)
# MPICH 4.0.2's hydra, measured (strace of the proxy): with
# -disable-auto-cleanup a rank killed by a signal still makes the proxy
# SIGKILL the others; a rank that exits non-zero makes it send SIGUSR1 to
# the others, which MPICH does not catch (they die of it). So each rank runs
# under sh -c with SIGUSR1 ignored (the dead rank's exit is then its
# shell's, 137): the survivors live on. Default hydra ends the job: no
# hang. Open MPI 4.1 keeps the survivors with --enable-recovery; without it
# the job ends.
set(_dr ${MPISW_SH} ${MPISW_TOOLS}/deadrank.sh 20)
set(_dr_env MPISW_POOL_SIZE=64M)
# (the victim is the last rank: np - 1, the number of survivors)
set(_dr_re_flock "MPISW_POOL_IO: pooled file /deadrank/data: the file lock \\(atomic mode\\) on rank [0-9]+ is held by rank @V@, which died \\(pid [0-9]+ ended\\)")
set(_dr_re_chain "MPISW_POOL_IO: pooled file /deadrank/keep: the directory's chain lock .* is held by rank @V@, which died")
set(_dr_re_alloc "MPISW_POOL_IO: pooled file /deadrank/data: the allocation lock \\(blocks\\) on rank [0-9]+ is held by rank @V@, which died")
set(_dr_re_none "survived after the death")
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  set(_dr_keep -disable-auto-cleanup)
  set(_dr_wrap sh -c "trap '' USR1$<SEMICOLON> \"$0\" \"$@\"")
else()
  set(_dr_keep --enable-recovery)
  set(_dr_wrap "")
endif()
foreach(scen flock chain alloc none)
  foreach(np 2 4)
    math(EXPR surv "${np} - 1")
    set(tn mpi_pool_deadrank_${scen}_np${np})
    string(REPLACE "@V@" "${surv}" re "${_dr_re_${scen}}")
    add_test(NAME ${tn}
             COMMAND ${_dr} survivors ${surv} "${re}" --
                     ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} ${_dr_keep} -n ${np}
                     ${_dr_wrap} $<TARGET_FILE:t_deadrank> ${scen})
    mpisw_mpi_props(${tn} ${np} "mpi;pool;deadrank" ${_dr_env})
  endforeach()
  # without the option that keeps survivors: the job ends, no hang
  set(tn mpi_pool_deadrank_${scen}_ends_np2)
  add_test(NAME ${tn}
           COMMAND ${_dr} ends -- ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} -n 2
                   $<TARGET_FILE:t_deadrank> ${scen})
  mpisw_mpi_props(${tn} 2 "mpi;pool;deadrank" ${_dr_env})
endforeach()
# Two simulated nodes of 2 ranks (MPICH's fork launcher, one host name per
# node through simhost.sh, as tests/tools/multinode.sh): the pool's rma
# path. The victim (rank 3) runs under this kernel, so its death is seen
# (pidfd) and no RMA call is made to it; bound 30 s (4 ranks on 2 cores).
if(MPISW_MPI_FLAVOR STREQUAL "mpich")
  foreach(scen flock chain alloc none)
    string(REPLACE "@V@" "3" re "${_dr_re_${scen}}")
    add_test(NAME mpi_pool_deadrank_${scen}_multinode
             COMMAND ${MPISW_SH} -c "unshare --uts true 2>/dev/null || { echo 'SKIP: needs unshare --uts (root) for simulated nodes'$<SEMICOLON> exit 77$<SEMICOLON> }$<SEMICOLON> exec \"$@\"" sh
                     ${MPISW_SH} ${MPISW_TOOLS}/deadrank.sh 30 survivors 3 "${re}" --
                     ${MPISW_MPIEXEC} -disable-auto-cleanup -launcher fork
                     -hosts mpisw-node0,mpisw-node1 -ppn 2 -n 4 ${_dr_wrap}
                     ${MPISW_SH} ${MPISW_TOOLS}/simhost.sh $<TARGET_FILE:t_deadrank> ${scen} rma)
    mpisw_mpi_props(mpi_pool_deadrank_${scen}_multinode 4
                    "mpi;root;multinode;pool;deadrank" ${_dr_env})
  endforeach()
endif()
# A holder this process cannot watch (as on another node): the wait ends
# after MPISW_POOL_TIMEOUT seconds with the error naming it. Nobody dies.
mpisw_mpi_test(pool_deadrank_unseen PROG t_deadrank ARGS unseen NP 2 4
               ENV MPISW_POOL_SIZE=64M MPISW_POOL_TIMEOUT=2 LABELS pool deadrank)
