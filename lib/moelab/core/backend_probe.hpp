// The usable-device decision behind core/backend.hpp's cuda_backend_available(): a CUDA
// device counts only when this build holds a kernel image it can run and the driver can load this
// runtime. The decision is a pure function, tested on the CPU (tests/core/backend_test.cpp); the GPU
// tests (tests/gpu/gpu_main.hpp) print the report and cross-check it with a kernel-image probe.
// (A header of its own so that scenario/study.hpp, which includes backend.hpp, does not depend on it.)
#pragma once

#include <string>
#include <vector>

namespace moelab {

/// One entry of the build's CMAKE_CUDA_ARCHITECTURES: "90" = sm_90 machine code + compute_90 PTX,
/// "90-real" machine code only, "90-virtual" PTX only.
struct CudaBuildArch {
  int arch = 0;  // 10 major + minor, e.g. 90
  bool sass = false;
  bool ptx = false;
};
/// Parses a CMAKE_CUDA_ARCHITECTURES list ("90", "80;90-real", "90a-real"; ',' or ';' separated).
/// Entries it cannot read ("native", "all", ...) are returned with arch = 0 (meaning: unknown).
std::vector<CudaBuildArch> parse_cuda_architectures(const std::string& list);
/// What the runtime says about one device and the installed driver.
struct CudaDeviceFacts {
  int cc_major = 0, cc_minor = 0;  // compute capability
  int runtime_version = 0;         // cudaRuntimeGetVersion: 1000 major + 10 minor (13000 = 13.0)
  int driver_version = 0;          // cudaDriverGetVersion: the newest CUDA the driver supports (0: none)
};
struct CudaUsability {
  bool usable = false;
  std::string reason;  // why not (or, when usable, which image runs: "sm_90 machine code")
};
/// The pure decision (tested on the CPU in tests/core/backend_test.cpp). A device is usable when
///   - a driver exists and its CUDA major version is at least the runtime's (an older major cannot
///     load this runtime: cudaErrorInsufficientDriver); an older minor of the same major runs
///     machine code (CUDA minor-version compatibility) but cannot JIT newer PTX;
///   - the build holds machine code sm_XY with X = the device's major and Y <= its minor (binary
///     compatibility within a major), or PTX compute_XY with XY <= the device's capability and a
///     driver at least as new as the runtime (JIT).
/// Unknown build entries ("native", "all") defer to the device probe (cudaFuncGetAttributes in the
/// GPU tests): usable here, with that said in the reason.
CudaUsability cuda_device_usability(const CudaDeviceFacts& f, const std::vector<CudaBuildArch>& built);
/// The architectures this moelab's kernels were built for (empty without CUDA).
std::vector<CudaBuildArch> cuda_built_architectures();
/// One line per device (or the CUDA error that left none) with its verdict: what `auto` and the GPU
/// tests go by, printed where a GPU run is reported. `usable` (optional): whether any device is.
std::string cuda_backend_report(bool* usable = nullptr);

}  // namespace moelab
