# Public headers (issue 14): every function of include/*.h is exported
# (MPISW_EXPORT) and documented (/** \brief, \param each, \return with its
# error classes); each header compiles alone as C99 -pedantic and as C++
# with C linkage; the built library exports every declared function. The
# *_rejects tests run the checker on a header that breaks each rule
# (tests/packaging/fixtures/bad_api.h), so it cannot pass on anything.
# ctest -L pubapi
find_program(MPISW_PUBAPI_PYTHON3 NAMES python3)
find_program(MPISW_PUBAPI_CXX NAMES g++ c++ clang++)
find_program(MPISW_PUBAPI_NM NAMES nm)
if(MPISW_PUBAPI_PYTHON3)
  file(GLOB _pubapi_headers ${PROJECT_SOURCE_DIR}/include/*.h)
  set(_pubapi ${MPISW_PUBAPI_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/packaging/public_api.py)
  set(_pubapi_bad ${CMAKE_CURRENT_SOURCE_DIR}/packaging/fixtures/bad_api.h)
  add_test(NAME pubapi_docs COMMAND ${_pubapi} docs ${_pubapi_headers})
  add_test(NAME pubapi_docs_rejects COMMAND ${_pubapi} docs ${_pubapi_bad})
  set_tests_properties(pubapi_docs_rejects PROPERTIES PASS_REGULAR_EXPRESSION
    "bad_not_exported: the declaration does not start with MPISW_EXPORT.*bad_no_doc: no doc comment.*bad_stale_param: parameter 'x' has no .param.*'y' is not a parameter.*bad_plain_comment: the comment above is not a /.. doc comment.*bad_no_return: the doc comment has no .return")
  set(_pubapi_tests pubapi_docs pubapi_docs_rejects)
  if(MPISW_PUBAPI_CXX AND MPISW_PUBAPI_NM)
    add_test(NAME pubapi_compile_alone
             COMMAND ${_pubapi} compile ${CMAKE_C_COMPILER} ${MPISW_PUBAPI_CXX} ${MPISW_PUBAPI_NM}
                     ${PROJECT_SOURCE_DIR}/include ${MPI_C_INCLUDE_DIRS} -- ${_pubapi_headers})
    add_test(NAME pubapi_compile_rejects
             COMMAND ${_pubapi} compile ${CMAKE_C_COMPILER} ${MPISW_PUBAPI_CXX} ${MPISW_PUBAPI_NM}
                     ${PROJECT_SOURCE_DIR}/include ${MPI_C_INCLUDE_DIRS} -- ${_pubapi_bad})
    set_tests_properties(pubapi_compile_rejects PROPERTIES PASS_REGULAR_EXPRESSION
      "bad_no_doc has C\\+\\+ linkage in C\\+\\+ .*the extern \"C\" guard is missing")
    add_test(NAME pubapi_exports
             COMMAND ${_pubapi} exports ${MPISW_PUBAPI_NM} $<TARGET_FILE:mpisw> ${_pubapi_headers})
    list(APPEND _pubapi_tests pubapi_compile_alone pubapi_compile_rejects pubapi_exports)
  else()
    message(STATUS "mpisw: no C++ compiler or nm, pubapi_compile_* and pubapi_exports not registered")
  endif()
  set_tests_properties(${_pubapi_tests} PROPERTIES TIMEOUT 60 LABELS "pubapi;packaging")
endif()
