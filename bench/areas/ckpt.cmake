# Checkpoint benchmark (bench/suite_ckpt.py, suite "ckpt"; issue 16): the
# application's checkpoint time writing to a slow file system directly vs
# LOCAL + the drain engine (src/ckpt/stage*.c, compiled in) vs the public
# checkpoint API when mpisw.h has it.
find_package(Threads REQUIRED)
add_executable(ckpt_bench ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_bench.c
               ${PROJECT_SOURCE_DIR}/src/ckpt/stage.c ${PROJECT_SOURCE_DIR}/src/ckpt/stage_copy.c
               $<TARGET_OBJECTS:mpisw_core>)
target_include_directories(ckpt_bench PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(ckpt_bench PRIVATE _GNU_SOURCE)
file(READ ${PROJECT_SOURCE_DIR}/include/mpisw.h _mpisw_h)
string(FIND "${_mpisw_h}" "mpisw_ckpt_create" _has_ckpt)
if(NOT _has_ckpt EQUAL -1)
  target_compile_definitions(ckpt_bench PRIVATE MPISW_BENCH_HAVE_CKPT)
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/mpisw.h)
target_link_libraries(ckpt_bench PRIVATE mpisw m Threads::Threads)

# bench_ckpt_tiny: the benchmark once, tiny, at 2 ranks on /tmp, direct and
# engine modes, the newest version read back from the "PFS" directory and
# checked byte by byte; nothing left behind.
if(BUILD_TESTING)
  string(REPLACE ";" " " _ckpt_preflags "${MPISW_MPIEXEC_PREFLAGS}")
  foreach(mode direct engine)
    add_test(NAME bench_ckpt_tiny_${mode}
             COMMAND ${MPISW_SH} ${PROJECT_SOURCE_DIR}/tests/tools/ckpt_bench_check.sh
                     ${MPISW_MPIEXEC} "${_ckpt_preflags}" $<TARGET_FILE:ckpt_bench> ${mode})
    set_tests_properties(bench_ckpt_tiny_${mode} PROPERTIES TIMEOUT 60 PROCESSORS 2
                         LABELS "bench;ckpt;stage;${MPISW_MPI_FLAVOR}")
    if(MPISW_MPIEXEC_ENV)
      set_tests_properties(bench_ckpt_tiny_${mode} PROPERTIES ENVIRONMENT "${MPISW_MPIEXEC_ENV}")
    endif()
  endforeach()
endif()
