// The k* trade-off of the `compositional` paper (Sec. 4.3, App. A.5): hand-computed values, the closed
// form k* = T of Definition 5 as printed, integer k* against brute force, real k* against integer k*,
// derivatives against finite differences, Remark 3 (peak at T/e, concavity), monotonicity in the
// parameters, the power-law weights of A.5 and the sweeps.
#include "moelab/sparsity/optimal_sparsity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <utility>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sps = moelab::sparsity;
using sps::EstimationForm;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr EstimationForm kForms[] = {EstimationForm::definition5, EstimationForm::definition5_e, EstimationForm::theorem1};

sps::TradeoffParams params(double N, double m, double d_N, std::int64_t T, double a = 1.0, double b = 1.0) {
  sps::TradeoffParams p;
  p.N = N;
  p.m = m;
  p.d_N = d_N;
  p.T = T;
  p.a = a;
  p.b = b;
  return p;
}

// The total error written out independently of the library (for the brute-force comparison).
double reference_total(double k, const sps::TradeoffParams& p, EstimationForm form) {
  const double T = static_cast<double>(p.T);
  const double approx = p.a * p.N * p.N / k;
  switch (form) {
    case EstimationForm::definition5: return approx + p.b * std::sqrt(p.N * k * p.d_N * std::log(T / k) / p.m);
    case EstimationForm::definition5_e:
      return approx + p.b * std::sqrt(p.N * k * p.d_N * std::log(std::numbers::e * T / k) / p.m);
    case EstimationForm::theorem1:
      return approx + p.b * 2.0 *
                          std::sqrt((2.0 * k * p.N * p.d_N * std::log(T) + p.N * p.d_N * std::log(2.0 * p.m) +
                                     std::log(2.0 / p.delta)) / (2.0 * p.m));
  }
  return 0.0;
}

// Random parameters over several decades (fixed seed: the property must hold for every draw).
std::vector<sps::TradeoffParams> random_params(int count, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<sps::TradeoffParams> out;
  for (int i = 0; i < count; ++i) {
    const double N = std::floor(std::pow(10.0, 1.5 * u(gen)));  // 1..31
    const double m = std::pow(10.0, 1.0 + 5.0 * u(gen));
    const double d = std::pow(10.0, 2.0 * u(gen));
    const auto T = static_cast<std::int64_t>(2 + std::floor(300.0 * u(gen)));
    const double a = std::pow(10.0, -2.0 + 3.0 * u(gen));
    const double b = std::pow(10.0, -1.0 + 3.0 * u(gen));
    out.push_back(params(std::max(1.0, N), m, d, T, a, b));
  }
  return out;
}

}  // namespace

TEST_CASE("error terms equal hand-computed values", "[sparsity]") {
  const auto p = params(2, 100, 1, 8);
  // Eq. 6: a N^2 / k = 4 / 4. Tolerances: a few roundings of one expression.
  CHECK_THAT(sps::approximation_error(4.0, p), WithinRel(1.0, 4 * kEps));
  // Definition 5: sqrt(2 * 4 * 1 * log(8/4) / 100) = sqrt(0.08 log 2).
  CHECK_THAT(sps::estimation_error(4.0, p), WithinRel(std::sqrt(0.08 * std::log(2.0)), 8 * kEps));
  // With the e restored: sqrt(0.08 (1 + log 2)).
  CHECK_THAT(sps::estimation_error(4.0, p, EstimationForm::definition5_e),
             WithinRel(std::sqrt(0.08 * (1.0 + std::log(2.0))), 8 * kEps));
  // Theorem 1 at k = 1: 2 sqrt((2 * 2 * log 8 + 2 log 200 + log 40) / 200).
  CHECK_THAT(sps::estimation_error(1.0, p, EstimationForm::theorem1),
             WithinRel(2.0 * std::sqrt((4.0 * std::log(8.0) + 2.0 * std::log(200.0) + std::log(40.0)) / 200.0), 16 * kEps));
  // k = T: log(T/k) = 0, so E_est vanishes exactly and E_total = a N^2 / T.
  CHECK(sps::estimation_error(8.0, p) == 0.0);
  CHECK_THAT(sps::total_error(8.0, p), WithinRel(0.5, 4 * kEps));
  CHECK_THAT(sps::total_error(4.0, p), WithinRel(1.0 + std::sqrt(0.08 * std::log(2.0)), 8 * kEps));
}

