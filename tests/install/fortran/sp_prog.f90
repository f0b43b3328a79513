! SPDX-License-Identifier: BSD-3-Clause
! A ScaLAPACK program in Fortran, unaware of dmx: on a 1 x P BLACS grid it redistributes an
! n x n matrix between two block sizes with pdgemr2d and multiplies with pdgemm, and checks every
! local element against the formula (pdgemr2d) or a serial product (pdgemm). The install test
! links it against libdmx_scalapack (shared and static) and runs it plain under LD_PRELOAD.
program sp_prog
  implicit none
  integer, parameter :: n = 37, mb1 = 4, mb2 = 7
  integer :: iam, np, ictxt, nprow, npcol, myrow, mycol, info, ncol1, ncol2, lld, i, j, jj, l
  integer :: desca(9), descb(9), descc(9), wrong, total
  double precision, allocatable :: a(:, :), b(:, :), c(:, :)
  double precision :: ref, err
  integer, external :: numroc, indxl2g

  call blacs_pinfo(iam, np)
  call blacs_get(-1, 0, ictxt)
  nprow = 1
  npcol = np
  call blacs_gridinit(ictxt, 'R', nprow, npcol)
  call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)
  ncol1 = max(1, numroc(n, mb1, mycol, 0, npcol))
  ncol2 = max(1, numroc(n, mb2, mycol, 0, npcol))
  lld = n
  call descinit(desca, n, n, n, mb1, 0, 0, ictxt, lld, info)
  call descinit(descb, n, n, n, mb2, 0, 0, ictxt, lld, info)
  call descinit(descc, n, n, n, mb2, 0, 0, ictxt, lld, info)
  allocate (a(lld, ncol1), b(lld, ncol2), c(lld, ncol2))
  do jj = 1, numroc(n, mb1, mycol, 0, npcol)
    j = indxl2g(jj, mb1, mycol, 0, npcol)
    do i = 1, n
      a(i, jj) = fa(i, j)
    end do
  end do
  b = -1d0
  call pdgemr2d(n, n, a, 1, 1, desca, b, 1, 1, descb, ictxt)
  wrong = 0
  do jj = 1, numroc(n, mb2, mycol, 0, npcol)
    j = indxl2g(jj, mb2, mycol, 0, npcol)
    do i = 1, n
      if (b(i, jj) /= fa(i, j)) wrong = wrong + 1
    end do
  end do
  ! C = B * B with B(i, j) = fa(i, j), against the serial sum
  c = 0d0
  call pdgemm('N', 'N', n, n, n, 1d0, b, 1, 1, descb, b, 1, 1, descb, 0d0, c, 1, 1, descc)
  err = 0d0
  do jj = 1, numroc(n, mb2, mycol, 0, npcol)
    j = indxl2g(jj, mb2, mycol, 0, npcol)
    do i = 1, n
      ref = 0d0
      do l = 1, n
        ref = ref + fa(i, l) * fa(l, j)
      end do
      err = max(err, abs(c(i, jj) - ref) / max(1d0, abs(ref)))
    end do
  end do
  if (err > 1d-12) wrong = wrong + 1
  total = wrong
  call igsum2d(ictxt, 'A', ' ', 1, 1, total, 1, -1, -1)
  if (iam == 0) then
    if (total == 0) then
      print '(a)', 'sp_prog: 2 passed, 0 failed'
    else
      print '(a, i0, a)', 'sp_prog: ', total, ' wrong; 0 passed, 2 failed'
    end if
  end if
  call blacs_gridexit(ictxt)
  call blacs_exit(0)
  if (total /= 0) stop 1
contains
  double precision function fa(i, j)
    integer, intent(in) :: i, j
    fa = dble(i) + 0.01d0 * dble(j) - dble(mod(i * j, 5))
  end function fa
end program sp_prog
