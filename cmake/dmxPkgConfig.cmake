# SPDX-License-Identifier: BSD-3-Clause
# dmx.pc: relocatable (prefix found from the file's own folder, so `cmake --install --prefix X`
# gives a working file wherever X is), naming the MPI dmx was built with, and complete for
# static links (Libs.private: OpenMP's runtime, BLAS, libm). Included by the top CMakeLists.txt.
file(RELATIVE_PATH dmx_pc_up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" dmx_pc_up "${dmx_pc_up}")
set(DMX_PC_PREFIX "\${pcfiledir}/${dmx_pc_up}")

# MPI: by its own pkg-config name where Debian and the MPI's own install provide one, else by
# the flags FindMPI found.
set(DMX_PC_REQUIRES "")
set(DMX_PC_MPI_CFLAGS "")
set(DMX_PC_MPI_LIBS "")
if(DMX_MPI_FLAVOR STREQUAL "openmpi")
  set(DMX_PC_REQUIRES "ompi-c")
elseif(DMX_MPI_FLAVOR STREQUAL "mpich")
  set(DMX_PC_REQUIRES "mpich")
else()
  foreach(d IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND DMX_PC_MPI_CFLAGS " -I${d}")
  endforeach()
  dmx_pc_libs(DMX_PC_MPI_LIBS ${MPI_C_LIBRARIES})
endif()

set(dmx_pc_private ${DMX_BLAS_LIBRARIES})
if(OpenMP_C_FOUND)
  # The runtime as the compiler names it (gomp for GCC, omp for Clang) and its threads library.
  foreach(n IN LISTS OpenMP_C_LIB_NAMES)
    list(APPEND dmx_pc_private ${OpenMP_${n}_LIBRARY})
  endforeach()
endif()
list(APPEND dmx_pc_private m)
dmx_pc_libs(DMX_PC_LIBS_PRIVATE ${dmx_pc_private})
string(STRIP "${DMX_PC_LIBS_PRIVATE} ${DMX_PC_MPI_LIBS}" DMX_PC_LIBS_PRIVATE)
string(STRIP "${DMX_PC_MPI_CFLAGS}" DMX_PC_MPI_CFLAGS)
configure_file(cmake/dmx.pc.in ${CMAKE_CURRENT_BINARY_DIR}/dmx.pc @ONLY)
