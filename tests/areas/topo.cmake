# Collective I/O's topology model (src/topo/, src/cio/topo_ranks.c,
# tools/mpisw-topo.c; docs/COLLECTIVE_IO.md "The topology model"). ctest -L topo

# MPI-free: hostlists, topology.conf and its errors, distances, link loads,
# distances inside a node on synthetic hwloc machines.
add_executable(test_topo ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_topo.c
               $<TARGET_OBJECTS:mpisw_topo> $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(test_topo PRIVATE ${PROJECT_SOURCE_DIR}/src
                                             ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(test_topo PRIVATE _GNU_SOURCE)
target_link_libraries(test_topo PRIVATE hwloc Threads::Threads)
add_test(NAME unit_test_topo COMMAND test_topo)
set_tests_properties(unit_test_topo PROPERTIES TIMEOUT 30 LABELS topo)

# The rank matrix D under mpiexec (src/cio/topo_ranks.c), linked with
# libmpisw.a to reach the internal call. One machine poses as several nodes
# through MPISW_TOPO_HOSTNAME (rank r takes the r-th name of the list).
add_executable(t_topo ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_topo.c)
target_include_directories(t_topo PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_topo PRIVATE mpisw_static m Threads::Threads)
set(_topo_dir ${CMAKE_CURRENT_SOURCE_DIR}/topo)
set(_expect ${MPISW_SH} ${MPISW_TOOLS}/expect_stderr.sh)
mpisw_mpi_test(topo_node PROG t_topo ARGS node NP 2 4 LABELS topo)
mpisw_mpi_test(topo_flat PROG t_topo ARGS flat NP 2 LABELS topo ENV MPISW_TOPO_HOSTNAME=n%r)
mpisw_mpi_test(topo_tree PROG t_topo ARGS tree NP 2 4 LABELS topo
               ENV MPISW_TOPO_HOSTNAME=n0,n2,n4,n5 MPISW_TOPOLOGY=${_topo_dir}/sample.conf)
mpisw_mpi_test(topo_pairs PROG t_topo ARGS pairs NP 4 LABELS topo
               ENV MPISW_TOPO_HOSTNAME=n0,n0,n2,n2 MPISW_TOPOLOGY=${_topo_dir}/sample.conf)
# A host the file does not name: one warning, the flat default.
mpisw_mpi_test(topo_missing PROG t_topo ARGS missing NP 2 LABELS topo
               ENV MPISW_TOPO_HOSTNAME=n0,zz MPISW_TOPOLOGY=${_topo_dir}/sample.conf
               DRIVER ${_expect} "once:mpisw: MPISW_TOPOLOGY=${_topo_dir}/sample.conf: 'zz' is not in the topology file"
                      "once:every pair of nodes is taken as 2 hops apart (the flat default)" --)
# A wrong file: the same error on every rank (kind 0 = MPISW_ERR_HINT, 1 = _NOFILE).
mpisw_mpi_test(topo_badfile PROG t_topo NP 2 4 LABELS topo
               ARGS error 0 "MPISW_TOPOLOGY: ${_topo_dir}/bad_unknown.conf:4: unknown switch 'leaf9' in Switches= of switch 'top'"
               ENV MPISW_TOPOLOGY=${_topo_dir}/bad_unknown.conf)
mpisw_mpi_test(topo_nofile PROG t_topo NP 2 LABELS topo
               ARGS error 1 "MPISW_TOPOLOGY: cannot open the topology file /nonexistent-mpisw-topo.conf"
               ENV MPISW_TOPOLOGY=/nonexistent-mpisw-topo.conf)
# Bad variables: the same error on every rank.
mpisw_mpi_test(topo_badname PROG t_topo NP 2 LABELS topo
               ARGS error 0 "MPISW_TOPO_HOSTNAME='a,,b': hostlist 'a,,b': an empty name"
               ENV MPISW_TOPO_HOSTNAME=a,,b)
mpisw_mpi_test(topo_badpattern PROG t_topo NP 2 LABELS topo
               ARGS error 0 "MPISW_TOPOLOGY='/tmp/x%q': only %r, %h and %% are expanded"
               ENV MPISW_TOPOLOGY=/tmp/x%q)

# mpisw-topo: a host list on the sample file, its errors, and a job's D.
set(_tool $<TARGET_FILE:mpisw-topo>)
add_test(NAME topo_tool_hosts
         COMMAND ${_expect} "once:sample.conf (5 switches, 6 nodes)" "once:hops between nodes (diameter 5):"
                 "once:       n0  n1  n4" "once:  n0    0   2   5" "once:  n4    5   5   0"
                 "once:  leaf2 -> mid" "once:  top (root)" --
                 ${MPISW_SH} -c "\"$0\" --hosts n[0-1],n4 --topology \"$1\" >&2" ${_tool} ${_topo_dir}/sample.conf)
add_test(NAME topo_tool_errors
         COMMAND ${_expect} "once:mpisw-topo: ${_topo_dir}/bad_unknown.conf:4: unknown switch 'leaf9'"
                 "once:mpisw-topo: ${_topo_dir}/sample.conf: 'zz' is not in the topology file"
                 "once:mpisw-topo: unknown or incomplete option '--bogus'" "once:Exit status: 0 printed" --
                 ${MPISW_SH} -c "\"$0\" --hosts n0 --topology \"$1\"; [ $? = 1 ] || exit 1
                   \"$0\" --hosts n0,zz --topology \"$2\" --strict; [ $? = 1 ] || exit 1
                   \"$0\" --bogus 2>&1 | head -3 >&2; \"$0\" --bogus 2>/dev/null; [ $? = 2 ] || exit 1
                   \"$0\" --help | grep -q 'Exit status' && \"$0\" --help | grep -F 'Exit status: 0 printed' >&2"
                 ${_tool} ${_topo_dir}/bad_unknown.conf ${_topo_dir}/sample.conf)
set_tests_properties(topo_tool_hosts topo_tool_errors PROPERTIES TIMEOUT 30 LABELS topo)
mpisw_mpi_test(topo_tool_job PROG mpisw-topo NP 2 LABELS topo
               ARGS --topology ${_topo_dir}/sample.conf ENV MPISW_TOPO_HOSTNAME=n0,n2
               DRIVER ${_expect} "once:2 ranks on 2 nodes" "once:     0  0.00  4.00" "once:     1  4.00  0.00"
                      "once:  n0 -> leaf0" -- ${MPISW_SH} -c "exec \"$@\" >&2" sh)
