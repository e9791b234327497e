#include "moelab/routing/counting.hpp"

#include <cmath>

#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

const std::vector<FrontierMoe>& table1_models() {
  // Granularity paper, Table 1: "# active out of # total experts", granularity, sparsity (as printed).
  static const std::vector<FrontierMoe> rows = {
      {"DeepSeek-V3", 256, 8, 3.1},          {"Qwen1.5-MoE-A2.7B", 64, 4, 6.2}, {"DBRX", 16, 4, 25.0},
      {"Snowflake Arctic", 128, 2, 1.6},     {"Google GLaM", 64, 2, 3.1},       {"Mixtral 8x7B and 8x22B", 8, 2, 25.0},
      {"Llama-4 Maverick", 128, 1, 0.8},     {"Llama-4 Scout", 16, 1, 6.2},
  };
  return rows;
}

double log_configurations(int m, int k) { return log_binomial(m, k); }
double log10_configurations(int m, int k) { return log_binomial(m, k) / std::log(10.0); }

bool theorem31_counting_condition(int m, int k, int ms, int ks, double c) {
  MOELAB_EXPECT(c > 0, "theorem31_counting_condition needs c > 0");
  return log_binomial(ms, ks) <= std::log(c) + 0.99 * log_binomial(m, k);
}

double theorem31_required_c(int m, int k, int ms, int ks) { return std::exp(log_binomial(ms, ks) - 0.99 * log_binomial(m, k)); }

double binary_entropy(double p) {
  if (p <= 0.0 || p >= 1.0) return 0.0;
  return -(p * std::log2(p) + (1.0 - p) * std::log2(1.0 - p));
}

double claim_a9_exponent_printed(double cp) { return 4.0 * cp * std::log2(1.0 / cp); }

double claim_a9_exponent_needed(int m, int k, double cp) {
  const int t = static_cast<int>(std::floor(cp * k));
  if (t == 0) return 0.0;
  return log_binomial(m, t) / log_binomial(m, k);
}

double claim_a9_log_margin(int m, int k, double c, double cp) {
  const int t = static_cast<int>(std::floor(cp * k));
  const double logC = log_binomial(m, k);
  const double log_p = std::log(c) + 0.99 * logC;
  return log_p + log_binomial(m, t) + log_binomial(k, t) - (std::log(c) + logC);
}

double log_swap_ball(int m, int k, int t) {
  // log-sum-exp of log C(k, j) + log C(m - k, j), j = 0..t.
  double mx = -INFINITY;
  for (int j = 0; j <= t; ++j) mx = std::max(mx, log_binomial(k, j) + log_binomial(m - k, j));
  double s = 0.0;
  for (int j = 0; j <= t; ++j) s += std::exp(log_binomial(k, j) + log_binomial(m - k, j) - mx);
  return mx + std::log(s);
}

double log_swap_ball_printed(int m, int k, int t) { return log_binomial(m, t) + log_binomial(k, t); }

}  // namespace moelab::routing
