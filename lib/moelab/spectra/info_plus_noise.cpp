#include "moelab/spectra/info_plus_noise.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/error.hpp"

namespace moelab::spectra {

namespace {

void check_domain(double c, double sigma2) {
  MOELAB_EXPECT(c > 0.0, "aspect ratio c must be positive");
  MOELAB_EXPECT(sigma2 > 0.0, "noise variance sigma2 must be positive");
}

}  // namespace

double info_plus_noise_threshold(double c, double sigma2) {
  check_domain(c, sigma2);
  // Loubaton & Vallet (2011), Thm 6 (noisy, A.5): a spike separates iff lambda > sqrt(c) sigma2.
  return std::sqrt(c) * sigma2;
}

double info_plus_noise_bulk_edge(double c, double sigma2) {
  check_domain(c, sigma2);
  // Marchenko-Pastur right edge of W W' with entries of variance sigma2 / N: sigma2 (1 + sqrt(c))^2.
  const double one_plus_root_c = 1.0 + std::sqrt(c);
  return sigma2 * one_plus_root_c * one_plus_root_c;
}

double info_plus_noise_spike_limit(double lambda, double c, double sigma2) {
  // Loubaton & Vallet (2011), Thm 6; noisy, A.5:
  //   lambda_bar^2 -> (sigma2 + lambda)(c sigma2 + lambda) / lambda above threshold, bulk edge otherwise.
  if (lambda <= info_plus_noise_threshold(c, sigma2)) return info_plus_noise_bulk_edge(c, sigma2);
  return (sigma2 + lambda) * (c * sigma2 + lambda) / lambda;
}

double info_plus_noise_spike_inverse(double rho, double c, double sigma2) {
  MOELAB_EXPECT(rho > info_plus_noise_bulk_edge(c, sigma2), "spike inverse needs rho above the bulk edge");
  // rho = (s + l)(c s + l)/l  <=>  l^2 + (s + c s - rho) l + c s^2 = 0; the larger root is the one
  // above the threshold sqrt(c) s (the two roots multiply to c s^2). Both terms are positive: no cancellation.
  const double b = rho - sigma2 - c * sigma2;
  const double discriminant = b * b - 4.0 * c * sigma2 * sigma2;
  return 0.5 * (b + std::sqrt(std::max(discriminant, 0.0)));
}

double info_plus_noise_left_overlap(double lambda, double c, double sigma2) {
  MOELAB_EXPECT(lambda >= 0.0, "info_plus_noise_left_overlap: lambda must be non-negative");
  if (lambda <= info_plus_noise_threshold(c, sigma2)) return 0.0;
  // Benaych-Georges & Nadakuditi (2012), Sec. 3.1, with theta^2 = t = lambda / sigma2, n/m = c:
  // 1 - c (1 + t)/(t (t + c)) = (t^2 - c)/(t (t + c)).
  const double t = lambda / sigma2;
  return (t - c / t) / (t + c);
}

double info_plus_noise_right_overlap(double lambda, double c, double sigma2) {
  MOELAB_EXPECT(lambda >= 0.0, "info_plus_noise_right_overlap: lambda must be non-negative");
  if (lambda <= info_plus_noise_threshold(c, sigma2)) return 0.0;
  // Same source: 1 - (c + t)/(t (t + 1)) = (t^2 - c)/(t (t + 1)).
  const double t = lambda / sigma2;
  return (t - c / t) / (t + 1.0);
}

}  // namespace moelab::spectra
