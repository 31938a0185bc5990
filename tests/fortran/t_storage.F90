! A storage window from Fortran (issue 14; tests/areas/fortran.cmake), built
! once per MPI binding: -DMPISW_USE_MPI (`use mpi`), -DMPISW_MPI_F08
! (`use mpi_f08`) or -DMPISW_MPIF_H (`include 'mpif.h'`); the calls are the
! same, only the binding and its handle types differ.
! Each rank allocates a window with MPI_Win_allocate, puts its pattern into
! the next rank (the first half between fences, the second half under
! lock/unlock), calls MPI_Win_sync and checks its own window and the
! window's file. With MODE "hints" the program asks for storage itself; with
! "env" it passes MPI_INFO_NULL and the storage comes from MPISW_HINTS under
! LD_PRELOAD. The MPI's bindings call PMPI_* (MPICH's mpi_f08, all of Open
! MPI's), so only a library that defines the PMPI_* names sees them.
program t_storage
#if defined(MPISW_USE_MPI)
  use mpi
#elif defined(MPISW_MPI_F08)
  use mpi_f08
#endif
  use fcheck
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: int32
  implicit none
#if defined(MPISW_MPIF_H)
  include 'mpif.h'
#endif
#if defined(MPISW_MPI_F08)
  type(MPI_Info) :: info
  type(MPI_Win) :: win
#else
  integer :: info, win
  integer(kind=MPI_ADDRESS_KIND) :: basei
#endif
  character(len=:), allocatable :: dir, mode
  integer :: ierr, rank, np, to, from, i, half
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp
  type(c_ptr) :: base
  integer(int32), pointer :: a(:)
  integer(int32) :: mine(n_slots)

  if (.not. fc_args(dir, mode)) stop
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  info = MPI_INFO_NULL
  if (mode == 'hints') then
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'alloc_type', 'storage', ierr)
    call MPI_Info_set(info, 'storage_alloc_filename', dir // '/f%r', ierr)
    call MPI_Info_set(info, 'storage_alloc_unlink', 'false', ierr)
    call MPI_Info_set(info, 'storage_alloc_discard', 'false', ierr)
  end if
  bytes = 4 * n_slots
#if defined(MPISW_MPI_F08)
  call MPI_Win_allocate(bytes, 4, info, MPI_COMM_WORLD, base, win, ierr)
#else
  call MPI_Win_allocate(bytes, 4, info, MPI_COMM_WORLD, basei, win, ierr)
  base = transfer(basei, base)
#endif
  if (ierr /= MPI_SUCCESS) error stop 'MPI_Win_allocate failed'
  call c_f_pointer(base, a, [n_slots])

  to = mod(rank + 1, np)
  from = mod(rank + np - 1, np)
  mine = [(pattern(rank, i), i = 1, n_slots)]
  half = n_slots / 2
  ! active target: the first half
  disp = 0
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
  call MPI_Put(mine, half, MPI_INTEGER, to, disp, half, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
  ! passive target: the second half
  disp = half
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win, ierr)
  call MPI_Put(mine(half + 1:), n_slots - half, MPI_INTEGER, to, disp, n_slots - half, &
               MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(to, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock_all(0, win, ierr)
  call MPI_Win_sync(win, ierr)
  call MPI_Win_unlock_all(win, ierr)

  call fc_check_memory(a, rank, from)
  call fc_check_file(fc_file_name(dir, rank), from, rank)
  call MPI_Win_free(win, ierr)
  if (mode == 'hints') call MPI_Info_free(info, ierr)
  call MPI_Finalize(ierr)
end program t_storage
