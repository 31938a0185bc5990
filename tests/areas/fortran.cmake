# Fortran programs on storage windows (issue 14): one each with `use mpi`,
# `use mpi_f08` and `include 'mpif.h'`, from one source
# (tests/fortran/t_storage.F90, -DMPISW_<BINDING>). Each rank allocates a
# window with the storage hints, puts its pattern into the next rank, calls
# MPI_Win_sync and checks its window and file;
# tests/fortran/run_fortran.sh checks MPISW_REPORT and the files after.
#   fortran_<binding>_hints_np<N>   linked with libmpisw, hints in the program
#   fortran_<binding>_preload_np2   not linked: LD_PRELOAD + MPISW_HINTS
# The MPI's Fortran bindings call PMPI_* (MPICH's mpi_f08, all of Open MPI
# 4.1's), so these need a library that defines the PMPI_* names too.
# Without a Fortran compiler or the MPI's Fortran support the tests are
# still registered and skip (exit 77) with the reason. ctest -L fortran

# The MPI's own wrapper, named exactly (with both MPIs installed the plain
# mpifort is Open MPI's), and the compiler it wraps: the MPI's modules are
# only readable by the compiler they were built with.
if(NOT MPI_Fortran_COMPILER)
  find_program(MPI_Fortran_COMPILER NAMES mpifort.${MPISW_MPI_FLAVOR} mpif90.${MPISW_MPI_FLAVOR})
endif()
if(MPI_Fortran_COMPILER AND NOT CMAKE_Fortran_COMPILER)
  execute_process(COMMAND ${MPI_Fortran_COMPILER} -show OUTPUT_VARIABLE _show ERROR_QUIET)
  string(REGEX MATCH "^[^ \n]+" _fc "${_show}")
  if(_fc)
    find_program(MPISW_WRAPPED_FC NAMES ${_fc})
    if(MPISW_WRAPPED_FC)
      set(CMAKE_Fortran_COMPILER ${MPISW_WRAPPED_FC})
    endif()
  endif()
endif()
include(CheckLanguage)
check_language(Fortran)
set(_fortran_why "")
if(NOT CMAKE_Fortran_COMPILER)
  set(_fortran_why "no Fortran compiler (scripts/install-deps.sh installs gfortran)")
elseif(NOT MPI_Fortran_COMPILER)
  set(_fortran_why "no mpifort.${MPISW_MPI_FLAVOR} (libmpich-dev or libopenmpi-dev)")
else()
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
  if(NOT MPI_Fortran_FOUND)
    set(_fortran_why "FindMPI found no Fortran support through ${MPI_Fortran_COMPILER}")
  endif()
endif()
# The project's C warning flags are noise to gfortran (-Wextra warns about
# every unused parameter of mpif.h); the sanitizer flags stay.
function(mpisw_fortran_flags t)
  get_target_property(opts ${t} COMPILE_OPTIONS)
  list(REMOVE_ITEM opts -Wextra -Wno-format-truncation -Wno-unused-parameter)
  set_target_properties(${t} PROPERTIES COMPILE_OPTIONS "${opts}"
                        Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fortran_mod/${t})
endfunction()

if(_fortran_why)
  message(STATUS "mpisw: Fortran tests will skip: ${_fortran_why}")
else()
  message(STATUS "mpisw: Fortran tests with ${CMAKE_Fortran_COMPILER} through ${MPI_Fortran_COMPILER}")
  # The checks, MPI-free, as a library whose module the programs use.
  add_library(mpisw_fcheck STATIC ${CMAKE_CURRENT_SOURCE_DIR}/fortran/fcheck.f90)
  mpisw_fortran_flags(mpisw_fcheck)
  target_include_directories(mpisw_fcheck PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/fortran_mod/mpisw_fcheck)
endif()

# binding -> FindMPI's answer whether the MPI has it
set(_fortran_bindings use_mpi mpi_f08 mpif_h)
set(_fortran_have_use_mpi MPI_Fortran_HAVE_F90_MODULE)
set(_fortran_have_mpi_f08 MPI_Fortran_HAVE_F08_MODULE)
set(_fortran_have_mpif_h MPI_Fortran_HAVE_F77_HEADER)


foreach(b IN LISTS _fortran_bindings)
  set(why "${_fortran_why}")
  if(NOT why AND NOT ${_fortran_have_${b}})
    set(why "${MPISW_MPI_FLAVOR} has no Fortran binding '${b}' for ${CMAKE_Fortran_COMPILER}")
  endif()
  if(NOT why)
    # t_<b>: linked with libmpisw, ahead of the MPI (its Fortran names call
    # nothing of libmpisw, so keep it under --as-needed); t_<b>_plain: not.
    string(TOUPPER "MPISW_${b}" binding)
    add_executable(t_${b} ${CMAKE_CURRENT_SOURCE_DIR}/fortran/t_storage.F90)
    target_link_libraries(t_${b} PRIVATE mpisw mpisw_fcheck MPI::MPI_Fortran)
    target_link_options(t_${b} PRIVATE "LINKER:--no-as-needed")
    add_executable(t_${b}_plain ${CMAKE_CURRENT_SOURCE_DIR}/fortran/t_storage.F90)
    target_link_libraries(t_${b}_plain PRIVATE mpisw_fcheck MPI::MPI_Fortran)
    foreach(t t_${b} t_${b}_plain)
      target_compile_definitions(${t} PRIVATE ${binding})
      mpisw_fortran_flags(${t})
    endforeach()
  endif()
  foreach(run hints_np2 hints_np4 preload_np2)
    string(REGEX MATCH "[0-9]+$" np "${run}")
    string(REGEX REPLACE "_np[0-9]+$" "" mode "${run}")
    set(tn fortran_${b}_${run})
    set(labels "mpi;fortran")
    set(prog t_${b})
    if(mode STREQUAL "preload")
      set(labels "mpi;fortran;preload")
      set(prog t_${b}_plain)
    endif()
    if(why)
      add_test(NAME ${tn} COMMAND ${MPISW_SH} -c "echo 'SKIP: ${why}'; exit 77")
    else()
      add_test(NAME ${tn}
               COMMAND ${MPISW_SH} ${CMAKE_CURRENT_SOURCE_DIR}/fortran/run_fortran.sh ${mode} ${np}
                       $<TARGET_FILE:${prog}> $<TARGET_FILE:mpisw> --
                       ${MPISW_MPIEXEC} ${MPISW_MPIEXEC_PREFLAGS})
    endif()
    mpisw_mpi_props(${tn} ${np} "${labels}")
  endforeach()
endforeach()
