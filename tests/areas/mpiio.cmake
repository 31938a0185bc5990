# MPI-IO through the library (issue 15): tests/mpi/t_mpiio.c checks MPI-IO
# semantics on any file. On real files (the scratch directory, /dev/shm) it
# shows that the MPI's own MPI-IO behaves as without mpisw: every MPI_File_*
# call is interposed (MPI_ and PMPI_ names) and passed through.
add_executable(t_mpiio mpi/t_mpiio.c)
target_link_libraries(t_mpiio PRIVATE mpisw_testlib mpisw)
if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
  # Open MPI 4.1's own MPI-IO (ompio) gets MPI_File_set_size wrong with several
  # ranks (some ranks then see twice the size, or preallocate's size not at
  # all, with or without mpisw): its sizes case runs on the ROMIO Open MPI
  # also ships, whose nonblocking calls in turn crash (MPI_File_iwrite_at,
  # without mpisw too).
  mpisw_mpi_test(mpiio_passthrough PROG t_mpiio ARGS scratch -sizes NP 1 2 4 LABELS mpiio)
  mpisw_mpi_test(mpiio_passthrough_romio PROG t_mpiio ARGS scratch sizes NP 2 4 LABELS mpiio
                 ENV OMPI_MCA_io=romio321)
  mpisw_mpi_test(mpiio_passthrough_shm PROG t_mpiio ARGS shm -sizes NP 2 LABELS mpiio)
else()
  mpisw_mpi_test(mpiio_passthrough PROG t_mpiio ARGS scratch NP 1 2 4 LABELS mpiio)
  mpisw_mpi_test(mpiio_passthrough_shm PROG t_mpiio ARGS shm NP 2 LABELS mpiio)
endif()
