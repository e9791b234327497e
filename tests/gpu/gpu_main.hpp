// The main() of every GPU test executable: Catch2 runs the tests where a CUDA device is usable;
// otherwise the program exits 77, which CTest reports as "skipped" (SKIP_RETURN_CODE), never "passed".
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>

#if MOELAB_HAVE_CUDA
#include "kernels/philox_normal.cuh"  // moelab::cuda::device_available
#endif

namespace moelab::test {

inline int run_gpu_tests(int argc, char* argv[]) {
  constexpr int kSkipped = 77;  // SKIP_RETURN_CODE in tests/gpu/CMakeLists.txt
#if MOELAB_HAVE_CUDA
  if (!moelab::cuda::device_available()) {
    std::puts("no CUDA device: GPU tests skipped");
    return kSkipped;
  }
  return Catch::Session().run(argc, argv);
#else
  (void)argc;
  (void)argv;
  std::puts("moelab built without CUDA (MOELAB_HAVE_CUDA off): GPU tests skipped");
  return kSkipped;
#endif
}

}  // namespace moelab::test
