! A storage window through `use mpi_f08` (issue 14; tests/areas/fortran.cmake).
! Each rank allocates a window with MPI_Win_allocate, puts its pattern into
! the next rank under lock/unlock, calls MPI_Win_sync and checks its own
! window and the window's file. With MODE "hints" the program asks for
! storage itself; with "env" it passes MPI_INFO_NULL and the storage comes
! from MPISW_HINTS under LD_PRELOAD. MPICH's f08 bindings call PMPI_*
! directly, so only a library that defines the PMPI_* names sees this one.
program t_mpi_f08
  use mpi_f08
  use fcheck
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: int32
  implicit none
  character(len=:), allocatable :: dir, mode
  integer :: ierr, rank, np, to, from, i
  type(MPI_Info) :: info
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp
  type(c_ptr) :: base
  integer(int32), pointer :: a(:)
  integer(int32) :: mine(n_slots)

  if (.not. fc_args(dir, mode)) stop
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  info = MPI_INFO_NULL
  if (mode == 'hints') then
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'alloc_type', 'storage')
    call MPI_Info_set(info, 'storage_alloc_filename', dir // '/f%r')
    call MPI_Info_set(info, 'storage_alloc_unlink', 'false')
    call MPI_Info_set(info, 'storage_alloc_discard', 'false')
  end if
  bytes = 4 * n_slots
  call MPI_Win_allocate(bytes, 4, info, MPI_COMM_WORLD, base, win, ierr)
  if (ierr /= MPI_SUCCESS) error stop 'MPI_Win_allocate failed'
  call c_f_pointer(base, a, [n_slots])

  to = mod(rank + 1, np)
  from = mod(rank + np - 1, np)
  mine = [(pattern(rank, i), i = 1, n_slots)]
  disp = 0
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win)
  call MPI_Put(mine, n_slots, MPI_INTEGER, to, disp, n_slots, MPI_INTEGER, win)
  call MPI_Win_unlock(to, win)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win)
  call MPI_Win_sync(win)
  call MPI_Win_unlock(rank, win)

  call fc_check_memory(a, rank, from)
  call fc_check_file(fc_file_name(dir, rank), from, rank)
  call MPI_Win_free(win)
  if (mode == 'hints') call MPI_Info_free(info)
  call MPI_Finalize()
end program t_mpi_f08
