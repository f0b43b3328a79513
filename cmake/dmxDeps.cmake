# SPDX-License-Identifier: BSD-3-Clause
# BLAS (with its C interface) and ScaLAPACK, for any vendor. Included by the top CMakeLists.txt
# after MPI was found. Sets:
#   DMX_BLAS_LIBRARIES       what the multiply's local products link (CBLAS included)
#   DMX_CBLAS_INCLUDE_DIR    the folder of a cblas.h that goes with it
#   DMX_HAVE_SCALAPACK, DMX_SCALAPACK_LIB (a list), DMX_SCALAPACK_NAME (its file's stem, for
#   the tests that ask the loader which library a symbol came from), DMX_LAPACK_LIB,
#   DMX_BLAS_LIB (what a program that calls ScaLAPACK itself links after it)
#   DMX_MPI_FLAVOR           openmpi, mpich or other
#
# BLAS: CMake's FindBLAS, so BLA_VENDOR chooses (OpenBLAS, Intel10_64lp, FLAME for BLIS,
# FlexiBLAS, Generic, ...; BLAS_LIBRARIES given on the command line is taken as it is). Without
# BLA_VENDOR, OpenBLAS is tried first, then whatever FindBLAS finds. dmx passes 32-bit integers
# to BLAS and ScaLAPACK (LP64); an ILP64 choice is refused here.
#
# ScaLAPACK: DMX_SCALAPACK = auto (the default: the library built for the MPI dmx is built
# with, Debian's libscalapack-mpich or libscalapack-openmpi, else libscalapack), OFF, or a
# library's path or name (-DDMX_SCALAPACK=/opt/x/libscalapack.so, -DDMX_SCALAPACK=scalapack).
# DMX_SCALAPACK_LIBRARIES (a list, e.g. MKL's "mkl_scalapack_lp64;mkl_blacs_openmpi_lp64")
# overrides both. DMX_WITH_SCALAPACK=OFF is the same as DMX_SCALAPACK=OFF.

# ---- which MPI ---------------------------------------------------------------------------------
set(DMX_MPI_FLAVOR other)
set(dmx_mpi_text "${MPI_C_LIBRARY_VERSION_STRING} ${MPI_C_COMPILER} ${MPI_C_LIBRARIES}")
if(dmx_mpi_text MATCHES "Open MPI|openmpi|libmpi\\.so")
  set(DMX_MPI_FLAVOR openmpi)
endif()
if(dmx_mpi_text MATCHES "MPICH|mpich")
  set(DMX_MPI_FLAVOR mpich)
endif()
message(STATUS "MPI: ${DMX_MPI_FLAVOR} (${MPI_C_COMPILER})")

# ---- ILP64 is refused --------------------------------------------------------------------------
if((DEFINED BLA_SIZEOF_INTEGER AND BLA_SIZEOF_INTEGER EQUAL 8) OR BLA_VENDOR MATCHES "ilp"
   OR DMX_SCALAPACK_LIBRARIES MATCHES "ilp64" OR DMX_SCALAPACK MATCHES "ilp64")
  message(FATAL_ERROR "dmx calls BLAS and ScaLAPACK with 32-bit integers (LP64): an ILP64 "
    "library (BLA_SIZEOF_INTEGER=8, an *ilp* BLA_VENDOR or an ilp64 ScaLAPACK) would read them "
    "wrong. Choose the LP64 variant (e.g. BLA_VENDOR=Intel10_64lp, mkl_scalapack_lp64).")
endif()

# ---- BLAS --------------------------------------------------------------------------------------
# Debian keeps BLIS in a folder of its own (beside a libblas.so of its own, so the folder is
# searched only when BLIS is asked for). Its reference BLAS is in .../blas: the libblas.so in
# the library folder itself is an alternatives link that usually leads to OpenBLAS, so
# BLA_VENDOR=Generic looks in .../blas first.
set(dmx_blas_dirs "")
if(BLA_VENDOR STREQUAL "FLAME")
  set(dmx_blas_dirs blis-openmp blis-pthread blis-serial)
elseif(BLA_VENDOR STREQUAL "Generic")
  set(dmx_blas_dirs blas)
endif()
foreach(d IN LISTS dmx_blas_dirs)
  if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/${d})
    list(APPEND CMAKE_LIBRARY_PATH /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/${d})
  endif()
endforeach()
if(BLAS_LIBRARIES)
  # given by the user (FindBLAS itself would start from scratch)
  set(DMX_BLAS_LIBRARIES ${BLAS_LIBRARIES})
