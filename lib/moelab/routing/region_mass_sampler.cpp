#include "moelab/routing/region_mass_sampler.hpp"

#include "moelab/core/backend_factory.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/routing/detail/cuda_sampler.hpp"

namespace moelab::routing {

namespace {

/// The CPU reference: Router::count over the points, single-threaded per call.
class CpuRegionMassSampler final : public RegionMassSampler {
 public:
  Backend backend() const override { return Backend::cpu; }
  RegionHistogram histogram(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                            std::uint64_t draw) override {
    return region_histogram(router, law, points, seed, draw, false);
  }
  void route(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
             std::span<std::uint64_t> out) override {
    router.route(law, seed, draw, first, out);
  }
  bool concurrent_draws() const override { return true; }
};

}  // namespace

std::unique_ptr<RegionMassSampler> make_region_mass_sampler(Backend backend) {
  if (backend == Backend::cpu) return std::make_unique<CpuRegionMassSampler>();
  require_cuda_backend("make_region_mass_sampler");
  return detail::make_cuda_region_mass_sampler();
}

bool sampler_supports(Backend backend, int k) { return backend == Backend::cpu || k <= kMaxDeviceTopK; }

std::vector<RegionMassSummary> region_mass_draws(RegionMassSampler& sampler, const RegionMassExperiment& e,
                                                 std::int64_t draws, std::uint64_t seed,
                                                 const std::function<void()>& on_draw,
                                                 std::vector<std::vector<double>>* masses) {
  MOELAB_EXPECT(draws >= 0, "region_mass_draws needs draws >= 0");
  const auto n = static_cast<std::size_t>(draws);
  if (masses) masses->assign(n, {});
  const auto one_draw = [&](std::size_t t) {
    const Router router(gaussian_routing_vectors(e.m, e.d, seed, t), e.k, e.path);
    const RegionHistogram h = sampler.histogram(router, e.law, e.points, seed, t);
    if (masses) {
      auto& out = (*masses)[t];
      out.reserve(h.regions());
      const double C = static_cast<double>(h.regions());
      for (std::uint64_t r = 0; r < h.regions(); ++r)
        out.push_back(C * static_cast<double>(h.count(r)) / static_cast<double>(e.points));
    }
    if (on_draw) on_draw();
    return summarize_regions(h);
  };
  if (sampler.concurrent_draws()) return parallel_map<RegionMassSummary>(n, one_draw);
  std::vector<RegionMassSummary> out;
  out.reserve(n);
  for (std::size_t t = 0; t < n; ++t) {
    check_interrupted();
    out.push_back(one_draw(t));
  }
  return out;
}

}  // namespace moelab::routing
