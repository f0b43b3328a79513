! SPDX-License-Identifier: BSD-3-Clause
! dmx from Fortran, the whole tour on one matrix: redistribute a block-cyclic matrix into a
! custom layout, transpose it, relabel, and multiply with dmx_gemm, checking every element.
! Built twice: with `use mpi_f08` (type(MPI_Comm)) and, with USE_MPI defined, with `use mpi`
! (integer communicators); the dmx calls are the same in both.
!
!   mpirun -n 4 ./example_fortran_tour_f08
program tour
#ifdef USE_MPI
  use mpi
#else
  use mpi_f08
#endif
  use dmx
  implicit none
  integer, parameter :: m = 40, n = 30, mb = 4, nb = 3
#ifdef USE_MPI
  integer :: comm, newcomm
#else
  type(MPI_Comm) :: comm, newcomm
#endif
  integer :: ierr, rank, nprocs, prow, pcol, lr, lc, st, nbad, k, i, j, ia, ja, nblk
  real(8), allocatable :: b(:, :), t(:, :), c(:, :)
  real(8), allocatable, target :: cust(:)
  real(8), pointer :: r(:, :)
  integer, allocatable :: sigma(:)
  integer :: owners(4)
  type(dmx_layout) :: lb, lcust, lt, ldesc, rel(1), lc_
  type(dmx_block), allocatable :: blocks(:)
  type(dmx_plan) :: plan

  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  prow = 1
  do while ((prow + 1)**2 <= nprocs)
    prow = prow + 1
  end do
  pcol = nprocs / prow
  nbad = 0

  ! B: m x n, mb x nb blocks on a prow x pcol grid, ScaLAPACK's local array.
  lr = dmx_numroc(m, mb, rank / pcol, 0, prow)
  lc = dmx_numroc(n, nb, mod(rank, pcol), 0, pcol)
  if (rank >= prow * pcol) then
    lr = 0
    lc = 0
  end if
  allocate (b(max(1, lr), lc))
  do j = 1, lc
    do i = 1, lr
      b(i, j) = val(gidx(i, mb, rank / pcol, prow), gidx(j, nb, mod(rank, pcol), pcol))
    end do
  end do
  st = dmx_layout_create_block_cyclic(comm, m, n, mb, nb, prow, pcol, 'R', 0, 0, b, &
                                      max(1, lr), lb)
  call check(st)

  ! 1. Redistribute into a custom layout: 2 x 2 blocks split at row 15 and column 20, block
  !    (i, j) (0-based) on rank mod(2*i + j, nprocs), all of a rank's blocks in one array.
  do k = 0, 3
    owners(k + 1) = mod(k, nprocs)
  end do
  allocate (cust(m * n), blocks(count(owners == rank)))
  k = 0
  ia = 1
  do i = 0, 1
    do j = 0, 1
      if (owners(2 * i + j + 1) /= rank) cycle
      k = k + 1
      blocks(k) = dmx_make_block(i, j, cust(ia:ia + rows(i) * cols(j) - 1), rows(i))
      ia = ia + rows(i) * cols(j)
    end do
  end do
  st = dmx_layout_create_custom(comm, m, n, [0, 15, m], [0, 20, n], owners, blocks, &
                                DMX_DOUBLE, lcust)
  call check(st)
  st = dmx_transform_once(DMX_OP_N, 1, lb, 0, lcust)
  call check(st)
  k = 0
  ia = 1
  do i = 0, 1
    do j = 0, 1
      if (owners(2 * i + j + 1) /= rank) cycle
      call check_block(cust(ia:), 15 * i, 20 * j, rows(i), cols(j))
      ia = ia + rows(i) * cols(j)
    end do
  end do

  ! 2. Transpose the custom layout into an n x m block-cyclic matrix: T = B^T.
  lr = dmx_numroc(n, nb, rank / pcol, 0, prow)
  lc = dmx_numroc(m, mb, mod(rank, pcol), 0, pcol)
  if (rank >= prow * pcol) then
    lr = 0
    lc = 0
  end if
  allocate (t(max(1, lr), lc))
  st = dmx_layout_create_block_cyclic(comm, n, m, nb, mb, prow, pcol, 'R', 0, 0, t, &
                                      max(1, lr), lt)
  call check(st)
  st = dmx_transform_once(DMX_OP_T, 1, lcust, 0, lt)
  call check(st)
  do j = 1, lc
    do i = 1, lr
      if (t(i, j) /= val(gidx(j, mb, mod(rank, pcol), pcol), gidx(i, nb, rank / pcol, prow))) &
        nbad = nbad + 1
    end do
  end do

  ! 3. Relabel: move B into a column-major-grid layout on the ranks that keep the most data.
  allocate (sigma(nprocs))
  st = dmx_layout_create_block_cyclic(comm, m, n, mb, nb, prow, pcol, 'C', 0, 0, ldesc)
  call check(st)
  st = dmx_plan_create_relabeled([dmx_make_transform(DMX_OP_N, 1, lb, 0, ldesc)], sigma, &
                                 newcomm, rel, plan)
  call check(st)
  call check(dmx_plan_execute(plan))
  call check(dmx_layout_get_num_local_blocks(rel(1), nblk))
  do k = 1, nblk
    call check(dmx_layout_local_array(rel(1), k, r, ia, ja))
    do j = 1, size(r, 2)
      do i = 1, size(r, 1)
        if (r(i, j) /= val(ia + i - 2, ja + j - 2)) nbad = nbad + 1
      end do
    end do
  end do
  call check(dmx_plan_destroy(plan))

  ! 4. Multiply: C = T * B (n x n) with dmx_gemm, checked against a sum of the formula.
  lr = dmx_numroc(n, nb, rank / pcol, 0, prow)
  lc = dmx_numroc(n, nb, mod(rank, pcol), 0, pcol)
  if (rank >= prow * pcol) then
    lr = 0
    lc = 0
  end if
  allocate (c(max(1, lr), lc))
  st = dmx_layout_create_block_cyclic(comm, n, n, nb, nb, prow, pcol, 'R', 0, 0, c, &
                                      max(1, lr), lc_)
  call check(st)
  call check(dmx_gemm(comm, DMX_OP_N, DMX_OP_N, 1, lt, lb, 0, lc_))
  do j = 1, lc
    do i = 1, lr
      ia = gidx(i, nb, rank / pcol, prow)
      ja = gidx(j, nb, mod(rank, pcol), pcol)
      ! integers below 2^53: exact in any summation order
      if (c(i, j) /= sum([(val(k, ia) * val(k, ja), k = 0, m - 1)])) nbad = nbad + 1
    end do
  end do

  call check(dmx_layout_destroy(lc_))
  call check(dmx_layout_destroy(rel(1)))
  call check(dmx_layout_destroy(ldesc))
  call check(dmx_layout_destroy(lt))
  call check(dmx_layout_destroy(lcust))
  call check(dmx_layout_destroy(lb))
  call MPI_Comm_free(newcomm, ierr)
  deallocate (b, t, c, cust, blocks, sigma) ! a main program's arrays are never freed for it
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'tour: redistribute, transpose, relabel, multiply: ', &
    nbad, ' wrong elements'
  call MPI_Finalize(ierr)
  if (nbad /= 0) error stop 1

