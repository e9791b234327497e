// The CPU reference of the excess-risk engine (excess_engine.hpp) and the factory. The CUDA sibling
// lives in excess_engine_cuda.cpp, the only file that includes the kernels' launcher header.
#include "moelab/noisy/excess_engine.hpp"

#include <algorithm>

#include "moelab/core/backend_factory.hpp"
#include "moelab/core/error.hpp"
#include "moelab/noisy/detail/cuda_excess_engine.hpp"

namespace moelab::noisy {

namespace {

/// excess_trial / draw_training_set trial by trial; each call single-threaded, so callers may run
/// calls for disjoint trials on several threads.
class CpuExcessRiskEngine final : public ExcessRiskEngine {
 public:
  Backend backend() const override { return Backend::cpu; }
  std::vector<ExcessTrial> trials(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first,
                                  std::int64_t count) override {
    MOELAB_EXPECT(count >= 0, "ExcessRiskEngine::trials: negative trial count");
    std::vector<ExcessTrial> out;
    out.reserve(static_cast<std::size_t>(count));
    for (std::int64_t t = 0; t < count; ++t) out.push_back(excess_trial(m, n, a, seed, first + static_cast<std::uint64_t>(t)));
    return out;
  }
  void training_sets(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count,
                     std::vector<double>& X, std::vector<double>& y) override {
    MOELAB_EXPECT(count >= 0, "ExcessRiskEngine::training_sets: negative trial count");
    const auto nd = static_cast<std::size_t>(n) * static_cast<std::size_t>(m.d());
    X.resize(static_cast<std::size_t>(count) * nd);
    y.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(n));
    TrainingSet ts;
    for (std::int64_t t = 0; t < count; ++t) {
      draw_training_set(m, n, a, seed, first + static_cast<std::uint64_t>(t), ts);
      const auto u = static_cast<std::size_t>(t);
      std::copy(ts.xbar.data(), ts.xbar.data() + nd, X.begin() + static_cast<std::ptrdiff_t>(u * nd));  // column-major n x d
      std::copy(ts.y.data(), ts.y.data() + n, y.begin() + static_cast<std::ptrdiff_t>(u * static_cast<std::size_t>(n)));
    }
  }
  bool concurrent_calls() const override { return true; }
};

}  // namespace

std::unique_ptr<ExcessRiskEngine> make_excess_risk_engine(Backend backend, double device_budget_bytes) {
  if (backend == Backend::cpu) return std::make_unique<CpuExcessRiskEngine>();
  require_cuda_backend("make_excess_risk_engine");
  return detail::make_cuda_excess_risk_engine(device_budget_bytes);
}

}  // namespace moelab::noisy
