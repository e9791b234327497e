// Lemma 3.7 of the `scaling` paper: the covering-number bound's terms by hand, log C(M, k) by lgamma
// against exact integers, the routing term against the exact pattern count (always an upper bound;
// tight for k << M, loose near k = M) and the Stirling form of the gap.
#include "moelab/scaling/covering_number.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <catch2/catch.hpp>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sc = moelab::scaling;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

}  // namespace

TEST_CASE("covering-number bound terms equal hand-computed values", "[scaling]") {
  sc::CoveringParams p;
  p.P_attn = 100;
  p.P_exp = 10;
  p.L = 2;
  p.k = 2;
  p.M = 8;
  p.ell = 4;
  p.kappa = 2;
  p.R = 3;
  p.M0 = 0.5;
  const double delta = 3.0 / std::exp(1.0);  // log(kappa R M0 / delta) = log(3 e / 3) = 1
  const auto b = sc::covering_number_bound(p, delta);
  CHECK(b.active_parameters == 140.0);  // 100 + 2 * 2 * 10
  CHECK_THAT(b.log_scale, WithinRel(1.0, 4 * kEps));
  CHECK_THAT(b.parameter_entropy, WithinRel(140.0, 4 * kEps));
  CHECK_THAT(b.routing_overhead, WithinRel(16.0 * (1.0 + std::log(4.0)), 4 * kEps));  // 2 * 4 * 2 log(8e/2)
  CHECK_THAT(b.total, WithinRel(140.0 + 16.0 * (1.0 + std::log(4.0)), 4 * kEps));
  // Exact routing count: 2 * 4 * log C(8, 2) = 8 log 28.
  CHECK_THAT(sc::routing_overhead_exact(p), WithinRel(8.0 * std::log(28.0), 8 * kEps));
}

TEST_CASE("the routing term bounds the exact pattern count, tight for k << M, loose near k = M", "[scaling]") {
  for (double M : {2.0, 8.0, 64.0, 1024.0, 1e6}) {
    for (double k = 1.0; k <= M; k = std::ceil(k * 1.7)) {
      const auto c = sc::routing_overhead_gap(M, k);
      INFO("M = " << M << ", k = " << k);
      CHECK(c.gap >= 0.0);  // C(M, k) <= (e M / k)^k
      CHECK(c.bound >= c.exact);
    }
    // k = M: one pattern (log 1 = 0) against the bound M: infinitely loose.
    const auto full = sc::routing_overhead_gap(M, M);
    CHECK(full.exact == 0.0);
    CHECK_THAT(full.bound, WithinRel(M, 4 * kEps));
    CHECK(std::isinf(full.ratio));
  }
  // Half the experts active: ratio -> (1 + log 2) / (2 log 2) = 1.2213 as M grows (loose by a constant factor).
  CHECK_THAT(sc::routing_overhead_gap(1e6, 5e5).ratio, WithinRel((1.0 + std::log(2.0)) / (2.0 * std::log(2.0)), 1e-4));
  // k << M with k large: ratio -> 1 (k = 1000, M = 1e9: gap ~ (1/2) log(2 pi k) ~ 4.4 against ~ 1.4e4).
  const auto tight = sc::routing_overhead_gap(1e9, 1000.0);
  CHECK(tight.ratio < 1.001);
  // k = 1: ratio (1 + log M) / log M -> 1 only logarithmically.
  CHECK(sc::routing_overhead_gap(1e6, 1.0).ratio > 1.07);
  // The ratio falls with M at fixed k (the bound's slack k + O(log k) is fixed, log C grows).
  double prev = std::numeric_limits<double>::infinity();
  for (double M : {16.0, 64.0, 256.0, 4096.0, 1e6}) {
    const double r = sc::routing_overhead_gap(M, 8.0).ratio;
    CHECK(r < prev);
    prev = r;
  }
}

TEST_CASE("the gap matches its Stirling form to O(1/k)", "[scaling]") {
  for (double M : {100.0, 1e4, 1e7}) {
    for (double k : {5.0, 20.0, 0.25 * M, 0.5 * M, 0.9 * M}) {
      const auto c = sc::routing_overhead_gap(M, k);
      // Stirling remainders 1/(12k) + 1/(12(M - k)) - 1/(12M), plus rounding (kept at the old lgamma allowance 16 eps lgamma(M + 1)).
      const double tol = 1.0 / (12.0 * k) + 1.0 / (12.0 * (M - k)) + 16 * kEps * std::lgamma(M + 1.0);
      INFO("M = " << M << ", k = " << k);
      CHECK_THAT(c.gap, WithinAbs(sc::routing_overhead_gap_asymptotic(M, k), tol));
    }
  }
  // k << M: gap ~ k^2 / (2M) + (1/2) log(2 pi k).
  CHECK_THAT(sc::routing_overhead_gap_asymptotic(1e9, 100.0),
             WithinAbs(1e4 / 2e9 + 0.5 * std::log(2.0 * M_PI * 100.0), 1e-6));
}

TEST_CASE("covering-number bound preconditions", "[scaling]") {
  sc::CoveringParams p;
  p.M = 8;
  p.k = 9;
  CHECK_THROWS_AS(sc::covering_number_bound(p, 0.1), std::logic_error);
  p.k = 2;
  CHECK_THROWS_AS(sc::covering_number_bound(p, 1.0), std::logic_error);  // delta must be < kappa R M0 = 1
}
