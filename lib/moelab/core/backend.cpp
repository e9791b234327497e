#include "moelab/core/backend.hpp"

#ifdef MOELAB_HAVE_CUDA
#include "kernels/philox_normal.cuh"
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
  return cuda::device_available();
#else
  return false;
#endif
}

std::optional<Backend> resolve_backend(BackendRequest r, bool has_cuda_path, std::string* why) {
  if (r == BackendRequest::cpu) return Backend::cpu;
  const bool built =
#ifdef MOELAB_HAVE_CUDA
      true;
#else
      false;
#endif
  const bool device = built && cuda_backend_available();
  if (device && has_cuda_path) return Backend::cuda;
  if (r == BackendRequest::automatic) return Backend::cpu;
  if (why) {
    *why = !built     ? "this moelab was built without CUDA (configure with -DMOELAB_CUDA=ON where nvcc exists)"
           : !device  ? "no CUDA device is visible (cudaGetDeviceCount reports none)"
                      : "this work has no CUDA path yet; use backend = \"cpu\" or \"auto\"";
  }
  return std::nullopt;
}

}  // namespace moelab
