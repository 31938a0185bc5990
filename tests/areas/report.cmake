# MPISW_REPORT (src/process/report.c, leaks.c): the line at MPI_Init and every
# figure of the summary at MPI_Finalize, leaks included, parsed from a
# program with known windows (tests/report/). ctest -L report
add_executable(t_report ${CMAKE_CURRENT_SOURCE_DIR}/report/t_report.c)
target_link_libraries(t_report PRIVATE mpisw)
find_program(MPISW_REPORT_PYTHON3 NAMES python3)
if(MPISW_REPORT_PYTHON3)
  foreach(np 1 2 4)
    add_test(NAME report_figures_np${np}
             COMMAND ${MPISW_REPORT_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/report/report_check.py
                     ${np} ${PROJECT_VERSION} ${MPISW_MPI_FLAVOR} $<TARGET_FILE:t_report> --
                     ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
    set_tests_properties(report_figures_np${np} PROPERTIES TIMEOUT 90 PROCESSORS ${np}
                         LABELS "mpi;report")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(report_figures_np${np} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endforeach()
endif()