else()
  if(NOT DEFINED BLA_VENDOR)
    set(BLA_VENDOR OpenBLAS)
    find_package(BLAS QUIET)
    unset(BLA_VENDOR)
  endif()
  if(NOT BLAS_FOUND)
    find_package(BLAS REQUIRED)
  endif()
  set(DMX_BLAS_LIBRARIES ${BLAS_LIBRARIES})
endif()

# The C interface: in the BLAS itself (OpenBLAS, MKL, BLIS, FlexiBLAS, Debian's reference BLAS)
# or in a libcblas beside it.
include(CheckSymbolExists)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_LIBRARIES ${DMX_BLAS_LIBRARIES})
set(CMAKE_REQUIRED_QUIET ON)
include(CheckFunctionExists)
check_function_exists(cblas_dgemm DMX_BLAS_HAS_CBLAS)
cmake_pop_check_state()
if(NOT DMX_BLAS_HAS_CBLAS)
  find_library(DMX_CBLAS_LIB NAMES cblas)
  if(NOT DMX_CBLAS_LIB)
    message(FATAL_ERROR "BLAS (${DMX_BLAS_LIBRARIES}) has no cblas_dgemm and no libcblas was "
      "found: give one with -DDMX_CBLAS_LIB=<path>")
  endif()
  list(PREPEND DMX_BLAS_LIBRARIES ${DMX_CBLAS_LIB})
endif()

# cblas.h: first the folder that mirrors the library's own (Debian: /usr/lib/<arch>/X ->
# /usr/include/<arch>/X), then <prefix>/include and the default paths. MKL names it mkl_cblas.h:
# then a cblas.h that includes it is written into the build tree.
set(dmx_cblas_hints "")
foreach(lib IN LISTS DMX_BLAS_LIBRARIES)
  if(IS_ABSOLUTE "${lib}")
    get_filename_component(dir "${lib}" DIRECTORY)
    string(REGEX REPLACE "/lib(64)?(/|$)" "/include\\2" inc "${dir}")
    get_filename_component(up "${dir}/.." ABSOLUTE)
    get_filename_component(up2 "${dir}/../.." ABSOLUTE)
    list(APPEND dmx_cblas_hints ${inc} ${up}/include ${up2}/include)
  endif()
endforeach()
if(NOT DMX_CBLAS_INCLUDE_DIR AND BLA_VENDOR STREQUAL "Generic")
  # Debian's reference CBLAS header is cblas-netlib.h (its cblas.h is an alternatives link that
  # usually leads to OpenBLAS's): a cblas.h that includes it is written into the build tree.
  find_path(dmx_netlib_inc NAMES cblas-netlib.h HINTS ${dmx_cblas_hints} NO_CACHE)
  if(dmx_netlib_inc)
    file(WRITE ${PROJECT_BINARY_DIR}/cblas/cblas.h "#include <cblas-netlib.h>\n")
    set(DMX_CBLAS_INCLUDE_DIR ${PROJECT_BINARY_DIR}/cblas ${dmx_netlib_inc} CACHE STRING
      "Folder(s) of the cblas.h that goes with the BLAS")
  endif()
endif()
if(NOT DMX_CBLAS_INCLUDE_DIR)
  find_path(DMX_CBLAS_INCLUDE_DIR_FOUND NAMES cblas.h HINTS ${dmx_cblas_hints}
    PATH_SUFFIXES blis openblas NO_CACHE)
  if(NOT DMX_CBLAS_INCLUDE_DIR_FOUND)
    find_path(dmx_mkl_inc NAMES mkl_cblas.h HINTS ${dmx_cblas_hints} ENV MKLROOT
      PATH_SUFFIXES include NO_CACHE)
    if(dmx_mkl_inc)
      file(WRITE ${PROJECT_BINARY_DIR}/cblas/cblas.h "#include <mkl_cblas.h>\n")
      set(DMX_CBLAS_INCLUDE_DIR_FOUND ${PROJECT_BINARY_DIR}/cblas ${dmx_mkl_inc})
    else()
      message(FATAL_ERROR "no cblas.h found for ${DMX_BLAS_LIBRARIES}: give its folder with "
        "-DDMX_CBLAS_INCLUDE_DIR=<dir>")
    endif()
  endif()
  set(DMX_CBLAS_INCLUDE_DIR ${DMX_CBLAS_INCLUDE_DIR_FOUND} CACHE STRING
    "Folder(s) of the cblas.h that goes with the BLAS")
endif()
message(STATUS "BLAS: ${DMX_BLAS_LIBRARIES} (cblas.h in ${DMX_CBLAS_INCLUDE_DIR})")

