# Build options, printed in the feature summary at the end of configuration.
set(MOELAB_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON, OFF")
set_property(CACHE MOELAB_CUDA PROPERTY STRINGS AUTO ON OFF)
option(MOELAB_BUILD_TESTS "Build the Catch2 tests" ON)
option(MOELAB_BUILD_BENCH "Build the benchmark programs" ON)
option(MOELAB_UNITY_TESTS "Compile each test executable's files in unity batches" ON)
set(MOELAB_UNITY_TESTS_BATCH 0 CACHE STRING "Test files per unity batch (0: one file per executable)")
# Off: which library files share a batch depends on the file list, so an added file could change what
# GCC inlines across files and, with FMA contraction, the last bit of a documented result. On, the library
# compiles in 29% less CPU time (docs/building.md); for local builds.
option(MOELAB_UNITY_LIBRARY "Compile each library layer in unity batches" OFF)
set(MOELAB_UNITY_LIBRARY_BATCH 8 CACHE STRING "Library files per unity batch")
include(MoelabSanitize)  # MOELAB_SANITIZE=address,undefined (make test-asan)
set(MOELAB_PYTHON "AUTO" CACHE STRING "Build the Python module (pybind11): AUTO (when pybind11 is found), ON, OFF")
set_property(CACHE MOELAB_PYTHON PROPERTY STRINGS AUTO ON OFF)
# x86-64-v3 = AVX2 + FMA: a fixed instruction set (not -march=native) so that results are
# bit-identical on every machine of that level; Eigen's GEMM is ~2x faster than with SSE2 only.
set(MOELAB_ARCH "auto" CACHE STRING "Target -march value: auto (x86-64-v3 when the build CPU has AVX2 and FMA), none, or any -march value")

if(MOELAB_ARCH STREQUAL "auto")
  set(_moelab_arch "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
    file(READ /proc/cpuinfo _cpuinfo)
    if(_cpuinfo MATCHES " avx2" AND _cpuinfo MATCHES " fma" AND _cpuinfo MATCHES " bmi2")
      set(_moelab_arch "x86-64-v3")
    endif()
  endif()
elseif(MOELAB_ARCH STREQUAL "none")
  set(_moelab_arch "")
else()
  set(_moelab_arch "${MOELAB_ARCH}")
endif()
set(MOELAB_ARCH_FLAGS "")
if(_moelab_arch)
  set(MOELAB_ARCH_FLAGS "-march=${_moelab_arch}")
endif()

# moelab_use_library_isa(target scope): compile a program that links the library (the CLI, the tests,
# the Python module, the benchmarks) with the library's instruction set. A template instantiated
# both in the program and in the library (an Eigen kernel or assignment loop that was not inlined) is
# one weak symbol, and the static link keeps the first copy it sees, the program's: compiled with
# another -march, the library's own code would then run that copy (other packet sizes, no FMA) and
# its numbers would depend on what else was linked in. MOELAB_LIBRARY_ISA tells
# linalg/decompositions.hpp that the file shares the library's instruction set, so it may take Eigen's
# product kernels from the library: their template arguments depend on the packet size, and an
# installed consumer compiled with other flags instantiates its own.
function(moelab_use_library_isa target scope)
  if(MOELAB_ARCH_FLAGS)
    target_compile_options(${target} ${scope} $<$<COMPILE_LANGUAGE:CXX>:${MOELAB_ARCH_FLAGS}>)
  endif()
  target_compile_definitions(${target} ${scope} $<$<COMPILE_LANGUAGE:CXX>:MOELAB_LIBRARY_ISA>)
endfunction()

function(moelab_print_summary)
  message(STATUS "moelab ${PROJECT_VERSION} configuration:")
  message(STATUS "  build type        ${CMAKE_BUILD_TYPE}")
  message(STATUS "  arch flags        ${MOELAB_ARCH_FLAGS}")
  message(STATUS "  OpenMP            ${OpenMP_CXX_FOUND}")
  message(STATUS "  CUDA backend      ${MOELAB_HAVE_CUDA} (MOELAB_CUDA=${MOELAB_CUDA})")
  message(STATUS "  tests             ${MOELAB_BUILD_TESTS}")
  message(STATUS "  benchmarks        ${MOELAB_BUILD_BENCH}")
  message(STATUS "  Python module     ${MOELAB_HAVE_PYTHON} (MOELAB_PYTHON=${MOELAB_PYTHON})")
endfunction()
