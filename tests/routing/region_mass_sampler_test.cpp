// The region-mass sampler over every backend present (region_mass_sampler.hpp): the CPU reference
// always, the CUDA sibling where cuda_backend_available() (elsewhere its case reports "skipped" and
// does not run). Each backend must reproduce Router::count / Router::route, the CPU reference, for
// the same Philox addresses: exactly on the CPU; on the device up to points whose k-th and (k+1)-th
// scores tie to rounding (cuBLAS sums in another order: probability ~1e-13 per point), so at most
// one mismatched point per case. One sampler serves several draws (the CUDA one keeps its device
// context across them).
#include "moelab/config.hpp"
#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/core/backend.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/region_mass_sampler.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using moelab::Backend;

namespace {

std::uint64_t histogram_l1(const rt::RegionHistogram& a, const rt::RegionHistogram& b) {
  std::uint64_t l1 = 0;
  for (std::uint64_t r = 0; r < a.regions(); ++r) {
    const auto x = a.count(r), y = b.count(r);
    l1 += x > y ? x - y : y - x;
  }
  return l1;
}

/// Backend under test, or false (after reporting the skip) when it is not present here.
bool present(Backend b) { return moelab::test::backend_present(b); }

}  // namespace

TEST_CASE("every backend's sampler reproduces the CPU reference, draw after draw", "[routing][backend]") {
  const Backend backend = GENERATE(Backend::cpu, Backend::cuda);
  CAPTURE(moelab::to_string(backend));
  if (!present(backend)) return;
  const auto sampler = rt::make_region_mass_sampler(backend);
  CHECK(sampler->backend() == backend);
  const std::uint64_t seed = 5, n = 20000;
  for (const auto path : {rt::ScorePath::full, rt::ScorePath::projected})
    for (std::uint64_t draw = 0; draw < 3; ++draw) {  // one sampler, several draws
      CAPTURE(static_cast<int>(path), draw);
      const rt::Router router(rt::gaussian_routing_vectors(7, 12, seed, draw), 3, path);
      rt::RegionHistogram reference(router.ranker().count());
      router.count(rt::InputLaw::gaussian, seed, draw, 0, n, reference);
      const auto h = sampler->histogram(router, rt::InputLaw::gaussian, n, seed, draw);
      CHECK(h.total() == n);
      CHECK(histogram_l1(h, reference) <= 2);  // one mismatched point moves one count: L1 distance 2
      std::vector<std::uint64_t> ranks(1000), ref_ranks(1000);
      sampler->route(router, rt::InputLaw::ball, seed, draw, 12345, ranks);
      router.route(rt::InputLaw::ball, seed, draw, 12345, ref_ranks);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < ranks.size(); ++i) bad += ranks[i] != ref_ranks[i];
      CHECK(bad <= 1);
      // Negative control: the next draw's points land elsewhere for most points.
      sampler->route(router, rt::InputLaw::ball, seed, draw + 1, 12345, ranks);
      bad = 0;
      for (std::size_t i = 0; i < ranks.size(); ++i) bad += ranks[i] != ref_ranks[i];
      CHECK(bad > ranks.size() / 2);
    }
}

TEST_CASE("region_mass_draws gives the same summaries on every backend, in draw order", "[routing][backend]") {
  const Backend backend = GENERATE(Backend::cpu, Backend::cuda);
  CAPTURE(moelab::to_string(backend));
  if (!present(backend)) return;
  const rt::RegionMassExperiment e{6, 2, 9, rt::InputLaw::gaussian, rt::ScorePath::automatic, 3000};
  const auto cpu = rt::make_region_mass_sampler(Backend::cpu);
  const auto sampler = rt::make_region_mass_sampler(backend);
  int calls = 0;
  std::vector<std::vector<double>> masses;
  const auto got = rt::region_mass_draws(*sampler, e, 5, 11, [&] {
#pragma omp critical
    ++calls;
  }, &masses);
  const auto want = rt::region_mass_draws(*cpu, e, 5, 11);
  REQUIRE(got.size() == 5);
  CHECK(calls == 5);
  REQUIRE(masses.size() == 5);
  for (std::size_t t = 0; t < got.size(); ++t) {
    CAPTURE(t);
    CHECK(masses[t].size() == rt::binomial(6, 2));
    double total = 0.0;
    for (double x : masses[t]) total += x;
    CHECK_THAT(total, Catch::Matchers::WithinRel(15.0, 1e-12));  // sum_S C mu_hat(U_S) = C
    // Equal up to one point moving region on the device (a rounding tie): 2 / n in a mass.
    CHECK_THAT(got[t].first_region_mass, Catch::Matchers::WithinAbs(want[t].first_region_mass, 2.0 / 3000));
    CHECK_THAT(got[t].normalized_second_moment, Catch::Matchers::WithinRel(want[t].normalized_second_moment, 1e-2));
  }
  // Draw t is its own router: different draws differ.
  CHECK(got[0].normalized_second_moment != got[1].normalized_second_moment);
}

