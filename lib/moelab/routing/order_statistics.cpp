#include "moelab/routing/order_statistics.hpp"

#include <cmath>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>

#include "moelab/core/error.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/core/normal.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

namespace {

/// P[Bin(n, p) <= j] with p = Phibar(z), 1 - p = Phi(z) (both computed directly for accuracy):
/// I_{1-p}(n - j, j + 1).
double binomial_cdf_at(int n, int j, double z) {
  if (j < 0) return 0.0;
  if (j >= n) return 1.0;
  return boost::math::ibeta(static_cast<double>(n - j), static_cast<double>(j + 1), normal_cdf(z));
}

/// Integral of f over the real line, truncated to [lo, hi] where the integrands used here are
/// below 1e-30 (Gaussian tails times bounded factors).
template <class F>
double integrate(F f, double lo, double hi) {
  // 61-point Kronrod, adaptive to depth 15; tolerance near machine precision.
  return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, lo, hi, 15, 1e-13);
}

}  // namespace

TopKMoments top_k_moments(int m, int k) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m, "top_k_moments needs 1 <= k <= m");
  TopKMoments t;
  const double lo = -14.0, hi = 14.0;  // phi(14) ~ 1e-43; the top order statistics of m <= 1e9 sit below 7
  t.sum_mean = m * integrate([&](double z) { return z * normal_pdf(z) * binomial_cdf_at(m - 1, k - 1, z); }, lo, hi);
  t.square_sum_mean = m * integrate([&](double z) { return z * z * normal_pdf(z) * binomial_cdf_at(m - 1, k - 1, z); }, lo, hi);
  double cross = 0.0;
  if (k >= 2)
    cross = 2.0 * m * (m - 1.0) *
            integrate([&](double w) { return w * normal_pdf(w) * normal_pdf(w) * binomial_cdf_at(m - 2, k - 2, w); }, lo, hi);
  t.sum_second = t.square_sum_mean + cross;
  return t;
}

double maximal_inequality_bound(int m) { return std::sqrt(2.0 * std::log(static_cast<double>(m))); }

double top_set_probability(int m, int k, double delta) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m, "top_set_probability needs 1 <= k <= m");
  if (k == m) return 1.0;
  const int r = m - k;
  // Density of max of the r unshifted ones: r Phi(t)^(r-1) phi(t); the k shifted ones all exceed t
  // with probability Phibar(t - delta)^k.
  const auto f = [&](double t) { return std::pow(normal_sf(t - delta), k) * r * std::pow(normal_cdf(t), r - 1) * normal_pdf(t); };
  return integrate(f, -14.0, 14.0 + std::max(0.0, delta));
}

double lemma_a3_bound_printed(int m, int k, double delta) {
  return std::exp(delta * k * maximal_inequality_bound(m) - log_binomial(m, k));
}

double lemma_a3_bound_sharp(int m, int k, double delta) {
  return std::exp(delta * top_k_moments(m, k).sum_mean - log_binomial(m, k));
}

SecondMomentExpansion second_moment_expansion(int m, int k) {
  MOELAB_EXPECT(m >= 2 && k >= 1 && k < m, "second_moment_expansion needs 1 <= k < m");
  const TopKMoments t = top_k_moments(m, k);
  const double s = t.sum_mean, q = t.square_sum_mean, v2 = t.sum_second;
  const double K = k, r = m - k;
  // Conditional on the top set T = [k] (probability p0 = 1/C), with A = sum of the top k and
  // B = sum of the others: E[A + B] = 0 and A + B = m abar is independent of the ordering, so
  // E[A (A + B)] = k, E[B^2] = m - 2k + v2, E[A B] = k - v2 (docs/routing.md).
  SecondMomentExpansion e;
  e.c1 = s * s * (1.0 / K + 1.0 / r);  // sum_j (E[a_j 1_T] / p0)^2
  // Second order: (1/2) sum_j E[He_2(a_j) | T]^2 + sum_{i<j} E[a_i a_j | T]^2.
  const double he2_in = q / K - 1.0, he2_out = (K - q) / r;
  const double in_in = k >= 2 ? (v2 - q) / (K * (K - 1.0)) : 0.0;
  const double out_out = r >= 2 ? (v2 + q - 2.0 * K) / (r * (r - 1.0)) : 0.0;
  const double in_out = (K - v2) / (K * r);
  e.c2 = 0.5 * (K * he2_in * he2_in + r * he2_out * he2_out) + 0.5 * K * (K - 1.0) * in_in * in_in +
         0.5 * r * (r - 1.0) * out_out * out_out + K * r * in_out * in_out;
  return e;
}

double lemma_a5_necessary_dimension(int m, int k) { return std::ceil(second_moment_expansion(m, k).c2 / 2.0); }

}  // namespace moelab::routing
