# Pooled files (issue 15, docs/POOLED_FILES.md): MPI-IO semantics on "mem:"
# files (t_mpiio, the same checks as on real files in mpiio.cmake) and what
# only pooled files have (t_pfile). ctest -L pfile
mpisw_mpi_test(pfile_mpiio PROG t_mpiio ARGS mem:/t NP 1 2 4 LABELS "mpiio;pfile")
add_executable(t_pfile mpi/t_pfile.c)
target_link_libraries(t_pfile PRIVATE mpisw_testlib mpisw)
mpisw_mpi_test(pfile_route PROG t_pfile ARGS route NP 1 2 LABELS pfile
               ENV "MPISW_MEM_PATHS=/mpisw-pooled-test/*:*.pooltest")
mpisw_mpi_test(pfile_excl PROG t_pfile ARGS excl NP 2 4 LABELS pfile)
mpisw_mpi_test(pfile_stage PROG t_pfile ARGS stage NP 1 3 LABELS pfile)
mpisw_mpi_test(pfile_atomic PROG t_pfile ARGS atomic NP 2 4 LABELS pfile)
mpisw_mpi_test(pfile_full PROG t_pfile ARGS full NP 2 LABELS pfile ENV MPISW_POOL_SIZE=8M)
mpisw_mpi_test(pfile_hints PROG t_pfile ARGS hints NP 2 LABELS pfile)
