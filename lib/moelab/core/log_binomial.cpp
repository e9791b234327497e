#include "moelab/core/log_binomial.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/error.hpp"

namespace moelab {

namespace {

// Stirling remainder delta(x) = log(x!) - [(x + 1/2) log x - x + log(2 pi)/2] for x > 64, by its asymptotic
// series 1/(12 x) - 1/(360 x^3) + 1/(1260 x^5) - 1/(1680 x^7) (DLMF 5.11.1); the first omitted term,
// 1/(1188 x^9), is below 2e-19 at x = 64, and delta(64) = 1.3e-3, so the series is good to < 1e-16 relative.
double stirling_remainder(double x) {
  const double r = 1.0 / x, r2 = r * r;
  return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
}

}  // namespace

double log_binomial(double n, double k) {
  MOELAB_EXPECT(std::isfinite(n) && n >= 0.0 && std::isfinite(k), "log_binomial: need finite n >= 0 and finite k");
  if (k < 0.0 || k > n) return -std::numeric_limits<double>::infinity();
  const double j = std::min(k, n - k), m = n - j;
  if (j == 0.0) return 0.0;
  if (j <= 64.0 && std::floor(j) == j) {
    // C(n, j) = prod_{i=1}^{j} (m + i) / i (Gamma(m + j + 1) / Gamma(m + 1) for real m); each factor >= 1.
    double s = 0.0;
    for (double i = 1.0; i <= j; i += 1.0) s += std::log((m + i) / i);
    return s;
  }
  constexpr double kLog2Pi = 1.8378770664093454836;
  if (j <= 64.0) {
    // j not an integer. Small n: the lgamma difference (absolute error a few eps lgamma(129) = 4e-14).
    if (m <= 64.0) return std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(m + 1.0);
    // Else Stirling for n! / m! only, written without cancellation (see below), and lgamma(j + 1) of a small j.
    return (m + 0.5) * std::log1p(j / m) + j * std::log(n) - j + (stirling_remainder(n) - stirling_remainder(m)) -
           std::lgamma(j + 1.0);
  }
  // j > 64, m >= j. Stirling for all three factorials with the O(n log n) parts cancelled analytically:
  //   log C(n, j) = (m + 1/2) log1p(j / m) + j log(n / j) - log(2 pi j)/2 + delta(n) - delta(m) - delta(j),
  // (from (n + 1/2) log n - (m + 1/2) log m = (m + 1/2) log(n / m) + j log n): every term is O(j log(n / j))
  // or smaller, so the relative error is a few eps.
  return (m + 0.5) * std::log1p(j / m) + j * std::log(n / j) - 0.5 * (kLog2Pi + std::log(j)) +
         (stirling_remainder(n) - stirling_remainder(m) - stirling_remainder(j));
}

double log_binomial_large(double log_m, double k) {
  MOELAB_EXPECT(k >= 0, "log_binomial_large needs k >= 0");
  if (k == 0) return 0.0;
  if (log_m < 36.0) {  // m < 4e15: in double range, and below 2^53 where log_binomial is accurate
    const double m = std::exp(log_m);
    MOELAB_EXPECT(k <= m, "log_binomial_large needs k <= m");
    return log_binomial(m, k);
  }
  // m >= 4e15 > k^2 for every k used here: sum log(1 - i/m) = -k(k-1)/(2m) (1 + O(k/m)).
  return k * log_m - 0.5 * k * (k - 1.0) * std::exp(-log_m) - std::lgamma(k + 1.0);
}

}  // namespace moelab
