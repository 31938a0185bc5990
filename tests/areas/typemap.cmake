# The datatype engine of pooled files (src/pfile/typemap*.c): type maps,
# packing, file views, checked against the MPI's own MPI_Pack/MPI_Unpack and
# ROMIO's MPI_File_set_view. Linked with libmpisw.a to reach the engine's
# internal functions (the shared library hides them). ctest -L typemap
add_executable(t_typemap ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_typemap.c)
target_include_directories(t_typemap PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(t_typemap PRIVATE mpisw_static m Threads::Threads)
foreach(seed 1 2)
  mpisw_mpi_test(typemap_pack_s${seed}   PROG t_typemap ARGS pack ${seed}   NP 1 2 LABELS typemap)
  mpisw_mpi_test(typemap_view_s${seed}   PROG t_typemap ARGS view ${seed}   NP 1 2 LABELS typemap)
  mpisw_mpi_test(typemap_offset_s${seed} PROG t_typemap ARGS offset ${seed} NP 1 LABELS typemap)
endforeach()
mpisw_mpi_test(typemap_reject PROG t_typemap ARGS reject NP 1 LABELS typemap)
mpisw_mpi_test(typemap_cache  PROG t_typemap ARGS cache  NP 1 LABELS typemap)
mpisw_mpi_test(typemap_large  PROG t_typemap ARGS large  NP 1 LABELS typemap)
# Legal views MPICH 4.0's ROMIO refuses or maps elsewhere: ours agree with
# MPI's type map (what the MPI-IO says is printed, not judged).
mpisw_mpi_test(typemap_known  PROG t_typemap ARGS known  NP 1 LABELS typemap)
