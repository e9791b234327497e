// The CUDA sibling of the region-mass sampler (region_mass_sampler.hpp): routing::Router data handed
// to the device launcher (kernels/routing_masses.cuh) with one device context per sampler, kept
// across draws. Without a CUDA build the factory throws a clear error.
#include "moelab/config.hpp"
#include "moelab/core/error.hpp"
#include "moelab/routing/detail/cuda_sampler.hpp"
#include "moelab/routing/region_mass_sampler.hpp"

#if MOELAB_HAVE_CUDA
#include "kernels/routing_masses.cuh"
#endif

namespace moelab::routing::detail {

#if MOELAB_HAVE_CUDA
namespace {

cuda::RoutingProblem problem(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw) {
  MOELAB_EXPECT(router.k() <= kMaxDeviceTopK, "the CUDA routing path supports k <= 32 (kMaxDeviceTopK)");
  cuda::RoutingProblem p;
  p.score_matrix = router.score_matrix().data();
  p.m = router.m();
  p.dim = static_cast<int>(router.score_matrix().cols());
  p.k = router.k();
  p.projected = router.projected();
  p.ball = law == InputLaw::ball;
  p.rank_table = router.ranker().table().data();
  p.table_stride = router.ranker().table_stride();
  p.seed = seed;
  p.draw = draw;
  return p;
}

class CudaRegionMassSampler final : public RegionMassSampler {
 public:
  Backend backend() const override { return Backend::cuda; }
  RegionHistogram histogram(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                            std::uint64_t draw) override {
    MOELAB_EXPECT(points < (std::uint64_t{1} << 32), "the CUDA sampler: at most 2^32 - 1 points per draw (32-bit counters)");
    const std::uint64_t regions = router.ranker().count();
    // Ascending (rank, count) runs, exactly the CPU histogram's entries: taken as they are (no hash
    // insertion, which cost seconds at 2e7 points when every point has its own region).
    return RegionHistogram::from_sorted_runs(
        regions, cuda::routing_region_counts(device_, problem(router, law, seed, draw), points, regions, RegionHistogram::kDenseLimit));
  }
  void route(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
             std::span<std::uint64_t> out) override {
    cuda::routing_ranks_to_host(device_, problem(router, law, seed, draw), first, out.size(), out.data());
  }
  bool concurrent_draws() const override { return false; }

 private:
  cuda::RoutingDeviceContext device_;  // cuBLAS handle and buffers, reused by every draw
};

}  // namespace

std::unique_ptr<RegionMassSampler> make_cuda_region_mass_sampler() { return std::make_unique<CudaRegionMassSampler>(); }
#else
std::unique_ptr<RegionMassSampler> make_cuda_region_mass_sampler() {
  MOELAB_EXPECT(false, "make_region_mass_sampler(cuda): this moelab was built without CUDA");
  return nullptr;
}
#endif

}  // namespace moelab::routing::detail

namespace moelab::routing {

RegionHistogram region_histogram_cuda(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                      std::uint64_t draw) {
  return detail::make_cuda_region_mass_sampler()->histogram(router, law, points, seed, draw);
}

void route_cuda(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
                std::span<std::uint64_t> out) {
  detail::make_cuda_region_mass_sampler()->route(router, law, seed, draw, first, out);
}

}  // namespace moelab::routing
