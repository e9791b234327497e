// The CUDA path of the region-mass Monte-Carlo: routing::Router data handed to the device launcher
// (kernels/routing_masses.cuh). Without a CUDA build the functions throw a clear error.
#include "moelab/core/error.hpp"
#include "moelab/routing/region_masses.hpp"

#ifdef MOELAB_HAVE_CUDA
#include "kernels/routing_masses.cuh"
#endif

namespace moelab::routing {

#ifdef MOELAB_HAVE_CUDA
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
}  // namespace

RegionHistogram region_histogram_cuda(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                      std::uint64_t draw) {
  MOELAB_EXPECT(points < (std::uint64_t{1} << 32), "region_histogram_cuda: at most 2^32 - 1 points per draw (32-bit counters)");
  RegionHistogram h(router.ranker().count());
  const auto runs = cuda::routing_region_counts(problem(router, law, seed, draw), points, h.regions(),
                                                RegionHistogram::kDenseLimit);
  for (const auto& [rank, count] : runs) h.add(rank, count);
  return h;
}

void route_cuda(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
                std::span<std::uint64_t> out) {
  cuda::routing_ranks_to_host(problem(router, law, seed, draw), first, out.size(), out.data());
}
#else
RegionHistogram region_histogram_cuda(const Router&, InputLaw, std::uint64_t, std::uint64_t, std::uint64_t) {
  MOELAB_EXPECT(false, "region_histogram_cuda: this moelab was built without CUDA");
  return RegionHistogram(1);
}
void route_cuda(const Router&, InputLaw, std::uint64_t, std::uint64_t, std::uint64_t, std::span<std::uint64_t>) {
  MOELAB_EXPECT(false, "route_cuda: this moelab was built without CUDA");
}
#endif

}  // namespace moelab::routing
