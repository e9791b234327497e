#include "moelab/scaling/covering_number.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"

namespace moelab::scaling {

void validate(const CoveringParams& p) {
  MOELAB_EXPECT(std::isfinite(p.P_attn) && p.P_attn >= 0.0, "CoveringParams: P_attn must be finite and >= 0");
  MOELAB_EXPECT(std::isfinite(p.P_exp) && p.P_exp > 0.0, "CoveringParams: P_exp must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(p.L) && p.L >= 1.0, "CoveringParams: L must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(p.M) && p.M >= 1.0, "CoveringParams: M must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(p.k) && p.k >= 1.0 && p.k <= p.M, "CoveringParams: k must be in [1, M]");
  MOELAB_EXPECT(std::isfinite(p.ell) && p.ell >= 1.0, "CoveringParams: ell must be finite and >= 1");
  MOELAB_EXPECT(std::isfinite(p.kappa) && p.kappa > 0.0, "CoveringParams: kappa must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(p.R) && p.R > 0.0, "CoveringParams: R must be finite and > 0");
  MOELAB_EXPECT(std::isfinite(p.M0) && p.M0 > 0.0, "CoveringParams: M0 must be finite and > 0");
}

CoveringBound covering_number_bound(const CoveringParams& p, double delta) {
  validate(p);
  const double scale = p.kappa * p.R * p.M0;
  MOELAB_EXPECT(std::isfinite(delta) && delta > 0.0 && delta < scale,
                "covering_number_bound: delta must be in (0, kappa R M0)");
  CoveringBound b;
  b.active_parameters = p.P_attn + p.L * p.k * p.P_exp;
  b.log_scale = std::log(scale / delta);
  b.parameter_entropy = b.active_parameters * b.log_scale;
  b.routing_overhead = routing_overhead_bound(p);
  b.total = b.parameter_entropy + b.routing_overhead;
  return b;
}

double log_binomial_bound(double M, double k) {
  MOELAB_EXPECT(std::isfinite(M) && std::isfinite(k) && k > 0.0 && k <= M, "log_binomial_bound: need 0 < k <= M");
  return k * (1.0 + std::log(M / k));
}

double routing_overhead_exact(const CoveringParams& p) {
  validate(p);
  return p.L * p.ell * log_binomial(p.M, p.k);
}

double routing_overhead_bound(const CoveringParams& p) {
  validate(p);
  return p.L * p.ell * log_binomial_bound(p.M, p.k);
}

RoutingOverheadComparison routing_overhead_gap(double M, double k) {
  RoutingOverheadComparison c;
  c.bound = log_binomial_bound(M, k);
  c.exact = log_binomial(M, k);
  c.gap = c.bound - c.exact;
  c.ratio = c.exact > 0.0 ? c.bound / c.exact : std::numeric_limits<double>::infinity();
  return c;
}

double routing_overhead_gap_asymptotic(double M, double k) {
  MOELAB_EXPECT(std::isfinite(M) && std::isfinite(k) && k >= 1.0 && k < M, "routing_overhead_gap_asymptotic: need 1 <= k < M");
  const double p = k / M;
  // (M - k) log(M / (M - k)) = -(M - k) log1p(-p), computed without cancellation for small p.
  return k + (M - k) * std::log1p(-p) + 0.5 * std::log(2.0 * std::numbers::pi * k * (1.0 - p));
}

}  // namespace moelab::scaling
