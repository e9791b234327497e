// Spiked covariance: closed forms (BBP / Baik-Silverstein / Paul) and a Monte-Carlo check of the outlier's
// mean, fluctuation variance (real and complex Gaussian data) and eigenvector overlap.
#include "moelab/spectra/spiked_covariance.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include <Eigen/Dense>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sp = moelab::spectra;

TEST_CASE("spike threshold, edge and limits take their closed-form values", "[spectra][spiked_covariance]") {
  // c = 0.25: threshold 1.5, edge sigma2 2.25; ell = 3: 3 (1 + 0.25/2) = 3.375 (exact in binary).
  CHECK(sp::spiked_threshold(0.25) == 1.5);
  CHECK(sp::spiked_bulk_edge(0.25, 2.0) == 4.5);
  CHECK(sp::spiked_eigenvalue_limit(3.0, 0.25, 1.0) == 3.375);
  CHECK(sp::spiked_eigenvalue_limit(3.0, 0.25, 2.0) == 6.75);
  CHECK(sp::spiked_eigenvalue_limit(1.2, 0.25, 2.0) == 4.5);
  // Overlap at ell = 3, c = 0.25: (1 - 0.25/4)/(1 + 0.25/2) = 0.9375/1.125 = 5/6.
  CHECK_THAT(sp::spiked_eigenvector_overlap(3.0, 0.25), WithinRel(5.0 / 6.0, 1e-15));
  CHECK(sp::spiked_eigenvector_overlap(1.4, 0.25) == 0.0);
  // Variance at ell = 3, c = 0.25, sigma2 = 2: 2 * 4 * 9 * 0.9375 = 67.5 (real), 33.75 (complex).
  CHECK_THAT(sp::spiked_fluctuation_variance(3.0, 0.25, 2.0, sp::GaussianField::real), WithinRel(67.5, 1e-15));
  CHECK_THAT(sp::spiked_fluctuation_variance(3.0, 0.25, 2.0, sp::GaussianField::complex), WithinRel(33.75, 1e-15));
  // The bulk edge is the Marchenko-Pastur upper edge of the same convention.
  CHECK_THAT(sp::spiked_bulk_edge(0.7, 1.3), WithinRel(sp::MarchenkoPastur(0.7, 1.3).upper_edge(), 1e-15));
  CHECK_THROWS_AS(sp::spiked_threshold(0.0), std::logic_error);
  CHECK_THROWS_AS(sp::spiked_eigenvalue_limit(-1.0, 0.5, 1.0), std::logic_error);
  CHECK_THROWS_AS(sp::spiked_eigenvalue_inverse(sp::spiked_bulk_edge(0.5, 1.0), 0.5, 1.0), std::logic_error);
  CHECK_THROWS_AS(sp::spiked_fluctuation_variance(1.5, 0.25, 1.0, sp::GaussianField::real), std::logic_error);
}

