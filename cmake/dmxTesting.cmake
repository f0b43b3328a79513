# SPDX-License-Identifier: BSD-3-Clause
# Test registration helpers, shared by tests/ and examples/.
# Test registration helpers. Every MPI test is registered at the rank counts given, through
# mpiexec with the flags this machine needs (root, oversubscription on 2 cores).
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE DMX_MPIEXEC_VERSION
  ERROR_QUIET)
set(DMX_MPIEXEC_FLAGS "")
if(DMX_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
  set(DMX_MPIEXEC_FLAGS --oversubscribe)
endif()

# DMX_TEST_YIELD (MPICH's launcher only; test.sh's MPICH pass sets it): every MPI test runs with
# tests/common/mpi_yield.c preloaded, which completes MPICH's blocking point-to-point calls,
# collectives (reductions with a predefined operator) and communicator duplications by testing
# and yielding the core. MPICH's own waits spin, so with 4 ranks on 2 cores each wait costs a
# scheduler time slice; the shim changes only that (each call keeps its meaning), e.g. rma_np4
# 67 s -> 24 s on a quiet machine. Built with DMX_YIELD_PROGRESS, it also yields whenever MPICH's
# progress engine polls UCX with nothing to do, which covers the calls it cannot replace
# (MPI_Comm_split, window creation, fences, flushes, MPI_Win_free): gemm_np4 51 -> 1.2 CPU
# seconds (docs/mpi.md).
option(DMX_TEST_YIELD "Preload tests/common/mpi_yield.c into the MPI tests (MPICH)" OFF)
if(DMX_TEST_YIELD)
  if(NOT DMX_MPIEXEC_VERSION MATCHES "HYDRA")
    message(FATAL_ERROR "DMX_TEST_YIELD needs MPICH's launcher (hydra); ${MPIEXEC_EXECUTABLE} is not")
  endif()
  if(DMX_SANITIZE)
    message(FATAL_ERROR "DMX_TEST_YIELD cannot be combined with DMX_SANITIZE (the sanitizer's runtime must come first)")
  endif()
  add_library(dmxt_yield MODULE ${PROJECT_SOURCE_DIR}/tests/common/mpi_yield.c)
  target_link_libraries(dmxt_yield PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
  # also yield in MPICH's own progress polling (the blocking calls the shim cannot replace)
  target_compile_definitions(dmxt_yield PRIVATE DMX_YIELD_PROGRESS)
  list(APPEND DMX_MPIEXEC_FLAGS -genv LD_PRELOAD $<TARGET_FILE:dmxt_yield>)
endif()

set(DMX_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1;OMPI_MCA_rmaps_base_oversubscribe=1")
# Under the sanitizers, leaks are looked for in the tests at 1-2 ranks (and those without
# mpiexec): the suppressions of tests/lsan.supp name Open MPI's libraries, which only a full
# unwind of every allocation's stack reaches (fast_unwind_on_malloc=0; Open MPI's components
# are built without frame pointers), and that unwind costs 3-10x in run time (gemm_np4 67 s
# against 7 s). Tests at 3 or more ranks keep every address and undefined-behaviour check with
# the fast unwinder and no leak report (dmx_add_mpi_test); they run the same allocation and
# free paths as at 2 ranks, with more peers.
set(DMX_ASAN_NO_LEAKS "ASAN_OPTIONS=detect_leaks=0")
if(DMX_SANITIZE)
  list(APPEND DMX_TEST_ENV
    "ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1"
    "OMPI_MCA_mca_base_component_disable_dlclose=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

# dmx_add_mpi_test(<name> <target> NPROCS 1 2 3 4 [LARGE_NPROCS 6 8] [ARGS ...] [TIMEOUT s]
#                  [ENV VAR=value ...] [PASS_REGEX re] [SUFFIX s] [LAUNCHER_FLAGS ...])
# Tests at NPROCS get label "mpi"; those at LARGE_NPROCS get labels "mpi;large". ENV adds to the
# environment (through ctest, so any launcher passes it on: no launcher flags); PASS_REGEX
# decides by the output instead of the exit code (for tests that end the job with MPI_Abort);
# SUFFIX goes between the name and _np<N>; LAUNCHER_FLAGS go to mpiexec (check which launcher
# DMX_MPIEXEC_VERSION names before passing any). A test's COST is its rank count: in a fresh build,
# where ctest has no recorded times yet, ctest -j starts the many-rank tests (the long ones) first
# instead of leaving one of them to end the run alone.
function(dmx_add_mpi_test name target)
  cmake_parse_arguments(T "" "TIMEOUT;PASS_REGEX;SUFFIX"
    "NPROCS;LARGE_NPROCS;ARGS;LABELS;ENV;LAUNCHER_FLAGS" ${ARGN})
  set(env ${DMX_TEST_ENV} ${T_ENV})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  foreach(np IN LISTS T_NPROCS T_LARGE_NPROCS)
    set(labels mpi ${T_LABELS})
    if(np IN_LIST T_LARGE_NPROCS)
      list(APPEND labels large)
    endif()
    set(tname ${name}${T_SUFFIX}_np${np})
    set(tenv ${env})
    if(DMX_SANITIZE AND np GREATER 2)
      list(TRANSFORM tenv REPLACE "^ASAN_OPTIONS=.*" "${DMX_ASAN_NO_LEAKS}")
    endif()
    add_test(NAME ${tname}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${DMX_MPIEXEC_FLAGS}
              ${T_LAUNCHER_FLAGS} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}>
              ${MPIEXEC_POSTFLAGS} ${T_ARGS})
    set_tests_properties(${tname} PROPERTIES ENVIRONMENT "${tenv}"
      LABELS "${labels}" TIMEOUT ${T_TIMEOUT} PROCESSORS 1 COST ${np})
    if(T_PASS_REGEX)
      set_tests_properties(${tname} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
    endif()
  endforeach()
endfunction()

# dmx_add_unit_test(<name> <target> [ARGS ...]): a test that runs without mpiexec.
function(dmx_add_unit_test name target)
  cmake_parse_arguments(T "" "TIMEOUT" "ARGS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_test(NAME ${name} COMMAND $<TARGET_FILE:${target}> ${T_ARGS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${DMX_TEST_ENV}"
    LABELS "unit;${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()

# dmx_test_executable(<target> <sources...>): builds against the internal archive so tests can
# reach dmxi_ functions as well as the public API.
function(dmx_test_executable target)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE dmx_internal)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/tests/common)
  target_compile_options(${target} PRIVATE ${DMX_WARNINGS})
endfunction()