TEST_CASE("Definition 5 as printed puts k* at T for every parameter set", "[sparsity]") {
  // Both terms are at least their value at k = T (E_approx strictly decreasing, E_est >= 0 = E_est(T)).
  for (const auto& p : random_params(200, 20261122u)) {
    const auto ki = sps::integer_k_star(p);
    const auto kr = sps::real_k_star(p);
    INFO("N = " << p.N << ", m = " << p.m << ", d_N = " << p.d_N << ", T = " << p.T << ", a = " << p.a << ", b = " << p.b);
    CHECK(ki.k == p.T);
    CHECK(kr.k == static_cast<double>(p.T));
    CHECK(kr.at_boundary);
    CHECK(sps::definition5_k_star(p) == static_cast<double>(p.T));
    for (std::int64_t k = 1; k < p.T; ++k) CHECK(sps::total_error(static_cast<double>(k), p) > ki.error);
  }
}

TEST_CASE("integer k* equals a brute-force minimum of the independently written total", "[sparsity]") {
  for (EstimationForm form : kForms) {
    for (const auto& p : random_params(60, 7u)) {
      std::vector<double> totals;
      for (std::int64_t k = 1; k <= p.T; ++k) totals.push_back(reference_total(static_cast<double>(k), p, form));
      const auto best = std::min_element(totals.begin(), totals.end());  // first minimum: smallest k on ties
      const auto ki = sps::integer_k_star(p, form);
      INFO("form " << static_cast<int>(form) << ", N = " << p.N << ", m = " << p.m << ", d_N = " << p.d_N << ", T = " << p.T);
      // The library and the reference differ only in log1p vs log (a few ulp): the argmin agrees unless two
      // totals are within that; then the values must agree to 1e-13 relative.
      CHECK_THAT(ki.error, WithinRel(*best, 1e-13));
      if (ki.k != (best - totals.begin()) + 1)
        CHECK_THAT(totals[static_cast<std::size_t>(ki.k - 1)], WithinRel(*best, 1e-13));
    }
  }
}

TEST_CASE("integer k* ties go to the smallest k", "[sparsity]") {
  // T = 1: one candidate. T = 2 with tiny b: E_total(2) < E_total(1) always (a N^2 / k halves).
  CHECK(sps::integer_k_star(params(1, 10, 1, 1)).k == 1);
  // theorem1 with T = 1: log T = 0, E_est constant; k* = 1 = T.
  CHECK(sps::integer_k_star(params(3, 10, 1, 1), EstimationForm::theorem1).k == 1);
}

TEST_CASE("real k* lies in [1, T] and rounds to the integer k*", "[sparsity]") {
  for (EstimationForm form : kForms) {
    for (const auto& p : random_params(60, 99u)) {
      const auto kr = sps::real_k_star(p, form);
      const auto ki = sps::integer_k_star(p, form);
      INFO("form " << static_cast<int>(form) << ", N = " << p.N << ", m = " << p.m << ", d_N = " << p.d_N
                   << ", T = " << p.T << ", a = " << p.a << ", b = " << p.b << ", real k* = " << kr.k);
      CHECK(kr.k >= 1.0);
      CHECK(kr.k <= static_cast<double>(p.T));
      // The real minimum is below every integer value (1e-12: TOMS 748 stops at ~1e-13 relative in k, and
      // the error is flat to second order at a stationary point).
      CHECK(kr.error <= ki.error * (1.0 + 1e-12));
      // E_total is unimodal on [1, T] for these forms on these draws, so the integer minimiser is a
      // neighbour of the real one.
      CHECK(static_cast<double>(ki.k) >= std::floor(kr.k) - 0.0);
      CHECK(static_cast<double>(ki.k) <= std::ceil(kr.k));
    }
  }
}

