# The README's C code (issue 13: its quick start once called MPI_Win_sync
# after a fence, which MPICH refuses when mpisw is not active): compiled with
# this build's MPI and libmpisw, run on 2 ranks with and without the library
# (MPISW_DISABLE=1). The examples get the same check as example_*_disabled.
add_test(NAME readme_code
         COMMAND ${MPISW_SH} ${MPISW_TOOLS}/readme_snippets.sh ${PROJECT_SOURCE_DIR}/README.md
                 ${MPI_C_COMPILER} ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS} --
                 $<TARGET_FILE:mpisw> -Wl,-rpath,$<TARGET_FILE_DIR:mpisw>)
set_tests_properties(readme_code PROPERTIES TIMEOUT 120 PROCESSORS 2 LABELS "example"
                     ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
