# The configuration table, sizes, hint checks, messages, mpisw-info
# (src/core/config.c, hints.c, error.c, tools/mpisw-info.c). ctest -L config

# Unit tests of the cores, no MPI.
foreach(t test_config test_error)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/unit/${t}.c $<TARGET_OBJECTS:mpisw_core>)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src
                                          ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_compile_definitions(${t} PRIVATE _GNU_SOURCE)
  target_link_libraries(${t} PRIVATE Threads::Threads)
endforeach()
# test_config also checks that the README's environment table is the table.
add_test(NAME unit_test_config COMMAND test_config ${PROJECT_SOURCE_DIR}/README.md)
add_test(NAME unit_test_error COMMAND test_error)
set_tests_properties(unit_test_config unit_test_error PROPERTIES TIMEOUT 30 LABELS "config")

# MPI programs; expect_stderr.sh checks what they print (each text a fixed string).
add_executable(t_config ${CMAKE_CURRENT_SOURCE_DIR}/mpi/t_config.c)
target_link_libraries(t_config PRIVATE mpisw_testlib mpisw)
set(_expect ${MPISW_SH} ${MPISW_TOOLS}/expect_stderr.sh)

# Error messages: a ~1000-character path keeps the reason; file_perm=06777.
string(REPEAT "a" 240 _a)
string(REPEAT "b" 240 _b)
string(REPEAT "c" 240 _c)
string(REPEAT "d" 240 _d)
mpisw_mpi_test(config_longpath  PROG t_config ARGS longpath  NP 1 2 LABELS config
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/envrun.sh
                      "MPISW_HINTS=alloc_type=storage@SC@storage_alloc_filename=@DIR@/${_a}/${_b}/${_c}/${_d}/file-r%r" --)
mpisw_mpi_test(config_file_perm PROG t_config ARGS file_perm NP 1 2 LABELS config)

# MPISW_ARENA_SIZE far beyond memory: MPI_Init returns at once, rank 0 warns
# once, no arena (it used to hang inside the MPI for minutes).
mpisw_mpi_test(config_arena_budget PROG t_config ARGS arena NP 1 2 LABELS config
               ENV MPISW_ARENA_SIZE=512T
               DRIVER ${_expect} "once:MPISW_ARENA_SIZE=512T (562949953421312 bytes) is more than"
                      "once:no arena is made" secs:20 --)
# ... and with MPISW_MEMORY_LIMIT, a size within memory but past the limit.
mpisw_mpi_test(config_arena_limit PROG t_config ARGS arena NP 2 LABELS config
               ENV MPISW_ARENA_SIZE=256M MPISW_MEMORY_LIMIT=128M
               DRIVER ${_expect} "once:no arena is made" "has:(MPISW_MEMORY_LIMIT)" --)
# The default arena is not charged to MPISW_MEMORY_LIMIT (which budgets windows).
mpisw_mpi_test(config_arena_default_limit PROG t_config ARGS arena NP 2 LABELS config
               ENV MPISW_MEMORY_LIMIT=1M DRIVER ${_expect} "none:no arena" --)
mpisw_mpi_test(config_arena_fits PROG t_config ARGS arena NP 2 LABELS config
               ENV MPISW_ARENA_SIZE=1M
               DRIVER ${_expect} "none:no arena" --)

# Bad environment values: one warning each (rank 0 only), defaults hold.
mpisw_mpi_test(config_env_warn PROG t_config ARGS plain NP 1 2 LABELS config
               ENV MPISW_PAGER_WORKERS=x MPISW_PAGER_READAHEAD=abc MPISW_MEMORY_LIMIT=12Q
                   MPISW_REPORT=yes
               DRIVER ${_expect}
                      "once:MPISW_PAGER_WORKERS='x' is not valid (accepted: an integer from 1 to 64)"
                      "once:using the default (4)"
                      "once:MPISW_PAGER_READAHEAD='abc' is not valid"
                      "once:MPISW_MEMORY_LIMIT='12Q' is not valid (accepted: a byte count"
                      "once:MPISW_REPORT='yes' is not valid (accepted: 1, 0, true or false"
                      "none:mpisw: report" --)
# MPISW_CONFIG=dump: the effective configuration, once.
mpisw_mpi_test(config_dump PROG t_config ARGS plain NP 1 2 LABELS config
               ENV MPISW_CONFIG=dump MPISW_PAGER_WORKERS=8
               DRIVER ${_expect} "once:mpisw: effective configuration"
                      "once:MPISW_PAGER_WORKERS    8 (environment)"
                      "once:MPISW_CONFIG           dump (environment)"
                      "once:MPISW_ARENA_SIZE       64M (default)" --)
mpisw_mpi_test(config_version PROG t_config ARGS version NP 1 LABELS config
               ENV MPISW_PAGER_WORKERS=3 MPISW_REPORT=yes)

# A typo in MPISW_HINTS: warned once (whatever the number of windows and
# ranks), naming the nearest known key; the key is ignored.
mpisw_mpi_test(config_hints_unknown PROG t_config ARGS hintwarn NP 1 2 LABELS config
               DRIVER ${MPISW_SH} ${MPISW_TOOLS}/envrun.sh
                      "MPISW_HINTS=alloc-type=storage@SC@storage_alloc_filename=@DIR@" --
                      ${_expect} "once:MPISW_HINTS: unknown key 'alloc-type' is ignored (did you mean 'alloc_type'?)"
                      "none:unknown key 'storage_alloc_filename'" --)

# mpisw-info: version, the MPI it was built for, the configuration.
if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
  set(_flavor "Open MPI")
else()
  set(_flavor "MPICH")
endif()
add_test(NAME config_mpisw_info
         COMMAND ${CMAKE_COMMAND} -E env MPISW_PAGER_WORKERS=5 MPISW_ARENA_SIZE=junk
                 ${_expect} "once:mpisw ${PROJECT_VERSION}" "once:built for:   ${_flavor}"
                 "once:MPI library: ${_flavor}" "once:active:      yes"
                 "once:MPISW_PAGER_WORKERS    5 (environment)"
                 "once:MPISW_ARENA_SIZE       64M (default" "once:the environment's 'junk' is not valid)"
                 "once:MPISW_ARENA_SIZE='junk' is not valid" "once:MPISW_CONFIG           unset (default)"
                 secs:20 -- ${MPISW_SH} -c "$<TARGET_FILE:mpisw-info> >&2")
set_tests_properties(config_mpisw_info PROPERTIES TIMEOUT 30 LABELS config)
