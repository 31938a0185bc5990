! MPI-free helpers of the Fortran storage-window programs (issue 14): the
! command line, the pattern a rank writes, and the checks of the window's
! memory and of its file. A failed check prints FAIL and stops the process
! with status 1, which ends the whole MPI job.
module fcheck
  use, intrinsic :: iso_fortran_env, only: int32, error_unit
  implicit none
  private
  public :: n_slots, pattern, fc_args, fc_check_memory, fc_check_file, fc_file_name

  ! 64 KiB window: n_slots 4-byte integers
  integer, parameter :: n_slots = 16384

contains

  ! What rank `from` puts at slot i (1-based): never 0, different per rank.
  elemental integer(int32) function pattern(from, i)
    integer, intent(in) :: from, i
    pattern = int(100000 * (from + 1) + i, int32)
  end function pattern

  ! prog DIR MODE: DIR the directory for the files, MODE "hints" (the program
  ! sets the storage hints) or "env" (no hints: MPISW_HINTS under LD_PRELOAD).
  ! prog verify FILE FROM: checks FILE holds rank FROM's pattern, without MPI.
  ! Returns .false. when it did the verification (the caller stops).
  logical function fc_args(dir, mode)
    character(len=:), allocatable, intent(out) :: dir, mode
    character(len=4096) :: a, b, c
    integer :: from
    call get_command_argument(1, a)
    call get_command_argument(2, b)
    call get_command_argument(3, c)
    fc_args = trim(a) /= 'verify'
    if (.not. fc_args) then
      read (c, *) from
      call fc_check_file(trim(b), from, -1)
      return
    end if
    if (len_trim(a) == 0 .or. (b /= 'hints' .and. b /= 'env')) then
      write (error_unit, '(a)') 'usage: prog DIR hints|env  or  prog verify FILE FROM'
      error stop 2
    end if
    dir = trim(a)
    mode = trim(b)
  end function fc_args

  character(len=:) function fc_file_name(dir, rank) result(name)
    allocatable :: name
    character(len=*), intent(in) :: dir
    integer, intent(in) :: rank
    character(len=16) :: r
    write (r, '(i0)') rank
    name = dir // '/f' // trim(r)
  end function fc_file_name

  ! The window's memory holds what rank `from` put.
  subroutine fc_check_memory(a, rank, from)
    integer(int32), intent(in) :: a(:)
    integer, intent(in) :: rank, from
    integer :: i
    do i = 1, n_slots
      if (a(i) /= pattern(from, i)) then
        write (error_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'FAIL rank ', rank, ': window slot ', i, &
          ' holds ', a(i), ', rank ', from, ' put ', pattern(from, i)
        error stop 1
      end if
    end do
  end subroutine fc_check_memory

  ! The window's file exists, is exactly the window's size and holds what
  ! rank `from` put: the window really is on storage. rank -1: no MPI job.
  subroutine fc_check_file(path, from, rank)
    character(len=*), intent(in) :: path
    integer, intent(in) :: from, rank
    logical :: there
    integer :: u, size, i
    integer(int32) :: b(n_slots)
    inquire (file=path, exist=there, size=size)
    if (.not. there) then
      write (error_unit, '(a,i0,a)') 'FAIL rank ', rank, ': ' // path // &
        ' does not exist: the window is not on storage (mpisw was bypassed)'
      error stop 1
    end if
    if (size /= 4 * n_slots) then
      write (error_unit, '(a,i0,a,i0,a,i0)') 'FAIL rank ', rank, ': ' // path // ' has ', size, &
        ' bytes, the window ', 4 * n_slots
      error stop 1
    end if
    open (newunit=u, file=path, access='stream', form='unformatted', action='read', status='old')
    read (u) b
    close (u)
    do i = 1, n_slots
      if (b(i) /= pattern(from, i)) then
        write (error_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'FAIL rank ', rank, ': ' // path // &
          ' slot ', i, ' holds ', b(i), ', rank ', from, ' put ', pattern(from, i)
        error stop 1
      end if
    end do
  end subroutine fc_check_file

end module fcheck
