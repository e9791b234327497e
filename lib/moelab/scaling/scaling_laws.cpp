#include "moelab/scaling/scaling_laws.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <boost/math/tools/minima.hpp>

#include "moelab/core/error.hpp"

namespace moelab::scaling {

namespace {

void expect_rate_args(double x, double beta, double d, double C) {
  MOELAB_EXPECT(std::isfinite(x) && x >= 1.0, "approximation rate: the count must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(beta) && beta > 0.0, "approximation rate: beta must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(d) && d >= 1.0, "approximation rate: d must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(C) && C > 0.0, "approximation rate: C must be finite and > 0");
}

void expect_flops(double F, double c) {
  MOELAB_EXPECT(std::isfinite(c) && c > 0.0, "compute_optimal: flops_per_param_token must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(F) && F > 0.0, "compute_optimal: F must be finite and > 0");
}

}  // namespace

double approximation_rate_active(double N_active, double beta, double d, double C) {
  expect_rate_args(N_active, beta, d, C);
  return C * std::pow(N_active, -beta / d);
}

double approximation_rate_experts(double E, double beta, double d, double C) {
  expect_rate_args(E, beta, d, C);
  return C * std::pow(E, -beta / d);
}

void validate(const LossModel& m) {
  MOELAB_EXPECT(std::isfinite(m.E0) && m.E0 >= 0.0, "LossModel: E0 must be finite and >= 0");
  MOELAB_EXPECT(std::isfinite(m.A) && m.A > 0.0, "LossModel: A must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(m.B) && m.B > 0.0, "LossModel: B must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(m.alpha_N) && m.alpha_N > 0.0, "LossModel: alpha_N must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(m.alpha_D) && m.alpha_D > 0.0, "LossModel: alpha_D must be finite and > 0");
}

double loss(const LossModel& m, double N, double D) {
  validate(m);
  MOELAB_EXPECT(std::isfinite(N) && N > 0.0 && std::isfinite(D) && D > 0.0, "loss: N and D must be finite and > 0");
  return m.E0 + m.A * std::pow(N, -m.alpha_N) + m.B * std::pow(D, -m.alpha_D);
}

AllocationExponents allocation_exponents(const LossModel& m) {
  validate(m);
  const double s = m.alpha_N + m.alpha_D;
  return {m.alpha_D / s, m.alpha_N / s};
}

ComputeOptimalPoint compute_optimal(const LossModel& m, double F, double c) {
  validate(m);
  expect_flops(F, c);
  // Stationarity of A N^-aN + B (c N / F)^aD in N: aN A N^-aN = aD B (c N / F)^aD (Hoffmann et al. 2022, Eq. 4).
  const double s = m.alpha_N + m.alpha_D;
  const double log_G = std::log(m.alpha_N * m.A / (m.alpha_D * m.B)) / s;
  const double log_budget = std::log(F / c);
  ComputeOptimalPoint p;
  p.F = F;
  p.N_opt = std::exp(log_G + (m.alpha_D / s) * log_budget);
  p.D_opt = std::exp(-log_G + (m.alpha_N / s) * log_budget);
  p.loss = loss(m, p.N_opt, p.D_opt);
  return p;
}

ComputeOptimalPoint compute_optimal_numeric(const LossModel& m, double F, double c) {
  validate(m);
  expect_flops(F, c);
  MOELAB_EXPECT(F > c, "compute_optimal_numeric: F must exceed flops_per_param_token (N >= 1 and D >= 1)");
  const double log_budget = std::log(F / c);
  const auto objective = [&](double x) {
    // L(e^x, F / (c e^x)) written in logs so that neither power overflows.
    return m.A * std::exp(-m.alpha_N * x) + m.B * std::exp(-m.alpha_D * (log_budget - x));
  };
  const auto r = boost::math::tools::brent_find_minima(objective, 0.0, log_budget, std::numeric_limits<double>::digits / 2);
  ComputeOptimalPoint p;
  p.F = F;
  p.N_opt = std::exp(r.first);
  p.D_opt = std::exp(log_budget - r.first);
  p.loss = m.E0 + r.second;
  return p;
}

std::vector<ComputeOptimalPoint> compute_optimal_curve(const LossModel& m, std::span<const double> F, double c) {
  std::vector<ComputeOptimalPoint> out;
  out.reserve(F.size());
  for (double f : F) out.push_back(compute_optimal(m, f, c));
  return out;
}

std::vector<ComputeOptimalPoint> compute_optimal_curve_numeric(const LossModel& m, std::span<const double> F, double c) {
  std::vector<ComputeOptimalPoint> out;
  out.reserve(F.size());
  for (double f : F) out.push_back(compute_optimal_numeric(m, f, c));
  return out;
}

}  // namespace moelab::scaling

namespace moelab::scaling {

double partition_approximation_error(int n, int d, int sub) {
  MOELAB_EXPECT(n >= 1 && d >= 1 && d <= 6 && sub >= 1, "partition_approximation_error: n >= 1, 1 <= d <= 6, sub >= 1");
  const double pi2 = 2.0 * std::acos(-1.0);
  std::int64_t cells = 1, per_cell = 1;
  for (int i = 0; i < d; ++i) cells *= n, per_cell *= sub;
  const double h = 1.0 / n, g = h / sub;
  double sq = 0.0;
  std::vector<int> c(static_cast<std::size_t>(d)), s(static_cast<std::size_t>(d));
  std::vector<double> values(static_cast<std::size_t>(per_cell));
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    for (std::int64_t q = cell, i = 0; i < d; ++i, q /= n) c[static_cast<std::size_t>(i)] = static_cast<int>(q % n);
    double mean = 0.0;
    for (std::int64_t j = 0; j < per_cell; ++j) {
      double f = 1.0;
      for (std::int64_t q = j, i = 0; i < d; ++i, q /= sub) {
        const double x = c[static_cast<std::size_t>(i)] * h + (static_cast<double>(q % sub) + 0.5) * g;
        f *= std::sin(pi2 * x + static_cast<double>(i));
      }
      values[static_cast<std::size_t>(j)] = f;
      mean += f;
    }
    mean /= static_cast<double>(per_cell);
    for (double f : values) sq += (f - mean) * (f - mean);
  }
  return std::sqrt(sq / static_cast<double>(cells * per_cell));
}

}  // namespace moelab::scaling