TEST_CASE("theorem1 real k* solves the stationarity quartic", "[sparsity]") {
  // A/k^2 = B alpha / (2 sqrt(alpha k + beta)) with A = a N^2, B = 2b/sqrt(2m) <=> B^2 alpha^2 k^4 = 4 A^2 (alpha k + beta).
  const auto p = params(4, 1e4, 2, 512, 1.0, 1.0);
  const auto kr = sps::real_k_star(p, EstimationForm::theorem1);
  REQUIRE_FALSE(kr.at_boundary);
  const double A = p.a * p.N * p.N, B = 2.0 * p.b / std::sqrt(2.0 * p.m);
  const double alpha = 2.0 * p.N * p.d_N * std::log(512.0), beta = p.N * p.d_N * std::log(2.0 * p.m) + std::log(2.0 / p.delta);
  const double lhs = B * B * alpha * alpha * std::pow(kr.k, 4), rhs = 4.0 * A * A * (alpha * kr.k + beta);
  // k is accurate to ~1e-13 relative; the quartic amplifies that by 4.
  CHECK_THAT(lhs, WithinRel(rhs, 1e-11));
}

TEST_CASE("derivatives agree with central differences", "[sparsity]") {
  for (EstimationForm form : kForms) {
    for (const auto& p : random_params(20, 3u)) {
      const double T = static_cast<double>(p.T);
      for (double frac : {0.1, 0.3, 0.6, 0.9}) {
        const double k = std::max(1.5, frac * T);
        if (k + 1e-3 >= T) continue;
        const double h = 1e-5 * k;
        const double fd = (sps::total_error(k + h, p, form) - sps::total_error(k - h, p, form)) / (2.0 * h);
        // Central difference: O(h^2) truncation plus eps E / h rounding; 1e-6 of the largest term's scale.
        const double scale = p.a * p.N * p.N / (k * k) + sps::estimation_error(k, p, form) / k + 1e-300;
        CHECK_THAT(sps::total_error_derivative(k, p, form), WithinAbs(fd, 1e-6 * scale));
      }
    }
  }
}

TEST_CASE("Remark 3: the Definition 5 estimation error peaks at T/e and is concave", "[sparsity]") {
  for (std::int64_t T : {3, 8, 64, 1000, 100000}) {
    for (const auto& base : {params(1, 100, 1, T), params(16, 1e6, 64, T, 1.0, 10.0)}) {
      // Brent maximisation: accuracy sqrt(eps) ~ 1.5e-8 relative; 1e-7 allows for the flat top.
      CHECK_THAT(sps::estimation_peak_k_numeric(base), WithinRel(sps::estimation_peak_k(static_cast<double>(T)), 1e-7));
      // The derivative changes sign at T/e exactly: log(T/k) - 1 = 0.
      const double peak = static_cast<double>(T) / std::numbers::e;
      if (peak * 0.99 >= 1.0) CHECK(sps::estimation_error_derivative(peak * 0.99, base) > 0.0);
      CHECK(sps::estimation_error_derivative(std::min(peak * 1.01, static_cast<double>(T)), base) < 0.0);
      // Concave: second differences < 0 on a grid of [1, T].
      const double Td = static_cast<double>(T);
      for (int i = 1; i < 50; ++i) {
        const double k = 1.0 + (Td - 1.0) * i / 50.0;
        const double h = 1e-2 * std::min(k - 1.0, Td - k);
        if (h <= 1e-9 * k) continue;
        const double second = sps::estimation_error(k + h, base) - 2.0 * sps::estimation_error(k, base) +
                              sps::estimation_error(k - h, base);
        CHECK(second < 0.0);
      }
    }
  }
  // "decreases as k -> T ... but remains non-negligible": as printed it reaches exactly 0 at k = T.
  CHECK(sps::estimation_error(64.0, params(16, 10, 64, 64)) == 0.0);
}

