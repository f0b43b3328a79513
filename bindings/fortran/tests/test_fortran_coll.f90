! SPDX-License-Identifier: BSD-3-Clause
! The module's collectives (dmx_coll_bcast, _allreduce, _allgather, _alltoall) at 1-4 ranks for
! real(4), real(8), complex(4) and complex(8) against MPI's own calls, and their error paths:
! a status and dmx's message on every rank, no crash, no hang.
program test_fortran_coll
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use dmx
  use dmxt_common
  use dmxtc_s, only: coll_s
  use dmxtc_d, only: coll_d
  use dmxtc_c, only: coll_c
  use dmxtc_z, only: coll_z
  implicit none
  integer :: ierr, rank

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  ! returned errors before the first collective: the collectives then agree on failures
  call dmx_errors_return(.true.)
  call coll_s(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call coll_d(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call coll_c(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call coll_z(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call errors(MPI_COMM_WORLD)
  call finish()
  if (rank == 0) write (*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  call MPI_Finalize(ierr)
  if (nfail > 0) error stop 1

contains

  subroutine errors(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: p, ierr, st
    real(8) :: x(4), y(4), z(4)
    real(8), allocatable :: r(:)
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, p, ierr)
    x = [1d0, 2d0, 3d0, 4d0]
    ! the last rank's recvbuf is too small: every rank fails, that one with the reason
    if (rank == p - 1) then
      allocate (r(2))
    else
      allocate (r(4))
    end if
    st = dmx_coll_allreduce(x, r, MPI_SUM, comm)
    call expect(st == DMX_ERR_ARG, 'errors: short recvbuf agreed: '//dmx_status_string(st))
    call expect(rank /= p - 1 .or. has(dmx_last_error(), 'recvbuf has 2 elements'), &
                'errors: short recvbuf message: '//dmx_last_error())
    st = dmx_coll_allgather(x, y, comm)
    call expect((p == 1 .and. st == DMX_SUCCESS) .or. (p > 1 .and. st == DMX_ERR_ARG), &
                'errors: allgather recvbuf of one block')
    st = dmx_coll_bcast(x, p, comm)
    call expect(st /= DMX_SUCCESS .and. len(dmx_last_error()) > 0, &
                'errors: root out of range: '//dmx_last_error())
    st = dmx_coll_allreduce(x, y, MPI_SUM, comm, 99)
    call expect(st /= DMX_SUCCESS, 'errors: unknown algorithm: '//dmx_status_string(st))
    st = dmx_coll_bcast(x, 0, comm, DMX_COLL_HALVING)
    call expect(st /= DMX_SUCCESS, 'errors: algorithm of another collective')
    ! the communicator still works
    st = dmx_coll_allreduce(x, z, MPI_SUM, comm)
    call expect(st == DMX_SUCCESS .and. all(z == p * x), 'errors: a call after the failures')
  end subroutine
end program
