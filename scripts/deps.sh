#!/usr/bin/env bash
# Install what dmx needs on Debian 12 (run as root). Skips apt when everything is present.
# MPICH is installed beside Open MPI for test.sh's MPICH pass; Open MPI stays the default
# alternative (mpicc, mpiexec), MPICH is reached as mpicc.mpich / mpiexec.mpich. ScaLAPACK for MPICH
# and Debian's prebuilt testers for it are for scripts/scalapack_testers.sh.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libscalapack-openmpi-dev
      libopenblas-dev clang-format cppcheck mpich libmpich-dev libsimgrid-dev
      libscalapack-mpich-dev scalapack-mpi-test scalapack-test-common)
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