TEST_CASE("error terms move with N, m, d_N, T as the paper says", "[sparsity]") {
  // Sec. 4.3.3: both terms grow with N; E_est shrinks with m, grows with d_N and, at fixed k < T, with T.
  for (EstimationForm form : kForms) {
    const auto p = params(4, 1e3, 4, 64);
    for (double k : {1.0, 5.0, 23.0, 50.0}) {
      CHECK(sps::approximation_error(k, sps::with_axis(p, sps::Axis::N, 8)) > sps::approximation_error(k, p));
      CHECK(sps::estimation_error(k, sps::with_axis(p, sps::Axis::N, 8), form) > sps::estimation_error(k, p, form));
      CHECK(sps::estimation_error(k, sps::with_axis(p, sps::Axis::m, 1e4), form) < sps::estimation_error(k, p, form));
      CHECK(sps::estimation_error(k, sps::with_axis(p, sps::Axis::d_N, 16), form) > sps::estimation_error(k, p, form));
      CHECK(sps::estimation_error(k, sps::with_axis(p, sps::Axis::T, 128), form) > sps::estimation_error(k, p, form));
      // E_approx does not depend on m, d_N, T (Remark 2).
      CHECK(sps::approximation_error(k, sps::with_axis(p, sps::Axis::m, 1e6)) == sps::approximation_error(k, p));
    }
    // Remark 2: E_approx strictly decreasing in k.
    for (int k = 1; k < 64; ++k) CHECK(sps::approximation_error(k + 1.0, p) < sps::approximation_error(k, p));
  }
  // definition5_e is increasing in k on [1, T] (derivative log(T/k) / ... >= 0): no interior peak.
  const auto p = params(2, 100, 1, 100);
  for (int k = 1; k < 100; ++k)
    CHECK(sps::estimation_error(k + 1.0, p, EstimationForm::definition5_e) > sps::estimation_error(k, p, EstimationForm::definition5_e));
}

TEST_CASE("A.5 power-law weights: hand values, the uniform case and k* = T", "[sparsity]") {
  // D = {1, 2}, alpha = 2: 2^-2 + 2 * 3^-2 + 4^-2 = 77/144.
  const std::vector<double> D{1.0, 2.0};
  CHECK_THAT(sps::powerlaw_weight_sum(D, 2.0), WithinRel(77.0 / 144.0, 4 * kEps));
  CHECK_THAT(sps::powerlaw_approximation_error(4.0, D, 2.0, 3.0), WithinRel(3.0 * 77.0 / 144.0 / 4.0, 8 * kEps));
  // Uniform D_i = 1/2: every weight is 1, the sum is N^2 and A.5 reduces to Definition 4.
  for (std::int64_t N : {1, 3, 10, 40}) {
    const std::vector<double> half(static_cast<std::size_t>(N), 0.5);
    for (double alpha : {1.5, 2.0, 7.0}) {
      // N^2 additions of exact 1s: exact.
      CHECK(sps::powerlaw_weight_sum(half, alpha) == static_cast<double>(N * N));
      const auto p = params(static_cast<double>(N), 100, 1, 16);
      CHECK_THAT(sps::powerlaw_approximation_error(5.0, half, alpha), WithinRel(sps::approximation_error(5.0, p), 4 * kEps));
    }
  }
  // D_i = i and the ordering of the paper: the first pair has the largest weight.
  const auto Di = sps::index_difficulties(5);
  CHECK(Di == std::vector<double>{1, 2, 3, 4, 5});
  // With the A.5 approximation error the total is still minimised at k = T (W / k decreasing, E_est(T) = 0).
  for (double alpha : {1.1, 2.0, 4.0}) {
    const auto q = sps::with_powerlaw_weights(params(1, 1e3, 4, 32), Di, alpha);
    CHECK(q.N == 5.0);
    CHECK_THAT(sps::approximation_error(3.0, q), WithinRel(sps::powerlaw_approximation_error(3.0, Di, alpha), 8 * kEps));
    CHECK(sps::integer_k_star(q).k == 32);
    CHECK(sps::real_k_star(q).k == 32.0);
  }
}

