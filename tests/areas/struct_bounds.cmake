# A struct filetype of blocks with and without explicit bounds, as parallel
# HDF5 builds for collective chunk writes, on a pooled file: tiled by MPI's
# rule for a struct's bounds, which Open MPI 4.1.4 does not follow
# (src/pfile/typemap.c). Fails on Open MPI without the correction.
add_executable(t_struct_bounds ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_struct_bounds.c)
target_link_libraries(t_struct_bounds PRIVATE mpisw_testlib mpisw)
mpisw_mpi_test(struct_bounds PROG t_struct_bounds NP 1 2 LABELS "pfile;typemap")
