#include "moelab/spectra/spiked_covariance.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/error.hpp"

namespace moelab::spectra {

namespace {

void check_ratio(double c) { MOELAB_EXPECT(std::isfinite(c) && c > 0.0, "spiked covariance: ratio c must be positive"); }

void check_scale(double sigma2) {
  MOELAB_EXPECT(std::isfinite(sigma2) && sigma2 > 0.0, "spiked covariance: scale sigma2 must be positive");
}

}  // namespace

double spiked_threshold(double c) {
  check_ratio(c);
  return 1.0 + std::sqrt(c);
}

double spiked_bulk_edge(double c, double sigma2) {
  check_scale(sigma2);
  const double t = spiked_threshold(c);
  return sigma2 * t * t;
}

double spiked_eigenvalue_limit(double ell, double c, double sigma2) {
  MOELAB_EXPECT(ell > 0.0, "spiked_eigenvalue_limit: spike ell must be positive");
  // Baik & Silverstein (2006), Thm 1.1: ell (1 + c/(ell - 1)) above 1 + sqrt(c), the edge otherwise.
  if (ell <= spiked_threshold(c)) return spiked_bulk_edge(c, sigma2);
  check_scale(sigma2);
  return sigma2 * ell * (1.0 + c / (ell - 1.0));
}

double spiked_eigenvalue_inverse(double rho, double c, double sigma2) {
  MOELAB_EXPECT(rho > spiked_bulk_edge(c, sigma2), "spiked_eigenvalue_inverse: rho must exceed the bulk edge");
  // y = ell + c ell/(ell - 1) <=> ell^2 - (y + 1 - c) ell + y = 0. b = y + 1 - c > 2 sqrt(y) > 0 since
  // y > (1 + sqrt c)^2; the larger root (b + sqrt(b^2 - 4y))/2 adds positive terms.
  const double y = rho / sigma2;
  const double b = y + 1.0 - c;
  const double discriminant = std::max(b * b - 4.0 * y, 0.0);
  return 0.5 * (b + std::sqrt(discriminant));
}

double spiked_eigenvector_overlap(double ell, double c) {
  MOELAB_EXPECT(ell > 0.0, "spiked_eigenvector_overlap: spike ell must be positive");
  if (ell <= spiked_threshold(c)) return 0.0;
  // Paul (2007), Thm 4: (1 - c/(ell - 1)^2) / (1 + c/(ell - 1)).
  const double d = ell - 1.0;
  return (1.0 - c / (d * d)) / (1.0 + c / d);
}

double spiked_fluctuation_variance(double ell, double c, double sigma2, GaussianField field) {
  MOELAB_EXPECT(ell > spiked_threshold(c), "spiked_fluctuation_variance: needs a supercritical spike ell > 1 + sqrt(c)");
  check_scale(sigma2);
  // Paul (2007), Thm 3 (real): 2 ell^2 (1 - c/(ell - 1)^2); BBP (2005), Thm 1.1(b) (complex): half of it.
  const double d = ell - 1.0;
  const double beta_factor = field == GaussianField::real ? 2.0 : 1.0;
  return beta_factor * sigma2 * sigma2 * ell * ell * (1.0 - c / (d * d));
}

}  // namespace moelab::spectra