TEST_CASE("sweeps return k* at each value of the swept parameter", "[sparsity]") {
  const auto base = params(4, 1e3, 4, 64);
  const std::vector<double> Ns{1, 2, 4, 8}, ms{1e2, 1e4, 1e6}, ds{1, 8, 64}, Ts{8, 16, 64};
  const std::vector<std::pair<sps::Axis, const std::vector<double>*>> axes{
      {sps::Axis::N, &Ns}, {sps::Axis::m, &ms}, {sps::Axis::d_N, &ds}, {sps::Axis::T, &Ts}};
  for (EstimationForm form : kForms) {
    for (const auto& [axis, values] : axes) {
      const auto v = sps::k_star_sweep(base, axis, *values, form);
      REQUIRE(v.size() == values->size());
      for (std::size_t i = 0; i < values->size(); ++i) {
        const auto p = sps::with_axis(base, axis, (*values)[i]);
        CHECK(v[i].value == (*values)[i]);
        // Independent of integer_k_star: the integer minimiser by a scan of total_error written here,
        // ties to the smallest k (Definition 5's k* is an argmin over 1..T).
        std::int64_t k_scan = 1;
        double e_scan = sps::total_error(1.0, p, form);
        for (std::int64_t k = 2; k <= p.T; ++k)
          if (const double e = sps::total_error(static_cast<double>(k), p, form); e < e_scan) k_scan = k, e_scan = e;
        CHECK(v[i].k_integer == k_scan);
        CHECK(v[i].error_integer == e_scan);
        // The real minimiser is no worse than every integer and than a 4001-point geometric scan of
        // [1, T] (its error within 1e-12 relative of the scan's best, or below it).
        CHECK(v[i].k_real >= 1.0);
        CHECK(v[i].k_real <= static_cast<double>(p.T));
        CHECK(v[i].error_real <= e_scan * (1 + 1e-12));
        double e_fine = e_scan;
        for (int j = 0; j <= 4000; ++j)
          e_fine = std::min(e_fine, sps::total_error(std::pow(static_cast<double>(p.T), j / 4000.0), p, form));
        CHECK(v[i].error_real <= e_fine * (1 + 1e-12));
        CHECK_THAT(v[i].error_real, WithinRel(sps::total_error(v[i].k_real, p, form), 1e-15));
      }
    }
    // The named sweeps are the general one on their axis.
    const auto vN = sps::k_star_vs_N(base, Ns, form), gN = sps::k_star_sweep(base, sps::Axis::N, Ns, form);
    for (std::size_t i = 0; i < Ns.size(); ++i) CHECK(vN[i].k_integer == gN[i].k_integer);
    const auto vT = sps::k_star_vs_T(base, Ts, form);
    for (std::size_t i = 0; i < Ts.size(); ++i)
      if (form == EstimationForm::definition5) CHECK(vT[i].k_integer == static_cast<std::int64_t>(Ts[i]));
  }
}

TEST_CASE("bad parameters are rejected", "[sparsity]") {
  auto p = params(2, 100, 1, 8);
  CHECK_THROWS_AS(sps::estimation_error(0.5, p), std::logic_error);
  CHECK_THROWS_AS(sps::estimation_error(9.0, p), std::logic_error);
  CHECK_THROWS_AS(sps::approximation_error(0.0, p), std::logic_error);
  p.d_N = 0.0;
  CHECK_THROWS_AS(sps::integer_k_star(p), std::logic_error);
  CHECK_THROWS_AS(sps::with_axis(params(2, 100, 1, 8), sps::Axis::T, 7.5), std::logic_error);
  CHECK_THROWS_AS(sps::powerlaw_weight_sum(std::vector<double>{1.0}, 1.0), std::logic_error);  // alpha > 1 (A.5)
  CHECK_THROWS_AS(sps::estimation_peak_k_numeric(params(1, 10, 1, 2)), std::logic_error);
}
