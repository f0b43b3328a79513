! SPDX-License-Identifier: BSD-3-Clause
! Shared helpers of the Fortran tests: block-cyclic bookkeeping (this rank's grid position and
! local extents, computed here and not by dmx) and the pass/fail count.
module dmxt_common
  use mpi_f08
  implicit none
  private
  public :: bc_desc, bc_make, l2g, expect, finish, has, npass, nfail

  type :: bc_desc
    integer :: m, n, mb, nb, prow, pcol, rsrc, csrc, rank, mypr, mypc, lr, lc
  end type
  integer :: npass = 0, nfail = 0, nchecks = 0
  logical :: results(400) = .true.

contains

  ! Whether message s contains part.
  logical function has(s, part)
    character(len=*), intent(in) :: s, part
    has = index(s, part) > 0
  end function

  ! Grid for nprocs ranks: as square as possible, prow <= pcol (pcol <= prow if swap).
  function bc_make(comm, m, n, mb, nb, order, rsrc, csrc, swap) result(g)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: m, n, mb, nb, rsrc, csrc
    character, intent(in) :: order
    logical, intent(in) :: swap
    type(bc_desc) :: g
    integer :: nprocs, ierr, p
    call MPI_Comm_size(comm, nprocs, ierr)
    call MPI_Comm_rank(comm, g%rank, ierr)
    p = int(sqrt(real(nprocs)))
    do while (mod(nprocs, p) /= 0)
      p = p - 1
    end do
    g%prow = p
    g%pcol = nprocs / p
    if (swap) then
      g%prow = nprocs / p
      g%pcol = p
    end if
    g%m = m
    g%n = n
    g%mb = mb
    g%nb = nb
    g%rsrc = min(rsrc, g%prow - 1)
    g%csrc = min(csrc, g%pcol - 1)
    if (order == 'R') then
      g%mypr = g%rank / g%pcol
      g%mypc = mod(g%rank, g%pcol)
    else
      g%mypr = mod(g%rank, g%prow)
      g%mypc = g%rank / g%prow
    end if
    g%lr = extent(m, mb, g%mypr, g%rsrc, g%prow)
    g%lc = extent(n, nb, g%mypc, g%csrc, g%pcol)
  end function

  ! Local extent by counting (independent of dmx_numroc's formula).
  integer function extent(n, nb, p, src, np)
    integer, intent(in) :: n, nb, p, src, np
    integer :: i
    extent = 0
    do i = 0, n - 1
      if (mod(i / nb + src, np) == p) extent = extent + 1
    end do
  end function

  ! Global index (0-based) of local index l (0-based) in blocks of nb on process p of np.
  elemental integer function l2g(l, nb, p, src, np)
    integer, intent(in) :: l, nb, p, src, np
    l2g = ((l / nb) * np + modulo(p - src, np)) * nb + mod(l, nb)
  end function

  ! Record a check; the failing rank prints it at once. The counts are agreed by finish().
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: ierr, rank
    nchecks = nchecks + 1
    if (nchecks <= size(results)) results(nchecks) = ok
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      write (*, '(a,i0,a,a)') 'FAIL (rank ', rank, '): ', what
    end if
  end subroutine

  ! One reduction over every rank's checks (a check fails if it failed on any rank).
  subroutine finish()
    logical :: all_ok(size(results))
    integer :: ierr
    call MPI_Allreduce(results, all_ok, size(results), MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    npass = count(all_ok(1:nchecks))
    nfail = nchecks - npass
  end subroutine
end module
