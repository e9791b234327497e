#include "moelab/core/backend.hpp"

#ifdef MOELAB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace moelab {

const char* to_string(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

const char* to_string(BackendRequest r) {
  switch (r) {
    case BackendRequest::cpu: return "cpu";
    case BackendRequest::cuda: return "cuda";
    case BackendRequest::automatic: return "auto";
  }
  return "?";
}

std::optional<BackendRequest> parse_backend(const std::string& s) {
  if (s == "cpu") return BackendRequest::cpu;
  if (s == "cuda") return BackendRequest::cuda;
  if (s == "auto") return BackendRequest::automatic;
  return std::nullopt;
}

bool cuda_backend_available() {
#ifdef MOELAB_HAVE_CUDA
  // The kernels are built for sm_90 (kernels/CMakeLists.txt): a device of a lower compute
  // capability cannot run them, so it does not count.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  for (int d = 0; d < count; ++d) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess && major >= 9) return true;
  }
  return false;
#else
  return false;
#endif
}

const char* to_string(CudaPath p) {
  switch (p) {
    case CudaPath::none: return "none";
    case CudaPath::experimental: return "experimental";
    case CudaPath::validated: return "validated";
  }
  return "?";
}

std::optional<Backend> resolve_backend(BackendRequest r, CudaPath path, std::string* why) {
  if (r == BackendRequest::cpu) return Backend::cpu;
  const bool built =
#ifdef MOELAB_HAVE_CUDA
      true;
#else
      false;
#endif
  const bool device = built && cuda_backend_available();
  if (r == BackendRequest::automatic) return device && path == CudaPath::validated ? Backend::cuda : Backend::cpu;
  if (device && path != CudaPath::none) return Backend::cuda;
  if (why) {
    *why = !built     ? "this moelab was built without CUDA (configure with -DMOELAB_CUDA=ON where nvcc exists)"
           : !device  ? "no CUDA device is visible (cudaGetDeviceCount reports none)"
                      : "this work has no CUDA path yet; use backend = \"cpu\" or \"auto\"";
  }
  return std::nullopt;
}

}  // namespace moelab
