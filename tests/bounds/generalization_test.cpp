// Theorem 1 (compositional paper, Eq. 5, 13, 17, 18) term by term: printed constants reproduced by
// hand, Eq. 17 <= Eq. 18, the derived form's corrections, and the naive-ensemble rates.
#include "moelab/bounds/generalization.hpp"

#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "moelab/bounds/growth.hpp"
#include "moelab/core/log_binomial.hpp"

using Catch::Matchers::WithinRel;
namespace mb = moelab::bounds;

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();

mb::Theorem1Params example() {
  mb::Theorem1Params p;
  p.C = 0.5;
  p.rademacher = 0.03;
  p.k = 2;
  p.N = 3;
  p.d_N = 4;
  p.T = 16;
  p.m = 10000;
  p.delta = 0.05;
  return p;
}
}  // namespace

TEST_CASE("Theorem 1 as printed reproduces Eq. 5 by hand", "[bounds]") {
  const auto p = example();
  const auto t = mb::theorem1_printed(p);
  // Eq. 5: 4 C R + 2 sqrt((2 k N d_N log T + N d_N log 2m + log(2/delta)) / 2m); a handful of roundings.
  const double by_hand = 4 * 0.5 * 0.03 +
                         2 * std::sqrt((2 * 2 * 12 * std::log(16.0) + 12 * std::log(20000.0) + std::log(40.0)) / 20000.0);
  REQUIRE_THAT(t.total, WithinRel(by_hand, 16 * kEps));
  REQUIRE_THAT(t.rademacher_term, WithinRel(0.06, 4 * kEps));
  REQUIRE_THAT(t.log_growth_routing, WithinRel(48 * std::log(16.0), 8 * kEps));
  REQUIRE_THAT(t.log_confidence, WithinRel(std::log(40.0), 4 * kEps));
  REQUIRE(t.denominator == 20000.0);
  REQUIRE_THAT(t.rademacher_term + t.deviation_term, WithinRel(t.total, 4 * kEps));
}

TEST_CASE("Eq. 17 (exact log C(T, k)) is below Eq. 18 (k log T) and equal for k = 1", "[bounds]") {
  auto p = example();
  for (double k : {1.0, 2.0, 4.0, 8.0, 16.0}) {
    p.k = k;
    const auto e17 = mb::theorem1_eq17(p), e18 = mb::theorem1_printed(p);
    INFO("k = " << k);
    // log C(T, k) = k log T - log k! - O(k^2 / T) <= k log T, equality only for k = 1.
    if (k == 1.0)
      REQUIRE_THAT(e17.total, WithinRel(e18.total, 8 * kEps));
    else
      REQUIRE(e17.total < e18.total);
    REQUIRE_THAT(e17.log_growth_routing, WithinRel(2 * 12 * moelab::log_binomial(16, k) + 0.0, 8 * kEps));
  }
}

TEST_CASE("Derived Theorem 1: log(4/delta), denominator m, T w_max R_m(H)", "[bounds]") {
  auto p = example();
  p.max_gate_weight = 0.5;  // uniform weights over k = 2 experts
  const auto d = mb::theorem1_derived(p);
  const auto e17 = mb::theorem1_eq17(p);
  REQUIRE_THAT(d.log_confidence, WithinRel(std::log(80.0), 4 * kEps));
  REQUIRE(d.denominator == 10000.0);
  REQUIRE_THAT(d.rademacher_term, WithinRel(4 * 0.5 * 16 * 0.5 * 0.03, 4 * kEps));
  REQUIRE_THAT(d.log_growth_routing, WithinRel(e17.log_growth_routing, 4 * kEps));
  // The deviation term grows by sqrt(2) (denominator) and by the extra log 2 of the confidence.
  const double ratio = d.deviation_term / e17.deviation_term;
  const double g = e17.log_growth_routing + e17.log_growth_sample;
  REQUIRE_THAT(ratio, WithinRel(std::sqrt(2.0 * (g + std::log(80.0)) / (g + std::log(40.0))), 16 * kEps));
}

TEST_CASE("Naive ensemble: printed T R + sqrt(log(2/delta)/2m), averaged ensemble has no factor T", "[bounds]") {
  const auto pr = mb::naive_ensemble_printed(16, 0.03, 10000, 0.05);
  REQUIRE_THAT(pr.total, WithinRel(16 * 0.03 + std::sqrt(std::log(40.0) / 20000.0), 8 * kEps));
  const auto sum = mb::naive_ensemble_derived(0.5, 16, 0.03, 10000, 0.05, false);
  const auto avg = mb::naive_ensemble_derived(0.5, 16, 0.03, 10000, 0.05, true);
  REQUIRE_THAT(sum.rademacher_term, WithinRel(2 * 0.5 * 16 * 0.03, 4 * kEps));
  REQUIRE_THAT(avg.rademacher_term, WithinRel(2 * 0.5 * 0.03, 4 * kEps));
  REQUIRE(avg.deviation_term == pr.deviation_term);
}

TEST_CASE("Theorem 1 rejects out-of-range parameters", "[bounds]") {
  auto p = example();
  p.delta = 1.5;
  REQUIRE_THROWS_AS(mb::theorem1_printed(p), std::logic_error);
  p = example();
  p.k = 17;
  REQUIRE_THROWS_AS(mb::theorem1_eq17(p), std::logic_error);
  p = example();
  p.C = 0;
  REQUIRE_THROWS_AS(mb::theorem1_derived(p), std::logic_error);
}
