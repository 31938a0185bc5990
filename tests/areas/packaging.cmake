# Packaging (issue 13): hint macros in mpisw.h for every hint the library
# reads, dht --version. (Install, pkg-config shared and static, the CMake
# package, dht and the docs in a prefix: install_consumer, top-level
# CMakeLists.txt.) ctest -L packaging
find_program(MPISW_PACKAGING_PYTHON3 NAMES python3)
if(MPISW_PACKAGING_PYTHON3)
  add_test(NAME packaging_hint_macros
           COMMAND ${MPISW_PACKAGING_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/packaging/hint_macros.py
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(packaging_hint_macros PROPERTIES TIMEOUT 30 LABELS "packaging")
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/apps/dht/CMakeLists.txt) # dht is added after tests/
  set(_mpi_name "MPICH")
  if(MPISW_MPI_FLAVOR STREQUAL "openmpi")
    set(_mpi_name "Open MPI")
  endif()
  string(REPLACE "." "\\." _v "${PROJECT_VERSION}")
  add_test(NAME packaging_dht_version COMMAND $<TARGET_FILE:dht> --version)
  set_tests_properties(packaging_dht_version PROPERTIES TIMEOUT 30 LABELS "packaging"
    PASS_REGULAR_EXPRESSION "^dht ${_v} \\(mpisw, built for ${_mpi_name}\\)\n$")
endif()
# The README's list of interposed calls equals the library's exports.
find_program(MPISW_PACKAGING_NM NAMES nm)
if(MPISW_PACKAGING_PYTHON3 AND MPISW_PACKAGING_NM)
  add_test(NAME packaging_interposed_list
           COMMAND ${MPISW_PACKAGING_PYTHON3}
                   ${CMAKE_CURRENT_SOURCE_DIR}/packaging/interposed_list.py
                   ${PROJECT_SOURCE_DIR}/README.md $<TARGET_FILE:mpisw> ${MPISW_MPI_FLAVOR})
  set_tests_properties(packaging_interposed_list PROPERTIES TIMEOUT 30 LABELS "packaging")
endif()
# Hidden names of the static library (issue 14): a program linked with
# libmpisw.a gets no rmax_*, kv_*, pager_* of ours.
if(MPISW_PACKAGING_NM)
  add_test(NAME packaging_static_symbols
           COMMAND ${MPISW_SH} ${MPISW_TOOLS}/static_symbols.sh ${MPISW_PACKAGING_NM}
                   $<TARGET_FILE:mpisw_static>)
  set_tests_properties(packaging_static_symbols PROPERTIES TIMEOUT 30 LABELS "packaging")
endif()
