#include "moelab/bounds/generalization.hpp"

#include <cmath>

#include "moelab/bounds/growth.hpp"
#include "moelab/core/error.hpp"

namespace moelab::bounds {

namespace {

void check_params(const Theorem1Params& p) {
  MOELAB_EXPECT(std::isfinite(p.C) && p.C > 0.0, "theorem1: C must be > 0");
  MOELAB_EXPECT(std::isfinite(p.rademacher) && p.rademacher >= 0.0, "theorem1: R_m(H) must be >= 0");
  MOELAB_EXPECT(p.delta > 0.0 && p.delta < 1.0, "theorem1: delta must be in (0, 1)");
  MOELAB_EXPECT(p.max_gate_weight > 0.0 && p.max_gate_weight <= 1.0, "theorem1: max_gate_weight must be in (0, 1]");
  // T, k, N, d_N, m are checked by log_mask_growth.
}

Theorem1Terms assemble(double rademacher_term, double routing, double sample, double confidence, double denominator) {
  Theorem1Terms t{};
  t.rademacher_term = rademacher_term;
  t.log_growth_routing = routing;
  t.log_growth_sample = sample;
  t.log_confidence = confidence;
  t.denominator = denominator;
  t.deviation_term = 2.0 * std::sqrt((routing + sample + confidence) / denominator);
  t.total = t.rademacher_term + t.deviation_term;
  return t;
}

}  // namespace

Theorem1Terms theorem1_printed(const Theorem1Params& p) {
  check_params(p);
  // Eq. 5 / Eq. 18: 4 C R + 2 sqrt((2 k N d_N log T + N d_N log 2m + log(2/delta)) / 2m).
  const double total_growth = log_mask_growth_relaxed(p.T, p.k, p.N, p.d_N, p.m);
  const double sample = p.N * p.d_N * std::log(2.0 * p.m);
  return assemble(4.0 * p.C * p.rademacher, total_growth - sample, sample, std::log(2.0 / p.delta), 2.0 * p.m);
}

Theorem1Terms theorem1_eq17(const Theorem1Params& p) {
  check_params(p);
  // Eq. 17: log Gamma = log(C(T, k)^(2 N d_N) (2m)^(N d_N)) exact (Eq. 13).
  const double sample = p.N * p.d_N * std::log(2.0 * p.m);
  const double routing = log_mask_growth(p.T, p.k, p.N, p.d_N, p.m) - sample;
  return assemble(4.0 * p.C * p.rademacher, routing, sample, std::log(2.0 / p.delta), 2.0 * p.m);
}

Theorem1Terms theorem1_derived(const Theorem1Params& p) {
  check_params(p);
  // P(sup |L_S - L_D| >= eps) <= 2 (Eq. 7) * 2 Gamma (Eq. 12) * exp(-m (eps/2 - E phi)^2) (McDiarmid over
  // 2m points with c_i = 1/m) = delta  =>  eps = 2 E phi + 2 sqrt((log Gamma + log(4/delta)) / m),
  // and E phi <= 2 C T w_max R_m(H) (Lemma 5 corrected: sum over experts of Talagrand's contraction).
  const double sample = p.N * p.d_N * std::log(2.0 * p.m);
  const double routing = log_mask_growth(p.T, p.k, p.N, p.d_N, p.m) - sample;
  return assemble(4.0 * p.C * p.T * p.max_gate_weight * p.rademacher, routing, sample, std::log(4.0 / p.delta), p.m);
}

EnsembleTerms naive_ensemble_printed(double T, double rademacher, double m, double delta) {
  MOELAB_EXPECT(T >= 1.0 && rademacher >= 0.0 && m >= 1.0, "naive_ensemble_printed: need T >= 1, R >= 0, m >= 1");
  MOELAB_EXPECT(delta > 0.0 && delta < 1.0, "naive_ensemble_printed: delta must be in (0, 1)");
  EnsembleTerms e{};
  e.rademacher_term = T * rademacher;
  e.deviation_term = std::sqrt(std::log(2.0 / delta) / (2.0 * m));
  e.total = e.rademacher_term + e.deviation_term;
  return e;
}

EnsembleTerms naive_ensemble_derived(double C, double T, double rademacher, double m, double delta, bool averaged) {
  MOELAB_EXPECT(C > 0.0 && T >= 1.0 && rademacher >= 0.0 && m >= 1.0, "naive_ensemble_derived: need C > 0, T >= 1, R >= 0, m >= 1");
  MOELAB_EXPECT(delta > 0.0 && delta < 1.0, "naive_ensemble_derived: delta must be in (0, 1)");
  EnsembleTerms e{};
  e.rademacher_term = 2.0 * C * (averaged ? 1.0 : T) * rademacher;
  e.deviation_term = std::sqrt(std::log(2.0 / delta) / (2.0 * m));
  e.total = e.rademacher_term + e.deviation_term;
  return e;
}

}  // namespace moelab::bounds
