#include "moelab/bounds/growth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/error.hpp"

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

// Stirling remainder delta(x) = log(x!) - [(x + 1/2) log x - x + log(2 pi)/2] for x > 64, by its asymptotic
// series 1/(12 x) - 1/(360 x^3) + 1/(1260 x^5) - 1/(1680 x^7) (DLMF 5.11.1); the first omitted term,
// 1/(1188 x^9), is below 2e-19 at x = 64, and delta(64) = 1.3e-3, so the series is good to < 1e-16 relative.
double stirling_remainder(double x) {
  const double r = 1.0 / x, r2 = r * r;
  return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
}

}  // namespace

double log_binomial(double n, double k) {
  MOELAB_EXPECT(is_count(n) && is_count(k) && k <= n, "log_binomial: need integers 0 <= k <= n");
  const double j = std::min(k, n - k);
  if (j == 0.0) return 0.0;
  if (j <= 64.0) {
    // C(n, j) = prod_{i=1}^{j} (n - j + i) / i; each factor >= 1, summed in log space.
    double s = 0.0;
    for (double i = 1.0; i <= j; i += 1.0) s += std::log((n - j + i) / i);
    return s;
  }
  // j > 64, m = n - j >= j. lgamma(n + 1) - lgamma(j + 1) - lgamma(m + 1) would subtract numbers of size
  // n log n and lose eps n log n absolute (7.4 at n = 1e15). Stirling for all three factorials with
  // the O(n log n) parts cancelled analytically instead:
  //   log C(n, j) = (m + 1/2) log1p(j / m) + j log(n / j) - log(2 pi j)/2 + delta(n) - delta(m) - delta(j),
  // (from (n + 1/2) log n - (m + 1/2) log m = (m + 1/2) log(n / m) + j log n): every term is O(j log(n / j))
  // or smaller, so the relative error is a few eps (tested against mpmath: tests/data/bounds).
  const double m = n - j;
  constexpr double kLog2Pi = 1.8378770664093454836;
  return (m + 0.5) * std::log1p(j / m) + j * std::log(n / j) - 0.5 * (kLog2Pi + std::log(j)) +
         (stirling_remainder(n) - stirling_remainder(m) - stirling_remainder(j));
}

double log_add_exp(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

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
