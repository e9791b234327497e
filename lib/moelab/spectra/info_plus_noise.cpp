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
  // Written as (sigma2 + lambda)(1 + c sigma2 / lambda): the product of the two factors overflowed for
  // lambda > ~1e154 although the result ~ lambda is finite; each factor here is finite whenever
  // the result is, and the form has the same few roundings.
  return (sigma2 + lambda) * (1.0 + c * sigma2 / lambda);
}

double info_plus_noise_spike_inverse(double rho, double c, double sigma2) {
  MOELAB_EXPECT(rho > info_plus_noise_bulk_edge(c, sigma2), "spike inverse needs rho above the bulk edge");
  // rho = (s + l)(c s + l)/l  <=>  l^2 + (s + c s - rho) l + c s^2 = 0; the larger root is the one
  // above the threshold sqrt(c) s (the two roots multiply to c s^2). Both terms are positive: no cancellation.
  const double b = rho - sigma2 - c * sigma2;
  // (b + sqrt(b^2 - 4 c sigma2^2)) / 2 with b^2 factored out: b^2 overflowed for rho > ~1e154.
  // b > 2 sqrt(c) sigma2 > 0 above the bulk edge, so the ratio below lies in [0, 1).
  const double ratio = 2.0 * std::sqrt(c) * sigma2 / b;
  return 0.5 * b * (1.0 + std::sqrt(std::max((1.0 - ratio) * (1.0 + ratio), 0.0)));
}

double info_plus_noise_left_overlap(double lambda, double c, double sigma2) {
  MOELAB_EXPECT(lambda >= 0.0, "info_plus_noise_left_overlap: lambda must be non-negative");
  if (lambda <= info_plus_noise_threshold(c, sigma2)) return 0.0;
  // Benaych-Georges & Nadakuditi (2012), Sec. 3.1, with theta^2 = t = lambda / sigma2, n/m = c:
  // 1 - c (1 + t)/(t (t + c)) = (t^2 - c)/(t (t + c)) = (1 - c r^2)/(1 + c r) with r = 1/t = sigma2 / lambda:
  // t itself overflows for lambda / sigma2 > 1.8e308; above the threshold c r^2 < 1, so nothing does here.
  const double r = sigma2 / lambda;
  return (1.0 - c * r * r) / (1.0 + c * r);
}

double info_plus_noise_right_overlap(double lambda, double c, double sigma2) {
  MOELAB_EXPECT(lambda >= 0.0, "info_plus_noise_right_overlap: lambda must be non-negative");
  if (lambda <= info_plus_noise_threshold(c, sigma2)) return 0.0;
  // Same source: 1 - (c + t)/(t (t + 1)) = (t^2 - c)/(t (t + 1)) = (1 - c r^2)/(1 + r), r = sigma2 / lambda.
  const double r = sigma2 / lambda;
  return (1.0 - c * r * r) / (1.0 + r);
}

}  // namespace moelab::spectra
