#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"

using namespace moelab;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("Welford merge equals a single pass for any split", "[core][stats]") {
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u));
  std::normal_distribution<double> nd(3.0, 2.0);
  std::vector<double> xs(1000);
  for (auto& x : xs) x = nd(rng);
  const Welford all = summarize(xs);
  const std::size_t cut = std::uniform_int_distribution<std::size_t>(0, xs.size())(rng);
  Welford a = summarize(std::span<const double>(xs.data(), cut));
  const Welford b = summarize(std::span<const double>(xs.data() + cut, xs.size() - cut));
  a.merge(b);
  // 1e-12 relative: two summation orders of 1000 terms of size ~10.
  CHECK(a.count() == all.count());
  CHECK_THAT(a.mean(), WithinRel(all.mean(), 1e-12));
  CHECK_THAT(a.variance(), WithinRel(all.variance(), 1e-12));
}

TEST_CASE("Welford agrees with the two-pass formulas", "[core][stats]") {
  const std::vector<double> xs{1, 2, 3, 4, 10};
  const Welford w = summarize(xs);
  CHECK_THAT(w.mean(), WithinAbs(4.0, 1e-15));
  CHECK_THAT(w.variance(), WithinRel(12.5, 1e-15));  // sum (x - 4)^2 = 50, / 4
  CHECK_THAT(w.standard_error(), WithinRel(std::sqrt(12.5 / 5), 1e-15));
}

TEST_CASE("Student-t interval and tests match tabulated quantiles", "[core][stats]") {
  // t_{0.975,9} = 2.2621571627982055 (mpmath, 30 digits: root of I_{9/(9+t^2)}(4.5, 0.5)/2 = 0.025;
  // note SciPy 1.10 returns 2.2621571627409915, off by 2.5e-11 relative); z_{0.995} = 2.5758293035489004.
  CHECK_THAT(student_t_quantile(0.975, 9), WithinRel(2.2621571627982055, 1e-12));
  CHECK_THAT(normal_quantile(0.995), WithinRel(2.5758293035489004, 1e-12));
  CHECK_THAT(z_test_two_sided(1.959963984540054), WithinRel(0.05, 1e-10));
  CHECK_THAT(z_test_greater(0.0), WithinRel(0.5, 1e-15));
  Welford w;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0}) w.add(x);
  const auto ci = t_interval(w, 0.95);
  const double h = 2.2621571627982055 * w.standard_error();
  CHECK_THAT(ci.lower, WithinRel(5.5 - h, 1e-12));
  CHECK_THAT(ci.upper, WithinRel(5.5 + h, 1e-12));
  CHECK_THAT(t_test_two_sided(w, 5.5 - h), WithinRel(0.05, 1e-9));
}

TEST_CASE("weighted least squares recovers a/n^2 + b/n exactly on noise-free data", "[core][stats]") {
  std::vector<double> n{100, 200, 400, 800, 1600}, y, w, c1, c2;
  for (double v : n) {
    c1.push_back(1 / (v * v));
    c2.push_back(1 / v);
    y.push_back(3000 / (v * v) + 2.5 / v);
    w.push_back(1.0);
  }
  const auto fit = weighted_least_squares({c1, c2}, y, w);
  CHECK_THAT(fit.coef[0], WithinRel(3000.0, 1e-9));
  CHECK_THAT(fit.coef[1], WithinRel(2.5, 1e-9));
}

TEST_CASE("parallel_map results do not depend on the thread count", "[core][parallel]") {
  auto run = [](int threads) {
    set_num_threads(threads);
    auto v = parallel_map<double>(1000, [](std::size_t i) { return std::sin(static_cast<double>(i)); });
    set_num_threads(0);
    Welford w;
    for (double x : v) w.add(x);
    return w.mean();
  };
  CHECK(run(1) == run(2));
}

TEST_CASE("parallel_for rethrows the first exception on the caller", "[core][parallel]") {
  CHECK_THROWS_AS(parallel_for(100, [](std::size_t i) { if (i == 50) throw std::runtime_error("boom"); }),
                  std::runtime_error);
}

TEST_CASE("Kolmogorov's limiting CDF takes its tabulated values and both series agree", "[core][stats][ks]") {
  // Classical critical values: K(1.35810) = 0.95, K(1.62762) = 0.99 (Smirnov 1948 table, 5 digits:
  // tolerance 2e-5 covers the rounding of the tabulated arguments, |K'| < 0.3 there).
  CHECK_THAT(kolmogorov_cdf(1.35810), WithinAbs(0.95, 2e-5));
  CHECK_THAT(kolmogorov_cdf(1.62762), WithinAbs(0.99, 2e-5));
  // The two series meet at x = 1: the value just below (theta form) equals the value at 1
  // (alternating form) up to K' dx with K'(1) ~ 1.1 and dx = 1e-12.
  CHECK_THAT(kolmogorov_cdf(1.0 - 1e-12), WithinAbs(kolmogorov_cdf(1.0), 1e-11));
  CHECK(kolmogorov_cdf(0.0) == 0.0);
  CHECK(kolmogorov_cdf(10.0) == 1.0);
}

TEST_CASE("KS p-values of true-null samples are uniform, a shifted law is rejected", "[core][stats][ks]") {
  // 400 replicates of n = 200 uniforms: the count of p < 0.05 is Binomial(400, 0.05) under a
  // correct test (mean 20, sd 4.4); accept 8..34 (beyond 3 sd). Fixed seed: deterministic.
  const auto uniform_cdf = [](double x) { return std::clamp(x, 0.0, 1.0); };
  int small_null = 0, small_alt = 0;
  for (std::uint64_t r = 0; r < 400; ++r) {
    const RandomStream rs(2024, StreamTag::property_test, r);
    std::vector<double> u(200), v(200);
    for (std::size_t i = 0; i < u.size(); ++i) {
      u[i] = rs.uniform(i);
      v[i] = std::pow(u[i], 1.5);  // negative control: CDF x^(2/3), sup distance to U(0,1) 4/27
    }
    std::sort(u.begin(), u.end());
    std::sort(v.begin(), v.end());
    small_null += ks_pvalue(ks_statistic(u, uniform_cdf), u.size()) < 0.05;
    small_alt += ks_pvalue(ks_statistic(v, uniform_cdf), v.size()) < 0.05;
  }
  CHECK(small_null >= 8);
  CHECK(small_null <= 34);
  // The 5% critical D at n = 200 is 0.096, far below 4/27 = 0.148: power > 0.99, so at least 390
  // of 400 are rejected.
  CHECK(small_alt >= 390);
}

TEST_CASE("KS statistic handles ties and atoms exactly", "[core][stats][ks]") {
  // Law: atom 1/2 at 0, then U(0, 1) with mass 1/2. Sample: 5 zeros and 0.2, 0.4, 0.6, 0.8, 1.0.
  const auto F = [](double x) { return x < 0 ? 0.0 : 0.5 + 0.5 * std::min(x, 1.0); };
  const auto F_left = [](double x) { return x <= 0 ? 0.0 : 0.5 + 0.5 * std::min(x, 1.0); };
  const std::vector<double> s{0, 0, 0, 0, 0, 0.2, 0.4, 0.6, 0.8, 1.0};
  // ECDF: 0.5 on [0, 0.2), 0.6 on [0.2, 0.4), ...: F - F_n is 0 at 0 and 0.1 just below each point.
  CHECK_THAT(ks_statistic(s, F, F_left), WithinAbs(0.1, 1e-15));
  // Without the left limit the atom is treated as continuous mass and the distance is overstated.
  CHECK(ks_statistic(s, F) >= 0.5);
}
