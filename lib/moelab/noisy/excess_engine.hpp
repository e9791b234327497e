// The noisy Fig. 3 Monte-Carlo (noisy.excess_risk: min-norm dense and per-expert fits, their exact
// excess risks, noisy paper Eq. 4 and Sec. 4.5) behind one interface, with the CPU reference and the
// CUDA sibling (STYLE.md, "CUDA beside host code"; docs/gpu.md, "One shape"). make_excess_risk_engine
// picks the implementation for a resolved Backend: Backend::cpu runs excess_trial (simulate.hpp) trial
// by trial; Backend::cuda (excess_engine_cuda.cpp, kernels/noisy_excess.cu) runs batches of trials
// with the same draws (device Philox at the CPU's addresses) and the same fallback rule, its
// per-element code shared with the CPU emulation through detail/sample_hd.hpp and detail/excess_plan.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/noisy/model.hpp"
#include "moelab/noisy/simulate.hpp"

namespace moelab::noisy {

class ExcessRiskEngine {
 public:
  virtual ~ExcessRiskEngine() = default;
  virtual Backend backend() const = 0;
  /// excess_trial(m, n, a, seed, t) for t = first .. first + count - 1, in trial order. The CUDA
  /// engine's rows differ from the CPU's by rounding only (docs/gpu.md, "W1 noisy sweep").
  virtual std::vector<ExcessTrial> trials(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first,
                                          std::int64_t count) = 0;
  /// The training sets of those trials (designs and responses of draw_training_set), X column-major
  /// n x d per trial, y n per trial, trial after trial.
  virtual void training_sets(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count,
                             std::vector<double>& X, std::vector<double>& y) = 0;
  /// True when several host threads may call one engine at once (the CPU reference); false for a
  /// device context, whose batches run one after the other.
  virtual bool concurrent_calls() const = 0;
};

/// Device memory one batch of trials may use by default (the CUDA engine sizes its batches by it,
/// never by the thread count, so its rows do not depend on the machine's cores).
inline constexpr double kExcessDeviceBudgetBytes = 2.0 * 1024 * 1024 * 1024;

/// The engine for a resolved backend. Backend::cuda where the CUDA backend cannot run (a build
/// without CUDA, no usable device) throws RuntimeFailure naming the reason and `--backend`
/// (core/backend_factory.hpp). `device_budget_bytes`: the CUDA engine's batch budget (ignored by the CPU).
std::unique_ptr<ExcessRiskEngine> make_excess_risk_engine(Backend backend, double device_budget_bytes = kExcessDeviceBudgetBytes);

}  // namespace moelab::noisy
