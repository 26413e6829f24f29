! fortran_hello: a Fortran MPI program that calls libisochron (issue 35: a Fortran-only CMake project
! against the installed package). Each rank parses "250ms" with isochron_parse_duration (C,
! include/isochron.h) through bind(C); rank 0 prints the sum over ranks (MPI_Allreduce) and the
! library's one-line error for a bad duration.
program fortran_hello
  use mpi
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function isochron_parse_duration(s, out) bind(C, name="isochron_parse_duration")
      import :: c_int, c_char, c_double
      character(kind=c_char), dimension(*), intent(in) :: s
      real(c_double), intent(out) :: out
    end function
  end interface
  integer :: ierr, rank, nranks, rc_good, rc_bad
  real(c_double) :: d, bad, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  rc_good = isochron_parse_duration("250ms" // c_null_char, d)
  rc_bad = isochron_parse_duration("soon" // c_null_char, bad)
  call MPI_Allreduce(d, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, i0, a, f0.3, a, i0, a, i0)') "fortran_hello: ", nranks, " ranks, sum of 250ms = ", total, &
      " s, rc ", rc_good, ", rc for 'soon' ", rc_bad
  end if
  call MPI_Finalize(ierr)
end program fortran_hello
