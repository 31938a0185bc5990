# The PARTNER and XOR levels of checkpoints (src/ckpt/redund.h) on simulated
# nodes: MPICH's fork launcher with -hosts, Open MPI with a host name per
# rank (tests/tools/redund_nodes.sh; both need root for UTS namespaces).
# Linked with libmpisw.a to reach the internal seam. ctest -L ckpt_redund
add_executable(t_redund ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_redund.c)
target_include_directories(t_redund PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_redund PRIVATE mpisw_testlib mpisw_static m Threads::Threads)
# mpisw_redund_test(NAME NODES PPN MODE...): NODES x PPN ranks, PROCESSORS NODES*PPN.
function(mpisw_redund_test name nodes ppn)
  math(EXPR np "${nodes} * ${ppn}")
  add_test(NAME ${name}
           COMMAND ${MPISW_SH} ${MPISW_TOOLS}/redund_nodes.sh ${MPISW_MPI_FLAVOR} ${MPISW_MPIEXEC}
                   ${nodes} ${ppn} $<TARGET_FILE:t_redund> ${ARGN})
  mpisw_mpi_props(${name} ${np} "mpi;root;multinode;ckpt_redund")
endfunction()
mpisw_redund_test(ckpt_redund_partner_2x2 2 2 partner)
mpisw_redund_test(ckpt_redund_xor_4x1 4 1 xor)
mpisw_redund_test(ckpt_redund_xor_4x2 4 2 xor)
# 5 nodes of one rank: a group of 4, the fifth rank joins it (a group of 5).
mpisw_redund_test(ckpt_redund_xor_5x1 5 1 xor 5)
# An empty image and one larger than the others together (then lost).
mpisw_redund_test(ckpt_redund_xor_skew_4x1 4 1 xor 4 skew)
mpisw_redund_test(ckpt_redund_xor2lost_4x1 4 1 xor2lost)
# One node: both levels refused with a clear error (no simulated hosts needed).
mpisw_mpi_test(ckpt_redund_onenode PROG t_redund ARGS onenode NP 2 LABELS ckpt_redund)
# LOCAL on an 8 MiB tmpfs: the partner windows cannot grow -> MPISW_ERR_NOSPACE,
# earlier copies intact (mountdrv.sh: root, a private mount namespace).
add_test(NAME ckpt_redund_nospace_2x1
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/mountdrv.sh tmpfs8m --
                 ${MPISW_SH} ${MPISW_TOOLS}/redund_nodes.sh ${MPISW_MPI_FLAVOR} ${MPISW_MPIEXEC}
                 2 1 $<TARGET_FILE:t_redund> nospace)
mpisw_mpi_props(ckpt_redund_nospace_2x1 2 "mpi;root;multinode;ckpt_redund")

# End to end through the public API (mpisw_ckpt_*): PARTNER and XOR taken by
# the core, a node lost, a new set's restart rebuilds and restores.
add_executable(t_ckpt_levels ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_ckpt_levels.c)
target_link_libraries(t_ckpt_levels PRIVATE mpisw_testlib mpisw m)
function(mpisw_ckpt_levels_test name nodes ppn mode)
  math(EXPR np "${nodes} * ${ppn}")
  add_test(NAME ${name}
           COMMAND ${MPISW_SH} ${MPISW_TOOLS}/redund_nodes.sh ${MPISW_MPI_FLAVOR} ${MPISW_MPIEXEC}
                   ${nodes} ${ppn} $<TARGET_FILE:t_ckpt_levels> ${mode})
  mpisw_mpi_props(${name} ${np} "mpi;root;multinode;ckpt_redund")
endfunction()
mpisw_ckpt_levels_test(ckpt_levels_partner_2x2 2 2 partner)
mpisw_ckpt_levels_test(ckpt_levels_xor_4x1 4 1 xor)
mpisw_mpi_test(ckpt_levels_onenode PROG t_ckpt_levels ARGS onenode NP 2 LABELS ckpt_redund)
# kill -9 of the whole job during PARTNER stores (4 trials, each a storing
# job killed at a random instant and a restart job that loses a node).
add_test(NAME ckpt_redund_kill9_2x1
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/redund_kill.sh 4 ${MPISW_MPI_FLAVOR} ${MPISW_MPIEXEC}
                 $<TARGET_FILE:t_redund>)
mpisw_mpi_props(ckpt_redund_kill9_2x1 2 "mpi;root;multinode;ckpt_redund;reliability")
