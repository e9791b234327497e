// The CUDA region-mass path (kernels/routing_masses.cu via make_region_mass_sampler(Backend::cuda), one
// sampler and so one device context across all the draws of a test case, and the one-off
// region_histogram_cuda) against the CPU reference (routing::Router): the same points, so the same region for every point
// except where the k-th and (k+1)-th scores tie to rounding (cuBLAS sums in another order, with FMA:
// scores differ by about 1e-15 relative, and a tie that close has probability of order 1e-13 per
// point). Allowed: at most 1 mismatched point per case, i.e. effectively none.
//
// Exit code 77 (skipped) without a CUDA build or device: tests/gpu/gpu_main.hpp.
#include "moelab/config.hpp"
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "device_harness.hpp"
#include "gpu_main.hpp"
#include "moelab/routing/region_mass_sampler.hpp"

#if MOELAB_HAVE_CUDA
namespace rt = moelab::routing;

namespace {

struct Case {
  int m, k, d;
  rt::ScorePath path;
  rt::InputLaw law;
};

std::uint64_t histogram_l1(const rt::RegionHistogram& a, const rt::RegionHistogram& b) {
  const auto ea = a.sorted_entries(), eb = b.sorted_entries();
  std::uint64_t l1 = 0;
  std::size_t i = 0, j = 0;
  while (i < ea.size() || j < eb.size()) {
    if (j == eb.size() || (i < ea.size() && ea[i].first < eb[j].first)) l1 += ea[i++].second;
    else if (i == ea.size() || eb[j].first < ea[i].first) l1 += eb[j++].second;
    else {
      l1 += ea[i].second > eb[j].second ? ea[i].second - eb[j].second : eb[j].second - ea[i].second;
      ++i, ++j;
    }
  }
  return l1;
}

}  // namespace

