#include "moelab/bounds/growth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"

namespace moelab::bounds {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool is_count(double x) { return std::isfinite(x) && x >= 0.0 && std::floor(x) == x; }

// log sum_{i=0}^{min(d, m)} C(m, i) w^i with log w = log_w (log_w = 0: Sauer-Shelah).
double log_binomial_sum(double m, double d, double log_w) {
  const double top = std::min(d, m);
  MOELAB_EXPECT(top <= 1e7, "growth sums: min(d, m) above 1e7 terms");
  // Terms increase up to i ~ m w / (1 + w) and then decrease; accumulate with the largest term
  // factored out so that no partial sum overflows or loses the small terms.
  double largest = kNegInf;
  for (double i = 0.0; i <= top; i += 1.0) largest = std::max(largest, log_binomial(m, i) + i * log_w);
  double sum = 0.0;
  for (double i = 0.0; i <= top; i += 1.0) sum += std::exp(log_binomial(m, i) + i * log_w - largest);
  return largest + std::log(sum);
}

}  // namespace

double log_natarajan_growth(double m, double d, double labels) {
  MOELAB_EXPECT(is_count(m) && m >= 1.0, "log_natarajan_growth: m must be an integer >= 1");
  MOELAB_EXPECT(is_count(d), "log_natarajan_growth: d must be an integer >= 0");
  MOELAB_EXPECT(is_count(labels) && labels >= 1.0, "log_natarajan_growth: labels must be an integer >= 1");
  return d * std::log(m) + 2.0 * d * std::log(labels);
}

double log_sauer_shelah(double m, double d) {
  MOELAB_EXPECT(is_count(m) && is_count(d), "log_sauer_shelah: m, d must be integers >= 0");
  return log_binomial_sum(m, d, 0.0);
}

double log_sauer_shelah_bound(double m, double d) {
  MOELAB_EXPECT(is_count(m) && is_count(d) && d >= 1.0 && m >= d, "log_sauer_shelah_bound: need m >= d >= 1");
  return d * (1.0 + std::log(m / d));
}

double log_haussler_long(double m, double d, double labels) {
  MOELAB_EXPECT(is_count(m) && is_count(d), "log_haussler_long: m, d must be integers >= 0");
  MOELAB_EXPECT(is_count(labels) && labels >= 2.0, "log_haussler_long: labels must be an integer >= 2");
  return log_binomial_sum(m, d, log_binomial(labels, 2.0));
}

double log_mask_growth(double T, double k, double N, double d_N, double m) {
  MOELAB_EXPECT(is_count(T) && is_count(k) && k >= 1.0 && k <= T, "log_mask_growth: need integers 1 <= k <= T");
  MOELAB_EXPECT(is_count(N) && N >= 1.0 && is_count(d_N), "log_mask_growth: need integers N >= 1, d_N >= 0");
  MOELAB_EXPECT(is_count(m) && m >= 1.0, "log_mask_growth: m must be an integer >= 1");
  const double nd = N * d_N;
  return 2.0 * nd * log_binomial(T, k) + nd * std::log(2.0 * m);
}

double log_mask_growth_relaxed(double T, double k, double N, double d_N, double m) {
  MOELAB_EXPECT(is_count(T) && is_count(k) && k >= 1.0 && k <= T, "log_mask_growth_relaxed: need integers 1 <= k <= T");
  MOELAB_EXPECT(is_count(N) && N >= 1.0 && is_count(d_N), "log_mask_growth_relaxed: need integers N >= 1, d_N >= 0");
  MOELAB_EXPECT(is_count(m) && m >= 1.0, "log_mask_growth_relaxed: m must be an integer >= 1");
  const double nd = N * d_N;
  return 2.0 * k * nd * std::log(T) + nd * std::log(2.0 * m);
}

}  // namespace moelab::bounds
