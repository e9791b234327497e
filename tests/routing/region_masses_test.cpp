// Routing regions and their Monte-Carlo masses (lib/moelab/routing/region_masses.hpp): top-k against
// a full sort, exact masses in small cases (a halfspace; cones in the plane), the two score paths
// against each other, dense vs hashed histograms, thread-count independence, E mu(U_S) = 1/C(m, k)
// for every S, and the Gaussian and ball laws giving every point the same region.
#include "moelab/routing/region_masses.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using moelab::StreamTag;

namespace {
/// Pearson chi-square p-value of two samples of counts over the same cells (cells with no count in
/// either sample are dropped): homogeneity test with (cells - 1) degrees of freedom.
double two_sample_chi2_pvalue(const std::vector<double>& a, const std::vector<double>& b) {
  const double na = std::accumulate(a.begin(), a.end(), 0.0), nb = std::accumulate(b.begin(), b.end(), 0.0);
  double chi2 = 0.0;
  int cells = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double t = a[i] + b[i];
    if (t == 0) continue;
    const double ea = t * na / (na + nb), eb = t * nb / (na + nb);
    chi2 += (a[i] - ea) * (a[i] - ea) / ea + (b[i] - eb) * (b[i] - eb) / eb;
    ++cells;
  }
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(cells - 1), chi2));
}

std::vector<double> counts_of(const rt::RegionHistogram& h) {
  std::vector<double> c(h.regions());
  for (std::uint64_t r = 0; r < h.regions(); ++r) c[r] = static_cast<double>(h.count(r));
  return c;
}
}  // namespace

TEST_CASE("top_k_indices returns the k largest scores, ascending in index", "[routing][regions]") {
  const moelab::RandomStream rs(1, StreamTag::property_test, 7);
  std::uint64_t j = 0;
  for (int m : {1, 2, 5, 16, 33, 256}) {
    for (int k : {1, 2, 3, 8, 16, 200}) {
      if (k > m) continue;
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<double> s(static_cast<std::size_t>(m));
        for (double& x : s) x = rs.normal(j++);
        std::vector<int> order(static_cast<std::size_t>(m));
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return s[static_cast<std::size_t>(a)] > s[static_cast<std::size_t>(b)]; });
        std::vector<int> expected(order.begin(), order.begin() + k);
        std::sort(expected.begin(), expected.end());
        std::vector<int> idx(static_cast<std::size_t>(k));
        std::vector<double> work(static_cast<std::size_t>(k));
        rt::top_k_indices(s.data(), m, k, idx.data(), work.data());
        REQUIRE(idx == expected);
      }
    }
  }
}

TEST_CASE("points have the stated laws and the same direction under both laws", "[routing][regions]") {
  constexpr int d = 6, n = 20000;
  Eigen::MatrixXd G(d, n), B(d, n);
  rt::draw_points(rt::InputLaw::gaussian, 4, 2, 0, G);
  rt::draw_points(rt::InputLaw::ball, 4, 2, 0, B);
  moelab::Welford g2, b2, radius_d;
  for (int i = 0; i < n; ++i) {
    g2.add(G.col(i).squaredNorm());
    b2.add(B.col(i).squaredNorm());
    radius_d.add(std::pow(B.col(i).norm(), d));
    // Same direction (the ball point rescales the Gaussian one): cosine 1 to rounding.
    REQUIRE(G.col(i).normalized().dot(B.col(i).normalized()) > 1 - 1e-12);
  }
  // N(0, I/d): |x|^2 ~ chi2_d / d, mean 1, variance 2/d. Unif[B_d]: |x|^d ~ U(0, 1), E|x|^2 = d/(d+2).
  // 5 SE with n = 2e4.
  CHECK_THAT(g2.mean(), WithinAbs(1.0, 5 * std::sqrt(2.0 / d / n)));
  CHECK_THAT(radius_d.mean(), WithinAbs(0.5, 5 * std::sqrt(1.0 / 12 / n)));
  CHECK_THAT(b2.mean(), WithinAbs(static_cast<double>(d) / (d + 2), 5 * b2.standard_error()));
  // Controls at the nearest wrong values: each closed form moved by 10 of its SE (the smallest shift the
  // 5-SE acceptance rejects with power 0.9999) must be rejected: |x|^2 of N(0, I/d) at 1 + 0.041 (a
  // 4.1% normalisation error), |x|^d at 0.5 + 0.020, the ball's E|x|^2 at d/(d+2) + 0.014 (vs the
  // plausible slip d/(d+1), 76 SE away).
  CHECK(std::abs(g2.mean() - (1.0 + 10 * std::sqrt(2.0 / d / n))) > 5 * std::sqrt(2.0 / d / n));
  CHECK(std::abs(radius_d.mean() - (0.5 + 10 * std::sqrt(1.0 / 12 / n))) > 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::abs(b2.mean() - (static_cast<double>(d) / (d + 2) + 10 * b2.standard_error())) > 5 * b2.standard_error());
}

