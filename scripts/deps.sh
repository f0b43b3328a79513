#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what dmx needs on Debian 12 (run as root). Skips apt when everything is present.
# MPICH is installed beside Open MPI for test.sh's MPICH pass; Open MPI stays the default
# alternative (mpicc, mpiexec), MPICH is reached as mpicc.mpich / mpiexec.mpich.
# scripts/pblas_testers.sh and scripts/scalapack_testers.sh need MPICH's ScaLAPACK and
# ScaLAPACK's prebuilt testers with their data (libscalapack-mpich-dev, scalapack-mpi-test,
# scalapack-test-common) and, for --source, gfortran.
# gfortran builds the Fortran module (bindings/fortran); python3-mpi4py (built for Open MPI) and
# python3-numpy run the Python package's tests (bindings/python).
set -euo pipefail
# libscalapack-mpich-dev: the drop-in and its tests in the MPICH pass; gfortran: the Fortran
# consumer test (scripts/consumer_test.sh); libblas-dev, libblis-dev: builds with
# -DBLA_VENDOR=Generic / FLAME (README, "Using the library").
pkgs=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libscalapack-openmpi-dev
      libopenblas-dev clang-format cppcheck mpich libmpich-dev libsimgrid-dev
      libscalapack-mpich-dev scalapack-mpi-test scalapack-test-common gfortran libblas-dev
      libblis-dev python3-mpi4py python3-numpy)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
