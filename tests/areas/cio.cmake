# The collective I/O engine (src/cio/; docs/COLLECTIVE_IO.md "The engine",
# "Hints and report"). ctest -L cio. One machine poses as several nodes with
# MPISW_TOPO_HOSTNAME=n%r (every rank its own node: one file domain per rank
# by default, and hop distances between them).
add_executable(t_cio ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_cio.c)
target_link_libraries(t_cio PRIVATE mpisw_testlib mpisw)

# Every view x every strategy byte-identical to the MPI's own collective
# write, read back by the engine and by the MPI on the same handle: one node
# (one aggregator), every rank a node with a 64-byte collective buffer (many
# rounds), cb_nodes=auto, and more aggregators than nodes.
# One rank with the two phases forced (romio_cb_write/_read=enable; ROMIO's
# automatic rule makes a lone rank's call independent), two ranks by the
# rule (the views whose ranks interleave get two phases, the others none).
mpisw_mpi_test(cio_views_2phase PROG t_cio ARGS views - - - enable NP 1 LABELS cio)
mpisw_mpi_test(cio_views PROG t_cio ARGS views NP 2 LABELS cio)
mpisw_mpi_test(cio_views_rounds PROG t_cio NP 2 LABELS cio ENV MPISW_TOPO_HOSTNAME=n%r
               ARGS views - 64 contiguous,vector,indexed_holes,pointer enable)
if(MPISW_MPI_FLAVOR STREQUAL "openmpi") # against the ROMIO Open MPI also ships
  mpisw_mpi_test(cio_views_romio321 PROG t_cio ARGS views NP 2 LABELS cio extended
                 ENV OMPI_MCA_io=romio321)
endif()
mpisw_mpi_test(cio_views_auto PROG t_cio NP 2 LABELS cio ENV MPISW_TOPO_HOSTNAME=n%r
               ARGS views auto 256 subarray2d,struct,zero_count)
# np 4 (MPICH busy-polls 4 ranks on 2 cores: a few views)
mpisw_mpi_test(cio_views4 PROG t_cio NP 4 LABELS cio extended
               ARGS views auto 256 subarray3d,indexed_holes,pointer
               ENV MPISW_TOPO_HOSTNAME=n0,n0,n1,n1)
mpisw_mpi_test(cio_views4_cbnodes PROG t_cio NP 4 LABELS cio extended
               ARGS views 3 1000 struct,write_at_all)
mpisw_mpi_test(cio_views4_independent PROG t_cio NP 4 LABELS cio extended
               ARGS views - - darray,zero_count disable)

# Pooled files ("mem:"): the views written by the engine (each strategy)
# and by pfile's own path, byte-identical to the MPI's collective write to
# an ordinary file, read back by the engine and by independent reads; many
# rounds of a 64-byte buffer, every rank its own node.
mpisw_mpi_test(cio_pool PROG t_cio ARGS pool NP 2 LABELS cio pfile)
mpisw_mpi_test(cio_pool_rounds PROG t_cio NP 2 LABELS cio pfile ENV MPISW_TOPO_HOSTNAME=n%r
               ARGS pool - 64 contiguous,vector,indexed_holes,pointer,write_at_all)
mpisw_mpi_test(cio_pool4 PROG t_cio NP 4 LABELS cio pfile extended
               ARGS pool auto 256 subarray3d,zero_count
               ENV MPISW_TOPO_HOSTNAME=n0,n0,n1,n1)
# The report's checks on a pooled file (info keys, nonblocking and split
# forms, the independent rule, atomic mode left to pfile), the strategy
# from the environment.
mpisw_mpi_test(cio_pool_report PROG t_cio ARGS report mem:t_cio_report env NP 2
               LABELS cio pfile ENV MPISW_TOPO_HOSTNAME=n%r MPISW_CB_STRATEGY=tatp)
# The engine's write fills the pool: MPI_ERR_NO_SPACE on every rank.
mpisw_mpi_test(cio_pool_full PROG t_cio ARGS poolfull NP 2 LABELS cio pfile
               ENV MPISW_POOL_SIZE=8M)

# The aggregators' writes behind the next round's shuffle (src/cio/behind.c):
# every round of a many-round write on the helper thread, none with
# mpisw_cb_write_behind=false, the same file; /dev/full under the thread.
mpisw_mpi_test(cio_behind PROG t_cio ARGS behind NP 2 LABELS cio ENV MPISW_TOPO_HOSTNAME=n%r)

# Bad hints, ranks that disagree (at open, in a call): the error on every rank.
mpisw_mpi_test(cio_errors PROG t_cio ARGS errors NP 1 2 LABELS cio)
mpisw_mpi_test(cio_errors4 PROG t_cio ARGS errors NP 4 LABELS cio extended)
mpisw_mpi_test(cio_env_strategy PROG t_cio NP 2 LABELS cio
               ARGS enverror 0 "MPISW_CB_STRATEGY: not a strategy (otp, latp, tatp or romio)"
               ENV MPISW_CB_STRATEGY=bogus)
mpisw_mpi_test(cio_env_topology PROG t_cio NP 2 LABELS cio
               ARGS enverror 1 "MPISW_TOPOLOGY: cannot open the topology file /nonexistent-mpisw-cio.conf"
               ENV MPISW_CB_STRATEGY=tatp MPISW_TOPOLOGY=/nonexistent-mpisw-cio.conf)

# The report: info keys (TATP 0 hop-bytes where OTP moves every byte, the
# link load, the matrix gathered alone then with the agreement), nonblocking
# and split forms; MPISW_REPORT's line per call.
set(_expect ${MPISW_SH} ${MPISW_TOOLS}/expect_stderr.sh)
mpisw_mpi_test(cio_report PROG t_cio ARGS report NP 2 LABELS cio
               ENV MPISW_TOPO_HOSTNAME=n%r MPISW_REPORT=1
               DRIVER ${_expect}
                      "has:mpisw: collective I/O: write_at_all on"
                      "has:strategy=tatp cb_nodes=2 aggregators=1,0 bytes=8192 rounds=1 hopbytes=0 hopbytes_otp=16384 hopbytes_latp=0 hopbytes_tatp=0 max_link_load=0"
                      "has:matrix=own-gather"
                      "has:matrix=with-agreement"
                      "has:strategy=otp cb_nodes=2 aggregators=0,1 bytes=8192 rounds=1 hopbytes=16384"
                      "once:mpisw: collective I/O engine: 11 collective calls"
                      "has:strategy=otp independent (no interleaving) bytes=8192" --)
mpisw_mpi_test(cio_report4 PROG t_cio ARGS report NP 4 LABELS cio extended
               ENV MPISW_TOPO_HOSTNAME=n%r)
