// The refusal every topic's engine factory gives (make_region_mass_sampler, make_excess_risk_engine,
// make_spectra_engine, make_teacher_student_trainer: the one shape of docs/gpu.md, "One shape"): a
// factory asked for Backend::cuda where the CUDA backend cannot run throws one clear message naming
// the factory, the reason (built without CUDA, or no usable device and why) and the option that
// chooses the backend. Studies and claims ask for a backend already resolved (resolve_backend), so
// they never meet it; a test, a benchmark or a library user may.
#pragma once

#include <string>

#include "moelab/core/backend.hpp"
#include "moelab/core/error.hpp"

namespace moelab {

/// Returns when the CUDA backend can run here; otherwise throws RuntimeFailure with
/// "<factory>(cuda): <why>; run with --backend cpu (or --backend auto, which takes the CPU here)".
inline void require_cuda_backend(const char* factory) {
  std::string why;
  if (resolve_backend(BackendRequest::cuda, CudaPath::experimental, &why)) return;
  throw RuntimeFailure(std::string(factory) + "(cuda): the CUDA backend cannot run here: " + why +
                       "; run with --backend cpu (or --backend auto, which takes the CPU here)");
}

}  // namespace moelab