TEST_CASE("two experts, top-1: the region is a halfspace of mass exactly 1/2", "[routing][regions]") {
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(2, 9, 5, 0);
  const rt::Router router(R, 1, rt::ScorePath::full);
  const auto h = rt::region_histogram(router, rt::InputLaw::ball, 40000, 5, 0, false);
  // Binomial(4e4, 1/2): SE 0.0025 of the mass; 5 SE.
  CHECK_THAT(static_cast<double>(h.count(0)) / 40000.0, WithinAbs(0.5, 5 * 0.0025));
  // Control: a mass of 0.525 (10 SE off, e.g. a tie rule favouring one expert) must be rejected.
  CHECK(std::abs(static_cast<double>(h.count(0)) / 40000.0 - 0.525) > 5 * 0.0025);
  // k = m: one region holding everything.
  const rt::Router all(R, 2, rt::ScorePath::full);
  CHECK(rt::region_histogram(all, rt::InputLaw::gaussian, 1000, 5, 0, false).count(0) == 1000);
}

TEST_CASE("in the plane the region masses are the angles of the cones", "[routing][regions]") {
  // d = 2: mu(U_S) is the fraction of directions theta whose top-k set is S (for any rotation-
  // invariant law); computed on a grid of 2^20 angles (error <= m k / 2^20 per region, far below the
  // Monte-Carlo SE), compared by a chi-square goodness-of-fit test.
  const int m = GENERATE(3, 5);
  const int k = GENERATE(1, 2);
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(m, 2, 8, static_cast<std::uint64_t>(m * 10 + k));
  const rt::Router router(R, k, rt::ScorePath::full);
  const std::uint64_t C = router.ranker().count();
  std::vector<double> angle_mass(C, 0.0);
  constexpr int grid = 1 << 20;
  for (int g = 0; g < grid; ++g) {
    const double th = 2 * M_PI * (g + 0.5) / grid;
    angle_mass[router.region_of(Eigen::Vector2d(std::cos(th), std::sin(th)))] += 1.0 / grid;
  }
  constexpr std::uint64_t n = 100000;
  const auto h = rt::region_histogram(router, rt::InputLaw::gaussian, n, 8, 1, false);
  double chi2 = 0.0;
  int cells = 0;
  for (std::uint64_t r = 0; r < C; ++r) {
    if (angle_mass[r] == 0) {
      CHECK(h.count(r) == 0);  // in 2D most of the C(m, k) regions are empty
      continue;
    }
    const double e = angle_mass[r] * n;
    chi2 += (static_cast<double>(h.count(r)) - e) * (static_cast<double>(h.count(r)) - e) / e;
    ++cells;
  }
  const double p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(std::max(cells - 1, 1)), chi2));
  // A correct sampler gives a uniform p; 1e-4 fails once in 1e4 seeds.
  CHECK(p > 1e-4);
  // Control: the angle grid of the routing vectors with row 0 scaled by 2 (a wrong form: a score
  // computed with an unnormalised or doubled vector) must be rejected by the same test. A region that
  // the wrong grid leaves empty but the sample fills rejects at once.
  Eigen::MatrixXd R2 = R;
  R2.row(0) *= 2.0;
  const rt::Router wrong(R2, k, rt::ScorePath::full);
  std::vector<double> wrong_mass(C, 0.0);
  for (int g = 0; g < grid; ++g) {
    const double th = 2 * M_PI * (g + 0.5) / grid;
    wrong_mass[wrong.region_of(Eigen::Vector2d(std::cos(th), std::sin(th)))] += 1.0 / grid;
  }
  double chi2_wrong = 0.0;
  int wrong_cells = 0;
  bool impossible = false;
  for (std::uint64_t r = 0; r < C; ++r) {
    if (wrong_mass[r] == 0) {
      impossible = impossible || h.count(r) > 0;
      continue;
    }
    const double e = wrong_mass[r] * n;
    chi2_wrong += (static_cast<double>(h.count(r)) - e) * (static_cast<double>(h.count(r)) - e) / e;
    ++wrong_cells;
  }
  const double p_wrong =
      impossible ? 0.0 : boost::math::cdf(boost::math::complement(boost::math::chi_squared(std::max(wrong_cells - 1, 1)), chi2_wrong));
  CAPTURE(chi2_wrong, impossible);
  CHECK(p_wrong < 1e-4);
}

