# The pager's unit test under ThreadSanitizer (issue 13): any data race in
# the pager's threads fails the test (halt_on_error=1). The pager's own
# accesses to window pages the application may be writing are by design
# and bracketed for TSan (PAGER_WINDOW_ACCESS_* in src/pager/pager_internal.h).
include(CheckCSourceCompiles)
set(_tsan_msg "")
if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set(_tsan_msg "the ThreadSanitizer test is set up for gcc, not ${CMAKE_C_COMPILER_ID}")
else()
  set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
  check_c_source_compiles("int main(void) { return 0; }" MPISW_HAVE_TSAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT MPISW_HAVE_TSAN)
    set(_tsan_msg "gcc cannot link with -fsanitize=thread (libtsan missing? apt-get install libtsan2)")
  endif()
endif()

if(_tsan_msg)
  add_test(NAME unit_test_pager_tsan COMMAND ${MPISW_SH} -c "echo 'SKIP: ${_tsan_msg}'; exit 77")
else()
  # Compiled from source (not the object libraries): all of it instrumented.
  get_property(_pager_sources GLOBAL PROPERTY MPISW_MPI_FREE_SOURCES) # src/CMakeLists.txt
  add_executable(test_pager_tsan unit/test_pager.c ${_pager_sources})
  target_include_directories(test_pager_tsan PRIVATE ${PROJECT_SOURCE_DIR}/src
                             ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_compile_definitions(test_pager_tsan PRIVATE _GNU_SOURCE)
  target_compile_options(test_pager_tsan PRIVATE -fsanitize=thread -g -O1)
  target_link_options(test_pager_tsan PRIVATE -fsanitize=thread)
  target_link_libraries(test_pager_tsan PRIVATE Threads::Threads)
  add_test(NAME unit_test_pager_tsan COMMAND test_pager_tsan)
  set_tests_properties(unit_test_pager_tsan PROPERTIES
    ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")
endif()
set_tests_properties(unit_test_pager_tsan PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                     LABELS "pager;tsan")