TEST_CASE("device region ranks equal the CPU reference point by point", "[gpu][routing]") {
  const Case c = GENERATE(Case{16, 8, 256, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{16, 8, 256, rt::ScorePath::full, rt::InputLaw::ball},
                          Case{16, 8, 256, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{256, 8, 256, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{256, 8, 256, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{40, 20, 24, rt::ScorePath::full, rt::InputLaw::gaussian},
                          // the first device run's blind spots: odd d, k = 1, k = 32 (both capacity ends of the
                          // register top-k), k between capacities, and (d = 1024) several device
                          // batches (about 1e5 points each) that start at an offset.
                          Case{9, 1, 7, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{9, 1, 17, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{12, 9, 33, rt::ScorePath::full, rt::InputLaw::ball},
                          Case{40, 32, 45, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{36, 32, 40, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{256, 8, 1024, rt::ScorePath::full, rt::InputLaw::gaussian});
  CAPTURE(c.m, c.k, c.d, static_cast<int>(c.path), rt::input_law_name(c.law));
  const std::uint64_t seed = 3, draw = 1, first = 3 * rt::kPointsPerStream - 1000, n = 250000;  // spans five streams
  const rt::Router router(rt::gaussian_routing_vectors(c.m, c.d, seed, draw), c.k, c.path);
  const auto device = rt::make_region_mass_sampler(moelab::Backend::cuda);
  std::vector<std::uint64_t> cpu(n), gpu(n), other(n);
  router.route(c.law, seed, draw, first, cpu);
  device->route(router, c.law, seed, draw, first, gpu);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += cpu[i] != gpu[i];
  CHECK(bad <= 1);
  // Negative control: the next draw's points must disagree for most points.
  device->route(router, c.law, seed, draw + 1, first, other);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n; ++i) differ += cpu[i] != other[i];
  CHECK(differ > n / 2);
}

TEST_CASE("device histograms equal the CPU histograms (dense and hashed)", "[gpu][routing]") {
  // (16, 8): C = 12870 regions, dense device histogram; 1.5e6 points span several device batches.
  // (256, 8): C = 4.1e14, hashed: CUB sort + run-length encoding per batch, merged on the host.
  // More dense cases: C(8, 3) = 56, C(10, 1) = 10 (projected, k = 1), C(34, 32) = 561
  // (k = 32), C(20, 10) = 184756 with odd d.
  const Case c = GENERATE(Case{16, 8, 256, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{256, 8, 256, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{256, 8, 256, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{8, 3, 16, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{10, 1, 10, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{34, 32, 40, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{20, 10, 31, rt::ScorePath::full, rt::InputLaw::ball});
  CAPTURE(c.m, c.k, c.d, static_cast<int>(c.path));
  const std::uint64_t seed = 9, draw = 0, n = 1500000;
  const rt::Router router(rt::gaussian_routing_vectors(c.m, c.d, seed, draw), c.k, c.path);
  const auto device = rt::make_region_mass_sampler(moelab::Backend::cuda);
  const auto cpu = rt::region_histogram(router, c.law, n, seed, draw, true);
  const auto gpu = device->histogram(router, c.law, n, seed, draw);
  CHECK(gpu.total() == n);
  CHECK(gpu.dense() == cpu.dense());
  // One mismatched point moves one count: L1 distance 2.
  CHECK(histogram_l1(cpu, gpu) <= 2);
  // Negative control: another seed's histogram (same law) differs by far more than 2 (multinomial noise).
  const rt::Router router2(rt::gaussian_routing_vectors(c.m, c.d, seed + 1, draw), c.k, c.path);
  // For C(m, k) = 10 regions the multinomial noise of 1.5e6 points is still ~1e3 per region: > 100.
  CHECK(histogram_l1(cpu, device->histogram(router2, c.law, n, seed + 1, draw)) > 100);
  // The one-off form (a context for one call) gives the same counts as the sampler's reused context.
  CHECK(histogram_l1(gpu, rt::region_histogram_cuda(router, c.law, n, seed, draw)) == 0);
}

TEST_CASE("one device context serves draws of different shapes, as the CPU does", "[gpu][routing]") {
  // The context's buffers grow for a larger problem and are reused for a smaller one afterwards.
  const auto samplers = moelab::test::both_backends([](moelab::Backend b) { return rt::make_region_mass_sampler(b); });
  const auto& device = samplers.device;
  const auto& cpu = samplers.cpu;
  for (const rt::RegionMassExperiment e : {rt::RegionMassExperiment{8, 3, 16, rt::InputLaw::gaussian, rt::ScorePath::full, 50000},
                                           rt::RegionMassExperiment{256, 8, 256, rt::InputLaw::ball, rt::ScorePath::full, 300000},
                                           rt::RegionMassExperiment{12, 4, 40, rt::InputLaw::gaussian, rt::ScorePath::projected, 50000}}) {
    CAPTURE(e.m, e.k, e.d);
    const auto got = rt::region_mass_draws(*device, e, 3, 17);
    const auto want = rt::region_mass_draws(*cpu, e, 3, 17);
    REQUIRE(got.size() == want.size());
    for (std::size_t t = 0; t < got.size(); ++t) {
      // At most one point moved by a rounding tie: the first region's mass within 1 / n.
      CHECK(std::abs(got[t].first_region_mass - want[t].first_region_mass) <= 1.0 / static_cast<double>(e.points));
      CHECK(got[t].occupied + 1 >= want[t].occupied);
      CHECK(got[t].occupied <= want[t].occupied + 1);
    }
  }
}

TEST_CASE("the device path refuses d above the point addressing's limit", "[gpu][routing]") {
  // d = 131071 would wrap the 32-bit Philox block counter (routing/point_routing.hpp, kMaxPointDim).
  const rt::Router router(rt::gaussian_routing_vectors(4, rt::kMaxPointDim + 1, 1, 0), 2, rt::ScorePath::full);
  CHECK_THROWS(rt::make_region_mass_sampler(moelab::Backend::cuda)->histogram(router, rt::InputLaw::gaussian, 100, 1, 0));
}

TEST_CASE("the device path refuses k > 32 with a clear error", "[gpu][routing]") {
  const rt::Router router(rt::gaussian_routing_vectors(64, 64, 1, 0), 33, rt::ScorePath::full);
  CHECK_THROWS(rt::make_region_mass_sampler(moelab::Backend::cuda)->histogram(router, rt::InputLaw::gaussian, 100, 1, 0));
}
#endif  // MOELAB_HAVE_CUDA
