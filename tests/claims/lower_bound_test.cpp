// claims::lower_bound_test (H0: E X >= bound), the one-sided t test the moe, routing and trained
// claims share: its p-value against Student's t distribution computed independently (Boost.Math),
// the mirror identity with upper_bound_test, and a Monte-Carlo size check with a control at the
// nearest wrong value (the bound a little below the true mean must not be rejected as often).
#include <catch2/catch.hpp>

#include <cmath>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "moelab/claims/evidence.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/stats.hpp"

using namespace moelab;
using namespace moelab::claims;

namespace {
Welford sample(std::uint64_t seed, std::uint64_t trial, int n, double mean, double sd) {
  const RandomStream rs(seed, StreamTag::property_test, trial);
  Welford w;
  for (int i = 0; i < n; ++i) w.add(mean + sd * rs.normal(static_cast<std::uint64_t>(i)));
  return w;
}
}  // namespace

TEST_CASE("lower_bound_test: p = P(T_{n-1} <= t) with X's mean and the bound reported", "[claims]") {
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 3 + 5 * trial;
    const double bound = 0.3 * (trial % 5) - 0.5;
    const Welford w = sample(11, static_cast<std::uint64_t>(trial), n, 0.1 * trial - 1.0, 0.5 + 0.1 * trial);
    const TestResult r = lower_bound_test("f", w, bound);
    const double t = (w.mean() - bound) / w.standard_error();
    const double expected = boost::math::cdf(boost::math::students_t(n - 1.0), t);
    CAPTURE(trial, n, t, r.p_value, expected);
    // Both sides evaluate the same incomplete-beta tail; 1e-10 absolute leaves room for the two
    // libraries' different evaluation orders (they agree to ~1e-15 in practice).
    CHECK(std::abs(r.p_value - expected) < 1e-10);
    CHECK(r.estimate == w.mean());
    CHECK(r.reference == bound);
    CHECK(r.std_error == w.standard_error());
    CHECK(r.one_sided);
    CHECK(r.dof == n - 1.0);
    // Mirror: H0 E X >= b on X is H0 E(-X) <= -b.
    CHECK(r.p_value == upper_bound_test("f", w.scaled(-1.0), -bound).p_value);
  }
}

TEST_CASE("lower_bound_test: degenerate samples (zero spread) decide by the mean alone", "[claims]") {
  Welford w;
  for (int i = 0; i < 4; ++i) w.add(0.25);
  CHECK(lower_bound_test("f", w, 0.5).p_value == 0.0);   // mean below the bound: rejected
  CHECK(lower_bound_test("f", w, 0.25).p_value == 1.0);  // at the bound: not rejected
  CHECK(lower_bound_test("f", w, 0.0).p_value == 1.0);
}

TEST_CASE("lower_bound_test: size alpha at the boundary, power below it (Monte Carlo, control)", "[claims]") {
  // 4000 replicates of n = 10 draws of N(mu, 1). At the boundary (bound = mu) the test rejects at
  // level 0.05 with probability 0.05: the count is Binomial(4000, 0.05), sd 13.8, so +-4.5 sd = 62.
  // Control at the nearest wrong value: bound = mu + 0.5 (H0 false by half a standard deviation);
  // the exact power there is P(T_9(noncentral 0.5 sqrt 10) > t_0.95) ~ 0.43, far outside the window.
  constexpr int reps = 4000;
  int at_boundary = 0, above = 0;
  for (int r = 0; r < reps; ++r) {
    const Welford w = sample(29, static_cast<std::uint64_t>(r), 10, 2.0, 1.0);
    at_boundary += lower_bound_test("", w, 2.0).p_value < 0.05;
    above += lower_bound_test("", w, 2.5).p_value < 0.05;
  }
  CAPTURE(at_boundary, above);
  CHECK(std::abs(at_boundary - 0.05 * reps) < 62);
  CHECK(above > 0.05 * reps + 62);  // the control: a false H0 is rejected far more often than alpha
  const double power = boost::math::cdf(boost::math::complement(
      boost::math::non_central_t(9.0, 0.5 * std::sqrt(10.0)), boost::math::quantile(boost::math::students_t(9.0), 0.95)));
  // Binomial(4000, ~0.43): sd 31, 4.5 sd = 141.
  CHECK(std::abs(above - power * reps) < 141);
}