contains

  ! Global element (i, j), 0-based.
  pure real(8) function val(i, j)
    integer, intent(in) :: i, j
    val = i * 100 + j + 1
  end function

  ! Global index (0-based) of local index l (1-based) in blocks of nb on process p of np.
  pure integer function gidx(l, nb_, p, np_)
    integer, intent(in) :: l, nb_, p, np_
    gidx = (((l - 1) / nb_) * np_ + p) * nb_ + mod(l - 1, nb_)
  end function

  pure integer function rows(i)
    integer, intent(in) :: i
    rows = merge(15, m - 15, i == 0)
  end function

  pure integer function cols(j)
    integer, intent(in) :: j
    cols = merge(20, n - 20, j == 0)
  end function

  ! A column-major nr x nc block whose element (0, 0) is global (i0, j0).
  subroutine check_block(x, i0, j0, nr, nc)
    real(8), intent(in) :: x(:)
    integer, intent(in) :: i0, j0, nr, nc
    integer :: ii, jj
    do jj = 0, nc - 1
      do ii = 0, nr - 1
        if (x(1 + ii + jj * nr) /= val(i0 + ii, j0 + jj)) nbad = nbad + 1
      end do
    end do
  end subroutine

  subroutine check(status)
    integer, intent(in) :: status
    if (status /= DMX_SUCCESS) then
      write (*, '(a)') 'dmx failed: '//dmx_status_string(status)//': '//dmx_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
