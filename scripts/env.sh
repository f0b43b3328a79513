# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the scripts: lets Open MPI run as root and oversubscribe the 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# The processors this job may use, for make -j and ctest -j: nproc reports OMP_NUM_THREADS when it
# is set (1, just above, for the tests' ranks), so it is asked without it.
dmx_nproc() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }
