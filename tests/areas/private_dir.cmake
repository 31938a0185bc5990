# A checkout where other users cannot enter (issue 21): the tests that drop
# privileges (tests/tools/nopriv.sh) must pass there too. privdir.sh puts the
# program and libmpisw in a fresh 0700 directory and starts from it; .ci/run
# runs the whole suite from a clone in a 0700 directory as well.
mpisw_mpi_test(pager_fallback_private PROG t_pager ARGS fallback NP 1 2 LABELS pager root
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/privdir.sh ${PROJECT_BINARY_DIR} --
                      ${MPISW_SH} ${MPISW_TOOLS}/nopriv.sh --)