TEST_CASE("spike maps are continuous at the threshold, monotone, and mutually inverse", "[spectra][spiked_covariance]") {
  const double c = GENERATE(0.05, 0.25, 1.0, 2.0, 10.0);
  const double sigma2 = GENERATE(0.3, 1.0, 5.0);
  const double threshold = sp::spiked_threshold(c);
  const double edge = sp::spiked_bulk_edge(c, sigma2);
  // g(ell) = ell + c ell/(ell - 1) has g'(1 + sqrt c) = 0: g(t (1 + e)) - edge = O(e^2) edge. With e = 1e-6
  // that is ~1e-12 relative; tolerance 1e-11.
  CHECK_THAT(sp::spiked_eigenvalue_limit(threshold * (1.0 + 1e-6), c, sigma2), WithinRel(edge, 1e-11));
  CHECK_THAT(sp::spiked_eigenvalue_limit(threshold, c, sigma2), WithinRel(edge, 1e-15));
  // Overlap and variance vanish linearly at the threshold: (ell - 1)^2 - c = O(e).
  CHECK(sp::spiked_eigenvector_overlap(threshold * (1.0 + 1e-9), c) < 1e-7);
  CHECK(sp::spiked_fluctuation_variance(threshold * (1.0 + 1e-9), c, sigma2, sp::GaussianField::real) < 1e-6 * sigma2 * sigma2 * threshold * threshold);
  double previous_limit = edge, previous_overlap = 0.0;
  for (double factor = 1.01; factor < 1e3; factor *= 1.3) {
    const double ell = threshold * factor;
    const double rho = sp::spiked_eigenvalue_limit(ell, c, sigma2);
    CHECK(rho > previous_limit);
    const double overlap = sp::spiked_eigenvector_overlap(ell, c);
    CHECK(overlap > previous_overlap);
    CHECK(overlap < 1.0);
    previous_limit = rho;
    previous_overlap = overlap;
    // Conditioning of the inverse: ell g'(ell)/g(ell) >= ~0.02 for factor >= 1.01, so 1e-13 relative covers
    // the rounding of rho (amplified <= 50x) with room.
    CHECK_THAT(sp::spiked_eigenvalue_inverse(rho, c, sigma2), WithinRel(ell, 1e-13));
    // Forward map of the inverse, the other way round.
    CHECK_THAT(sp::spiked_eigenvalue_limit(sp::spiked_eigenvalue_inverse(rho, c, sigma2), c, sigma2), WithinRel(rho, 1e-14));
  }
  // Strong spikes: rho = sigma2 (ell + c + c / (ell - 1)) exactly (an independent rewrite of ell (1 + c/(ell - 1)),
  // rounding ~1e-16), and rho ~ sigma2 (ell + c) with relative error c / ((ell - 1)(ell + c)) ~ c 1e-12 at ell = 1e6.
  CHECK_THAT(sp::spiked_eigenvalue_limit(1e6, c, sigma2), WithinRel(sigma2 * (1e6 + c + c / (1e6 - 1.0)), 1e-15));
  CHECK_THAT(sp::spiked_eigenvalue_limit(1e6, c, sigma2), WithinRel(sigma2 * (1e6 + c), 2.0 * c * 1e-12 + 1e-15));
  // Control: dropping c (the population value sigma2 ell) is off by c / ell = c 1e-6, far outside.
  CHECK_FALSE(std::abs(sp::spiked_eigenvalue_limit(1e6, c, sigma2) / (sigma2 * 1e6) - 1.0) < 1e3 * c * 1e-12);
  CHECK(sp::spiked_eigenvector_overlap(1e6, c) > 1.0 - 2.0 * c * 1e-6);
}

namespace {

struct OutlierSample {
  double mean = 0.0, variance = 0.0, overlap = 0.0, overlap_se = 0.0;
};

// R replicates of S = Y Y'/N with Y = M x N, rows scaled by sqrt(sigma2 ell_i), ell = (ell, 1, ..., 1).
// Returns the mean and sample variance of lambda_1 and the mean (with its SE) of the squared cosine <v_1, e_1>^2.
OutlierSample simulate_outlier(int M, int N, double ell, double sigma2, sp::GaussianField field, int replicates,
                               std::uint64_t seed) {
  OutlierSample out;
  double sum = 0.0, sum2 = 0.0, osum = 0.0, osum2 = 0.0;
  for (int r = 0; r < replicates; ++r) {
    const moelab::RandomStream stream(seed, moelab::StreamTag::property_test, static_cast<std::uint64_t>(r));
    std::uint64_t j = 0;
    double top = 0.0, cos2 = 0.0;
    if (field == sp::GaussianField::real) {
      Eigen::MatrixXd Y(M, N);
      for (int col = 0; col < N; ++col)
        for (int row = 0; row < M; ++row) Y(row, col) = std::sqrt(sigma2 * (row == 0 ? ell : 1.0)) * stream.normal(j++);
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(Y * Y.transpose() / N));
      top = eig.eigenvalues()(M - 1);
      cos2 = eig.eigenvectors()(0, M - 1) * eig.eigenvectors()(0, M - 1);
    } else {
      // Complex Gaussian with E|y|^2 = sigma2 ell_i: real and imaginary parts each of variance half.
      Eigen::MatrixXcd Y(M, N);
      for (int col = 0; col < N; ++col)
        for (int row = 0; row < M; ++row) {
          const double s = std::sqrt(0.5 * sigma2 * (row == 0 ? ell : 1.0));
          const double re = stream.normal(j++), im = stream.normal(j++);
          Y(row, col) = std::complex<double>(s * re, s * im);
        }
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> eig(Y * Y.adjoint() / N);
      top = eig.eigenvalues()(M - 1);
      cos2 = std::norm(eig.eigenvectors()(0, M - 1));
    }
    sum += top;
    sum2 += top * top;
    osum += cos2;
    osum2 += cos2 * cos2;
  }
  const double R = replicates;
  out.mean = sum / R;
  out.variance = (sum2 - R * out.mean * out.mean) / (R - 1.0);
  out.overlap = osum / R;
  out.overlap_se = std::sqrt((osum2 - R * out.overlap * out.overlap) / (R - 1.0) / R);
  return out;
}

}  // namespace