# DMX_BLAS_RPATH: the folders of a BLAS outside the loader's default ones (Debian's reference
# BLAS or BLIS, an MKL under /opt), the installed libraries' run path: without it an installed
# libdmx would load whichever libblas.so.3 the loader finds first (on Debian, the alternatives
# link, usually OpenBLAS), not the BLAS it was built against.
set(DMX_BLAS_RPATH "")
foreach(lib IN LISTS DMX_BLAS_LIBRARIES)
  if(IS_ABSOLUTE "${lib}")
    get_filename_component(dir "${lib}" DIRECTORY)
    if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES AND NOT dir MATCHES "^/(usr/)?lib(64)?(/${CMAKE_LIBRARY_ARCHITECTURE})?$")
      list(APPEND DMX_BLAS_RPATH ${dir})
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES DMX_BLAS_RPATH)

# ---- ScaLAPACK ---------------------------------------------------------------------------------
set(DMX_SCALAPACK auto CACHE STRING
  "ScaLAPACK for the drop-in and the comparisons: auto, OFF, or a library's path or name")
set(DMX_HAVE_SCALAPACK OFF)
set(DMX_SCALAPACK_LIB "")
if(NOT DMX_WITH_SCALAPACK)
  set(dmx_sp_choice OFF)
else()
  set(dmx_sp_choice "${DMX_SCALAPACK}")
endif()
if(DMX_SCALAPACK_LIBRARIES)
  set(DMX_SCALAPACK_LIB ${DMX_SCALAPACK_LIBRARIES})
elseif(dmx_sp_choice STREQUAL "auto")
  if(DMX_MPI_FLAVOR STREQUAL "mpich")
    set(dmx_sp_names scalapack-mpich scalapack)
  elseif(DMX_MPI_FLAVOR STREQUAL "openmpi")
    set(dmx_sp_names scalapack-openmpi scalapack)
  else()
    set(dmx_sp_names scalapack)
  endif()
  # One cache entry per MPI, so a build dir reconfigured for the other MPI cannot keep it.
  find_library(DMX_SCALAPACK_LIB_${DMX_MPI_FLAVOR} NAMES ${dmx_sp_names})
  if(DMX_SCALAPACK_LIB_${DMX_MPI_FLAVOR})
    set(DMX_SCALAPACK_LIB ${DMX_SCALAPACK_LIB_${DMX_MPI_FLAVOR}})
  endif()
elseif(NOT dmx_sp_choice STREQUAL "OFF")
  set(DMX_SCALAPACK_LIB ${dmx_sp_choice})
endif()

if(DMX_SCALAPACK_LIB)
  set(DMX_HAVE_SCALAPACK ON)
  list(GET DMX_SCALAPACK_LIB 0 dmx_sp_first)
  get_filename_component(DMX_SCALAPACK_NAME "${dmx_sp_first}" NAME_WE)
  string(REGEX REPLACE "^lib" "" DMX_SCALAPACK_NAME "${DMX_SCALAPACK_NAME}")
  find_library(DMX_LAPACK_LIB NAMES lapack)
  set(DMX_BLAS_LIB ${DMX_BLAS_LIBRARIES})
  message(STATUS "ScaLAPACK: ${DMX_SCALAPACK_LIB}")
elseif(NOT dmx_sp_choice STREQUAL "OFF")
  message(STATUS "ScaLAPACK not found: comparisons and the drop-in library are disabled")
endif()

# dmx_portable_libs(<out> <libs...>): the libraries as a consumer links them, without this
# machine's absolute system paths: a library in one of the compiler's own link folders becomes
# its bare name (-lopenblas), others (an MKL under /opt) keep their path.
function(dmx_portable_libs out)
  set(res "")
  foreach(lib IN LISTS ARGN)
    if(IS_ABSOLUTE "${lib}")
      get_filename_component(dir "${lib}" DIRECTORY)
      get_filename_component(name "${lib}" NAME_WE)
      string(REGEX REPLACE "^lib" "" name "${name}")
      if(dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES OR dir MATCHES "^/(usr/)?lib(64)?(/${CMAKE_LIBRARY_ARCHITECTURE})?$")
        set(lib ${name})
      endif()
    endif()
    list(APPEND res ${lib})
  endforeach()
  set(${out} ${res} PARENT_SCOPE)
endfunction()

# dmx_pc_libs(<out> <libs...>): the same as pkg-config link flags.
function(dmx_pc_libs out)
  dmx_portable_libs(libs ${ARGN})
  set(res "")
  foreach(lib IN LISTS libs)
    if(IS_ABSOLUTE "${lib}" OR lib MATCHES "^-")
      string(APPEND res " ${lib}")
    else()
      string(APPEND res " -l${lib}")
    endif()
  endforeach()
  string(STRIP "${res}" res)
  set(${out} "${res}" PARENT_SCOPE)
endfunction()