TEST_CASE("the CUDA sampler refuses what it cannot do with a clear error", "[routing][backend]") {
  CHECK(rt::sampler_supports(Backend::cpu, 40));
  CHECK_FALSE(rt::sampler_supports(Backend::cuda, rt::kMaxDeviceTopK + 1));
  CHECK(rt::sampler_supports(Backend::cuda, rt::kMaxDeviceTopK));
  if (!moelab::cuda_backend_available()) {
#if !MOELAB_HAVE_CUDA
    CHECK_THROWS_WITH(rt::make_region_mass_sampler(Backend::cuda), Catch::Matchers::Contains("without CUDA"));
#endif
    return;
  }
  const auto sampler = rt::make_region_mass_sampler(Backend::cuda);
  const rt::Router router(rt::gaussian_routing_vectors(64, 64, 1, 0), 33, rt::ScorePath::full);
  CHECK_THROWS(sampler->histogram(router, rt::InputLaw::gaussian, 100, 1, 0));
}

namespace {

/// P(expert i is the top-1) for orthogonal routing vectors of norms s (scores s_j z_j, z iid N(0, 1)):
/// int phi(z) prod_{j != i} Phi(s_i z / s_j) dz, by the midpoint rule on [-12, 12] with 48000 cells
/// (the integrand is smooth; the error is far below 1e-9, against Monte-Carlo SEs of ~1e-3).
double top1_mass(const std::vector<double>& s, std::size_t i) {
  constexpr int cells = 48000;
  const double lo = -12.0, h = 24.0 / cells;
  double sum = 0.0;
  for (int c = 0; c < cells; ++c) {
    const double z = lo + (c + 0.5) * h;
    double f = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    for (std::size_t j = 0; j < s.size(); ++j)
      if (j != i) f *= 0.5 * std::erfc(-(s[i] * z / s[j]) / std::sqrt(2.0));
    sum += f * h;
  }
  return sum;
}

/// Orthogonal routing vectors: row j = s_j e_j in R^d.
Eigen::MatrixXd orthogonal_rows(const std::vector<double>& s, int d) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(s.size()), d);
  for (std::size_t j = 0; j < s.size(); ++j) R(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j)) = s[j];
  return R;
}

/// max over regions of |count / n - mass| / SE, SE = sqrt(mass (1 - mass) / n) (binomial counts).
double worst_z(const rt::RegionHistogram& h, const std::vector<double>& mass, std::uint64_t n) {
  double worst = 0.0;
  for (std::uint64_t r = 0; r < h.regions(); ++r) {
    const double p = mass[r], se = std::sqrt(p * (1.0 - p) / static_cast<double>(n));
    worst = std::max(worst, std::fabs(static_cast<double>(h.count(r)) / static_cast<double>(n) - p) / se);
  }
  return worst;
}

}  // namespace

TEST_CASE("the CPU sampler's region masses equal closed forms for orthogonal routing vectors", "[routing][backend]") {
  // Independent of Router: with orthogonal routing vectors the scores are independent normals
  // s_j z_j (any rotation-invariant law: only the direction of x matters), so
  //  - equal norms: every k-subset is the top-k set with probability 1 / C(m, k) (exchangeability);
  //  - norms (2, 1, 1), top-1: the masses are the 1-d integrals of top1_mass.
  // Tolerance: 4.5 binomial SEs per region (n = 40000 points: SE ~2e-3 on masses ~0.1-0.5); over the
  // 10 + 3 regions of both laws and paths a false alarm has probability ~1e-4.
  const auto sampler = rt::make_region_mass_sampler(Backend::cpu);
  constexpr std::uint64_t n = 40000;
  for (const auto path : {rt::ScorePath::full, rt::ScorePath::projected})
    for (const auto law : {rt::InputLaw::gaussian, rt::InputLaw::ball}) {
      CAPTURE(static_cast<int>(path), static_cast<int>(law));
      const rt::Router uniform(orthogonal_rows({1, 1, 1, 1, 1}, 8), 2, path);
      const auto hu = sampler->histogram(uniform, law, n, 17, 0);
      REQUIRE(hu.regions() == 10);
      CHECK(worst_z(hu, std::vector<double>(10, 0.1), n) < 4.5);
      const std::vector<double> s{2, 1, 1};
      const rt::Router scaled(orthogonal_rows(s, 5), 1, path);
      const auto hs = sampler->histogram(scaled, law, n, 17, 1);
      const std::vector<double> exact{top1_mass(s, 0), top1_mass(s, 1), top1_mass(s, 2)};
      CHECK_THAT(exact[0] + exact[1] + exact[2], Catch::Matchers::WithinAbs(1.0, 1e-9));
      CAPTURE(exact[0], hs.count(0), hs.count(1), hs.count(2));
      CHECK(worst_z(hs, exact, n) < 4.5);
      // Control: the equal-norm answer (1/3 each) is the wrong form for the scaled vector (exact mass
      // ~0.58 for it): rejected by far more than the tolerance.
      CHECK(worst_z(hs, std::vector<double>(3, 1.0 / 3.0), n) > 4.5);
    }
}
