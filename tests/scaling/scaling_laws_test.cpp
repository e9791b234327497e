// Approximation rates and the compute-optimal allocation under F = 6 N D: closed form against Brent
// minimisation, the budget identity, the exponents, and the published Chinchilla fit as a sanity check.
#include "moelab/scaling/scaling_laws.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace scaling_laws_test {

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sc = moelab::scaling;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Hoffmann et al. 2022, Sec. 3.3 (Approach 3) fit: E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28.
sc::LossModel chinchilla() { return {1.69, 406.4, 0.34, 410.7, 0.28}; }

}  // namespace

TEST_CASE("approximation rates equal hand values and decrease", "[scaling]") {
  CHECK_THAT(sc::approximation_rate_active(16.0, 2.0, 4.0), WithinRel(0.25, 4 * kEps));      // 16^(-1/2)
  CHECK_THAT(sc::approximation_rate_experts(1000.0, 1.0, 3.0, 5.0), WithinRel(0.5, 8 * kEps));  // 5 * 1000^(-1/3)
  double prev = 2.0;
  for (double N = 1.0; N < 1e9; N *= 10.0) {
    const double r = sc::approximation_rate_active(N, 1.5, 7.0);
    CHECK(r < prev);
    prev = r;
  }
  // Smoother targets (larger beta) or lower dimension converge faster.
  CHECK(sc::approximation_rate_active(1e6, 2.0, 4.0) < sc::approximation_rate_active(1e6, 1.0, 4.0));
  CHECK(sc::approximation_rate_experts(1e6, 1.0, 2.0) < sc::approximation_rate_experts(1e6, 1.0, 4.0));
  CHECK_THROWS_AS(sc::approximation_rate_active(0.5, 1.0, 1.0), std::logic_error);
}

TEST_CASE("the closed-form compute optimum matches Brent minimisation", "[scaling]") {
  const std::vector<sc::LossModel> models{chinchilla(), {0.0, 1.0, 0.5, 1.0, 0.5}, {2.0, 50.0, 0.2, 3000.0, 0.7}};
  std::vector<double> F;
  for (double f = 1e15; f <= 1e25; f *= 10.0) F.push_back(f);
  for (const auto& m : models) {
    const auto closed = sc::compute_optimal_curve(m, F);
    const auto numeric = sc::compute_optimal_curve_numeric(m, F);
    REQUIRE(closed.size() == F.size());
    for (std::size_t i = 0; i < F.size(); ++i) {
      INFO("F = " << F[i] << ", alpha_N = " << m.alpha_N);
      // Brent stops at ~2^-26 relative in x = log N (|x| <= 58 here): ~1e-6 absolute in x, i.e. relative in N.
      CHECK_THAT(numeric[i].N_opt, WithinRel(closed[i].N_opt, 5e-6));
      CHECK_THAT(numeric[i].D_opt, WithinRel(closed[i].D_opt, 5e-6));
      // The loss is flat to second order at the optimum: ~1e-12 relative.
      CHECK_THAT(numeric[i].loss, WithinRel(closed[i].loss, 1e-11));
      CHECK(closed[i].loss <= numeric[i].loss * (1.0 + 1e-14));
      // Budget identity F = 6 N D (exp/log round trip: a few ulp).
      CHECK_THAT(6.0 * closed[i].N_opt * closed[i].D_opt, WithinRel(F[i], 64 * kEps));
    }
  }
}

TEST_CASE("the optimum is stationary along the budget and scales with the stated exponents", "[scaling]") {
  const auto m = chinchilla();
  const double F = 1e21;
  const auto p = sc::compute_optimal(m, F);
  // d/dx L(e^x, F/(6 e^x)) = 0 at x = log N_opt; central difference with h = 1e-4, O(h^2) truncation.
  const double x = std::log(p.N_opt), h = 1e-4;
  const auto along = [&](double y) { return sc::loss(m, std::exp(y), F / (6.0 * std::exp(y))); };
  CHECK_THAT((along(x + h) - along(x - h)) / (2 * h), WithinAbs(0.0, 1e-8));
  CHECK(along(x + 0.1) > p.loss);
  CHECK(along(x - 0.1) > p.loss);
  const auto e = sc::allocation_exponents(m);
  CHECK_THAT(e.a + e.b, WithinRel(1.0, 4 * kEps));
  CHECK_THAT(sc::compute_optimal(m, 10 * F).N_opt / p.N_opt, WithinRel(std::pow(10.0, e.a), 1e-13));
  CHECK_THAT(sc::compute_optimal(m, 10 * F).D_opt / p.D_opt, WithinRel(std::pow(10.0, e.b), 1e-13));
  // Published Approach-3 exponents a = 0.46, b = 0.54 (Hoffmann et al. 2022, Table 2), from the rounded fit.
  CHECK_THAT(e.a, WithinAbs(0.46, 0.01));
  CHECK_THAT(e.b, WithinAbs(0.54, 0.01));
  // Symmetric model: alpha_N = alpha_D, A = B gives N_opt = D_opt = sqrt(F / 6).
  const auto s = sc::compute_optimal({0.0, 1.0, 0.3, 1.0, 0.3}, 6e20);
  CHECK_THAT(s.N_opt, WithinRel(1e10, 16 * kEps));
  CHECK_THAT(s.D_opt, WithinRel(1e10, 16 * kEps));
}

TEST_CASE("compute-optimal preconditions", "[scaling]") {
  CHECK_THROWS_AS(sc::compute_optimal({0.0, -1.0, 0.3, 1.0, 0.3}, 1e20), std::logic_error);
  CHECK_THROWS_AS(sc::compute_optimal(chinchilla(), 0.0), std::logic_error);
  CHECK_THROWS_AS(sc::compute_optimal_numeric(chinchilla(), 5.0), std::logic_error);
}

TEST_CASE("partition approximation error: the d = 1 constant of the h rate, and d-scaling", "[scaling]") {
  // d = 1, f = sin(2 pi x): the best constant on a cell of width h leaves the variance of f over it,
  // ~ f'^2 h^2 / 12; averaged over [0, 1] (mean of cos^2 = 1/2): error -> 2 pi h / sqrt(24). The s-point
  // midpoint sub-grid sees a linear function's variance as h^2 (1 - 1/s^2) / 12 (a discrete uniform law).
  // Remaining relative terms are O((2 pi h)^2) ~ 1.5e-4 at n = 512: tolerance 1e-3.
  const int n = 512, sub = 8;
  const double expected = 2.0 * std::acos(-1.0) / n / std::sqrt(24.0) * std::sqrt(1.0 - 1.0 / (sub * sub));
  CHECK(std::abs(moelab::scaling::partition_approximation_error(n, 1, sub) / expected - 1.0) < 1e-3);
  // Halving the cell width halves the error in any dimension (cells h = 1/32 -> 1/64, d = 2).
  const double r = moelab::scaling::partition_approximation_error(32, 2) / moelab::scaling::partition_approximation_error(64, 2);
  CHECK(std::abs(r - 2.0) < 0.02);
}

}  // namespace scaling_laws_test
