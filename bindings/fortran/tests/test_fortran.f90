! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module dmx at 1-4 ranks: plans, one-shot transposes, views, custom layouts, the
! multiply and relabeling for real(4), real(8), complex(4), complex(8) (dmxt_<s|d|c|z>), both
! communicator forms, and the error paths (a message, every rank alike, no crash).
program test_fortran
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use dmx
  use dmxt_common
  use dmxt_s, only: run_s
  use dmxt_d, only: run_d
  use dmxt_c, only: run_c
  use dmxt_z, only: run_z
  implicit none
  integer :: ierr, rank
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call run_s(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call run_d(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call run_c(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call run_z(MPI_COMM_WORLD, MPI_COMM_WORLD%MPI_VAL)
  call errors(MPI_COMM_WORLD)
  call finish()
  if (rank == 0) write (*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  call MPI_Finalize(ierr)
  if (nfail > 0) error stop 1

contains

  subroutine errors(comm)
    type(MPI_Comm), intent(in) :: comm
    real(8), allocatable :: b(:, :), small(:, :)
    real(4), allocatable :: a4(:, :)
    type(dmx_layout) :: lb, la, bad_layout
    type(dmx_plan) :: plan
    type(bc_desc) :: g
    integer :: st, nprocs
    character(len=:), allocatable :: v
    call MPI_Comm_size(comm, nprocs, ierr)
    call dmx_errors_return(.true.)
    g = bc_make(comm, 16, 16, 2, 2, 'R', 0, 0, .false.)
    allocate (b(max(1, g%lr), g%lc), a4(max(1, g%lr), g%lc), small(max(1, g%lr), 1))
    b = 0
    ! rank 0 passes an array too small for its part: every rank fails, rank 0 says why
    if (rank == 0) then
      st = dmx_layout_create_block_cyclic(comm, 16, 16, 2, 2, g%prow, g%pcol, 'R', 0, 0, small, &
                                          max(1, g%lr), bad_layout)
    else
      st = dmx_layout_create_block_cyclic(comm, 16, 16, 2, 2, g%prow, g%pcol, 'R', 0, 0, b, &
                                          max(1, g%lr), bad_layout)
    end if
    call expect(st == DMX_ERR_ARG .and. .not. c_associated(bad_layout%ptr), &
                'errors: wrong array shape on rank 0 fails on every rank')
    call expect(rank /= 0 .or. has(dmx_last_error(), 'the local array holds'), &
                'errors: the shape message: '//dmx_last_error())
    ! a bad argument everywhere: dmx's own message
    st = dmx_layout_create_block_cyclic(comm, 16, 16, 0, 2, g%prow, g%pcol, 'R', 0, 0, b, &
                                        max(1, g%lr), bad_layout)
    call expect(st == DMX_ERR_ARG .and. has(dmx_last_error(), 'block size'), &
                'errors: mb = 0 gives dmx''s message: '//dmx_last_error())
    call expect(dmx_status_string(st) == 'DMX_ERR_ARG', 'errors: dmx_status_string')
    ! a non-contiguous array
    st = dmx_layout_create_block_cyclic(comm, 16, 16, 2, 2, g%prow, g%pcol, 'R', 0, 0, &
                                        b(:, 1:g%lc:2), max(1, g%lr), bad_layout)
    call expect(st /= DMX_SUCCESS .and. (g%lc < 2 .or. has(dmx_last_error(), 'not contiguous')) &
                , 'errors: a non-contiguous array: '//dmx_last_error())
    ! element types that differ between A and B
    st = dmx_layout_create_block_cyclic(comm, 16, 16, 2, 2, g%prow, g%pcol, 'R', 0, 0, b, &
                                        max(1, g%lr), lb)
    st = dmx_layout_create_block_cyclic(comm, 16, 16, 2, 2, g%prow, g%pcol, 'R', 0, 0, a4, &
                                        max(1, g%lr), la)
    st = dmx_plan_create([dmx_make_transform(DMX_OP_N, 1, lb, 0, la)], plan)
    call expect(st == DMX_ERR_ARG .and. has(dmx_last_error(), 'different element types'), &
                'errors: mixed element types: '//dmx_last_error())
    st = dmx_transform_once(DMX_OP_N, 'x', lb, 0, lb)
    call expect(st == DMX_ERR_ARG .and. has(dmx_last_error(), 'alpha or beta'), &
                'errors: a character alpha: '//dmx_last_error())
    ! sizes that do not match: dmx's message, on every rank
    st = dmx_layout_destroy(la)
    st = dmx_layout_create_block_cyclic(comm, 16, 15, 2, 2, g%prow, g%pcol, 'R', 0, 0, b, &
                                        max(1, g%lr), la)
    st = dmx_transform_once(DMX_OP_N, 1, lb, 0, la)
    call expect(st == DMX_ERR_LAYOUT .or. st == DMX_ERR_ARG, 'errors: sizes differ: '// &
                dmx_status_string(st)//' '//dmx_last_error())
    st = dmx_layout_destroy(la)
    st = dmx_layout_destroy(lb)
    call dmx_errors_return(.false.)
    v = dmx_version()
    call expect(len(v) >= 5 .and. has(v, '.'), 'dmx_version: '//v)
  end subroutine
end program
