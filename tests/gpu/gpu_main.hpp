// The gate of every GPU test executable, run by the shared Catch2 runner (tests/test_main.cpp)
// before any test: Catch2 runs the tests where a CUDA device is usable; otherwise the program exits
// 77, which CTest reports as "skipped" (SKIP_RETURN_CODE), never "passed".
//
// Usable = the decision of core/backend.hpp (cuda_device_usability: compute capability against the
// build's architectures, runtime against driver), printed in full so that a runtime/driver mismatch
// or a missing kernel image is reported, never a silent skip. Then the kernel-image probe
// (cudaFuncGetAttributes) must agree with that decision: a device declared usable whose kernel
// image is missing is a failure (the decision logic would be wrong, and `auto` would pick it).
// MOELAB_REQUIRE_GPU=1 in the environment turns every skip into a failure (exit 1): bench/gpu_run.sh
// sets it on a GPU machine, where a skip means the run checked nothing.
#pragma once

#include "moelab/config.hpp"
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "moelab/core/backend.hpp"
#include "moelab/core/backend_probe.hpp"
#include "test_runner.hpp"
#if MOELAB_HAVE_CUDA
#include "kernels/philox_normal.cuh"  // moelab::cuda::kernel_image_error
#endif

namespace moelab::test {

/// True when MOELAB_REQUIRE_GPU=1: a skipped GPU test is then a failure.
inline bool gpu_required() {
  const char* v = std::getenv("MOELAB_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

/// -1 (run the tests) where a CUDA device is usable; otherwise the exit code: 77 (skipped), or 1
/// under MOELAB_REQUIRE_GPU=1 or when the kernel-image probe contradicts the usability decision.
inline int gpu_gate() {
  constexpr int kSkipped = 77;  // SKIP_RETURN_CODE in tests/gpu/CMakeLists.txt
  constexpr int kRunTests = -1;
  const int no_device = gpu_required() ? 1 : kSkipped;
  const char* what = gpu_required() ? "MOELAB_REQUIRE_GPU=1: FAILED (a skip is a failure here)" : "GPU tests skipped";
#if MOELAB_HAVE_CUDA
  bool usable = false;
  const std::string report = moelab::cuda_backend_report(&usable);
  std::printf("%s\n", report.c_str());
  if (!usable) {
    std::printf("no usable CUDA device: %s\n", what);
    return no_device;
  }
  const std::string probe = moelab::cuda::kernel_image_error();
  if (!probe.empty()) {
    std::printf("FAILED: the device was judged usable but the kernel-image probe fails: %s\n", probe.c_str());
    return 1;
  }
  return kRunTests;
#else
  (void)kRunTests;
  std::printf("moelab built without CUDA (MOELAB_HAVE_CUDA off): %s\n", what);
  return no_device;
#endif
}

/// Every GPU test executable includes this header once (one source file each): the gate is installed
/// before main().
inline const InstallRunnerGate install_gpu_gate{gpu_gate};

}  // namespace moelab::test