TEST_CASE("a simulated outlier has the stated mean and eigenvector overlap", "[spectra][spiked_covariance][mc]") {
  // Real Gaussian, M = 100, N = 400 (c = 0.25), ell = 4 > 1.5, sigma2 = 1.5: rho = 6.5, sd of lambda_1
  // sqrt(v/N) = 0.42. R = 40 replicates: SE of the mean 0.066. Tolerance 4 SE + rho/N (the O(1/N) bias
  // of lambda_1; 0.004 measured with R = 400). Overlap: 4 SE + 1/N (its O(1/N) bias measured at
  // +0.0015 = 0.6/N with R = 400). Negative controls: the population eigenvalue sigma2 ell = 6 (no
  // BBP bias), and the overlap without its denominator, 1 - c/(ell - 1)^2 = 0.972.
  const int M = 100, N = 400, replicates = 40;
  const double c = double(M) / N, ell = 4.0, sigma2 = 1.5;
  const OutlierSample s = simulate_outlier(M, N, ell, sigma2, sp::GaussianField::real, replicates, 20);
  const double rho = sp::spiked_eigenvalue_limit(ell, c, sigma2);
  const double se = std::sqrt(sp::spiked_fluctuation_variance(ell, c, sigma2, sp::GaussianField::real) / N / replicates);
  const double overlap = sp::spiked_eigenvector_overlap(ell, c);
  INFO("mean " << s.mean << " (rho " << rho << ", se " << se << "), overlap " << s.overlap << " +- " << s.overlap_se
               << " (limit " << overlap << ")");
  CHECK(std::abs(s.mean - rho) <= 4.0 * se + rho / N);
  CHECK(std::abs(s.mean - sigma2 * ell) > 4.0 * se + rho / N);
  CHECK(std::abs(s.overlap - overlap) <= 4.0 * s.overlap_se + 1.0 / N);
  CHECK(std::abs(s.overlap - (1.0 - c / ((ell - 1) * (ell - 1)))) > 4.0 * s.overlap_se + 1.0 / N);
}

TEST_CASE("the outlier fluctuation variance is 2 ell^2 (1 - c/(ell-1)^2) sigma2^2 / N for real data, half for complex",
          "[spectra][spiked_covariance][mc][slow]") {
  // M = 100, N = 400, ell = 4, sigma2 = 1.5, R = 800 replicates per field (~3 s each at 2 threads). The
  // sample variance of lambda_1 has relative SE sqrt(2/(R - 1)) = 5.0% (Gaussian limit); tolerance 4 SE.
  // The other field's variance (factor 2 or 1/2) is the negative control and must be rejected at 4 of
  // its own SE. R = 800 (was 400) so that the mean's control below, sigma2 (ell + c), is 3.6 SE of the
  // real field's mean outside the tolerance rather than 1.4 (power ~1 rather than ~0.9).
  const auto field = GENERATE(sp::GaussianField::real, sp::GaussianField::complex);
  const auto other = field == sp::GaussianField::real ? sp::GaussianField::complex : sp::GaussianField::real;
  const int M = 100, N = 400, replicates = 800;
  const double c = double(M) / N, ell = 4.0, sigma2 = 1.5;
  const OutlierSample s = simulate_outlier(M, N, ell, sigma2, field, replicates, field == sp::GaussianField::real ? 21 : 22);
  const double rho = sp::spiked_eigenvalue_limit(ell, c, sigma2);
  const double v = sp::spiked_fluctuation_variance(ell, c, sigma2, field) / N;
  const double v_other = sp::spiked_fluctuation_variance(ell, c, sigma2, other) / N;
  const double rel_se = std::sqrt(2.0 / (replicates - 1.0));
  INFO("mean " << s.mean << " (rho " << rho << "), variance " << s.variance << " (v/N " << v << ", other field "
               << v_other << "), overlap " << s.overlap << " +- " << s.overlap_se);
  CHECK(std::abs(s.variance - v) <= 4.0 * rel_se * v);
  CHECK(std::abs(s.variance - v_other) > 4.0 * rel_se * v_other);
  // Mean and overlap as in the quick test, with 20x the replicates.
  CHECK(std::abs(s.mean - rho) <= 4.0 * std::sqrt(v / replicates) + rho / N);
  // Control: the nearer wrong limit sigma2 (ell + c) = 6.375 (rho without c / (ell - 1); 0.125 below rho)
  // must be rejected by the same test. The quick test's 4 SE (0.26) cannot; here 4 SE + rho/N is 0.075
  // (real) and 0.058 (complex).
  CHECK(std::abs(s.mean - sigma2 * (ell + c)) > 4.0 * std::sqrt(v / replicates) + rho / N);
  CHECK(std::abs(s.overlap - sp::spiked_eigenvector_overlap(ell, c)) <= 4.0 * s.overlap_se + 1.0 / N);
}
