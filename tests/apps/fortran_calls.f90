! tests/apps/fortran_calls.f90 (issue 28): a Fortran MPI program (mpif.h, as Quantum ESPRESSO) for
! test apps_fortran: N iterations of MPI_Allreduce, MPI_Bcast and, every 10th, MPI_Barrier on
! MPI_COMM_WORLD, then one line with N and a checksum of what was received. Usage: fortran_calls [N]
program fortran_calls
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, i, n, nargs
  character(len=32) :: arg
  double precision :: x, s, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  n = 200
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  total = 0d0
  do i = 1, n
    x = dble(rank + 1) * dble(i)
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    total = total + s
    if (rank == 0) x = total
    call MPI_Bcast(x, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    total = total + 1d-3 * x
    if (mod(i, 10) == 0) call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) write (*, '(a,i0,a,i0,a,es23.16)') 'fortran_calls: ', nranks, ' ranks, ', n, ' iterations, checksum ', total
  call MPI_Finalize(ierr)
end program fortran_calls