TEST_CASE("the projected score path has the law of the full one", "[routing][regions]") {
  // Same R, independent points: two-sample chi-square over the C(6, 2) = 15 regions.
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(6, 20, 9, 3);
  const rt::Router full(R, 2, rt::ScorePath::full), projected(R, 2, rt::ScorePath::projected);
  REQUIRE(projected.projected());
  const auto a = counts_of(rt::region_histogram(full, rt::InputLaw::gaussian, 100000, 9, 3, false));
  const auto b = counts_of(rt::region_histogram(projected, rt::InputLaw::gaussian, 100000, 9, 3, false));
  CHECK(two_sample_chi2_pvalue(a, b) > 1e-4);
  // Negative control: routing vectors that are not those of R (R with its first row doubled: a
  // different cone fan) is rejected.
  Eigen::MatrixXd R2 = R;
  R2.row(0) *= 2.0;
  const rt::Router other(R2, 2, rt::ScorePath::projected);
  const auto c = counts_of(rt::region_histogram(other, rt::InputLaw::gaussian, 100000, 9, 4, false));
  CHECK(two_sample_chi2_pvalue(a, c) < 1e-6);
}

TEST_CASE("dense and hashed histograms and any thread count give the same counts", "[routing][regions]") {
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(12, 16, 2, 0);
  const rt::Router router(R, 3, rt::ScorePath::automatic);
  rt::RegionHistogram dense(router.ranker().count()), hashed(router.ranker().count(), 0);
  REQUIRE(dense.dense());
  REQUIRE_FALSE(hashed.dense());
  router.count(rt::InputLaw::gaussian, 2, 0, 0, 30000, dense);
  router.count(rt::InputLaw::gaussian, 2, 0, 0, 30000, hashed);
  CHECK(dense.sorted_entries() == hashed.sorted_entries());
  CHECK(dense.pair_collisions() == hashed.pair_collisions());
  CHECK(dense.occupied() == hashed.occupied());
  CHECK(dense.regions_at_least(30) == hashed.regions_at_least(30));
  const int before = moelab::num_threads();
  moelab::set_num_threads(1);
  const auto one = rt::region_histogram(router, rt::InputLaw::gaussian, 30000, 2, 0, true);
  moelab::set_num_threads(3);
  const auto three = rt::region_histogram(router, rt::InputLaw::gaussian, 30000, 2, 0, true);
  moelab::set_num_threads(before);
  CHECK(one.sorted_entries() == dense.sorted_entries());
  CHECK(three.sorted_entries() == dense.sorted_entries());
  // Routing labels one by one agree with the histogram.
  std::vector<std::uint64_t> labels(30000);
  router.route(rt::InputLaw::gaussian, 2, 0, 0, labels);
  rt::RegionHistogram again(router.ranker().count());
  for (auto r : labels) again.add(r);
  CHECK(again.sorted_entries() == dense.sorted_entries());
}

TEST_CASE("every region has expected mass 1/C(m, k) over Gaussian routing vectors", "[routing][regions]") {
  // Lemma 3.2, Eq. (3.2): E_r mu(U_S) = 1 / C(m, k) for every S, by symmetry. (m, k) = (5, 2), d = 8:
  // 2000 routing draws x 1000 points; per S a z statistic over the draws; all |z| < 4.5 (10 regions:
  // P(max |z| > 4.5) ~ 7e-5 for a correct sampler).
  constexpr int m = 5, k = 2, d = 8, draws = 2000;
  constexpr std::uint64_t n = 1000;
  const auto hists = moelab::parallel_map<std::vector<double>>(draws, [&](std::size_t t) {
    const rt::Router router(rt::gaussian_routing_vectors(m, d, 12, t), k, rt::ScorePath::full);
    return counts_of(rt::region_histogram(router, rt::InputLaw::gaussian, n, 12, t, false));
  });
  std::vector<moelab::Welford> w(10);
  for (const auto& c : hists)
    for (std::size_t s = 0; s < 10; ++s) w[s].add(c[s] / n);
  double worst = 0.0;
  for (const auto& x : w) worst = std::max(worst, std::abs(x.mean() - 0.1) / x.standard_error());
  CHECK(worst < 4.5);
  // Negative control: 1.1 / C is rejected by the mean over the draws (its SE is ~1% of 1/C here).
  moelab::Welford pooled;
  for (const auto& c : hists) pooled.add(c[0] / n);
  CHECK(std::abs(pooled.mean() - 0.11) / pooled.standard_error() > 6);
  // The summary's unbiased statistics on one draw.
  const rt::Router router(rt::gaussian_routing_vectors(m, d, 12, 0), k, rt::ScorePath::full);
  const auto s = rt::summarize_regions(rt::region_histogram(router, rt::InputLaw::gaussian, n, 12, 0, false));
  CHECK(s.regions == 10);
  CHECK(s.first_region_mass == hists[0][0] / n);
  double coll = 0.0;
  for (double c : hists[0]) coll += c * (c - 1);
  CHECK_THAT(s.collision, WithinAbs(coll / (n * (n - 1.0)), 1e-15));
}
