// Loubaton-Vallet information-plus-noise spikes (used by noisy, Thm 5 / A.5).
#include "moelab/spectra/info_plus_noise.hpp"

#include <cmath>
#include <cstdint>

#include <Eigen/Dense>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sp = moelab::spectra;

TEST_CASE("threshold and bulk edge take their closed-form values", "[spectra][info_plus_noise]") {
  // c = 0.25, sigma2 = 2: threshold sqrt(c) s = 1, bulk edge s (1 + 0.5)^2 = 4.5 (exact in binary).
  CHECK(sp::info_plus_noise_threshold(0.25, 2.0) == 1.0);
  CHECK(sp::info_plus_noise_bulk_edge(0.25, 2.0) == 4.5);
  // Below the threshold the spike is swallowed by the bulk.
  CHECK(sp::info_plus_noise_spike_limit(0.5, 0.25, 2.0) == 4.5);
  // Above: (2 + 4)(0.5 + 4)/4 = 6.75.
  CHECK_THAT(sp::info_plus_noise_spike_limit(4.0, 0.25, 2.0), WithinRel(6.75, 1e-15));
  CHECK_THROWS_AS(sp::info_plus_noise_threshold(0.0, 1.0), std::logic_error);
  CHECK_THROWS_AS(sp::info_plus_noise_bulk_edge(1.0, -1.0), std::logic_error);
}

TEST_CASE("the spike limit is continuous at the threshold and increasing above it", "[spectra][info_plus_noise]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 3.0);
  const double sigma2 = GENERATE(0.2, 1.0, 7.0);
  const double threshold = sp::info_plus_noise_threshold(c, sigma2);
  const double edge = sp::info_plus_noise_bulk_edge(c, sigma2);
  // f(l) = l + (1 + c) s + c s^2/l has f'(threshold) = 0, so f(threshold (1 + e)) - edge = O(e^2) edge:
  // e = 1e-6 gives ~1e-12; tolerance 1e-11 relative (plus rounding of a 3-term sum).
  CHECK_THAT(sp::info_plus_noise_spike_limit(threshold * (1.0 + 1e-6), c, sigma2), WithinRel(edge, 1e-11));
  CHECK_THAT(sp::info_plus_noise_spike_limit(threshold, c, sigma2), WithinRel(edge, 1e-15));
  double previous = edge;
  for (double factor = 1.01; factor < 100.0; factor *= 1.3) {
    const double value = sp::info_plus_noise_spike_limit(threshold * factor, c, sigma2);
    CHECK(value > previous);
    previous = value;
  }
}

TEST_CASE("the spike inverse undoes the spike limit", "[spectra][info_plus_noise]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 3.0);
  const double sigma2 = GENERATE(0.2, 1.0, 7.0);
  const double factor = GENERATE(1.1, 2.0, 10.0, 1e3);
  const double lambda = factor * sp::info_plus_noise_threshold(c, sigma2);
  const double rho = sp::info_plus_noise_spike_limit(lambda, c, sigma2);
  // Conditioning of the inverse is |f(l)/(l f'(l))| = f/(l - c s^2/l), <= ~30 for factor >= 1.1:
  // 1e-13 relative covers it with room.
  CHECK_THAT(sp::info_plus_noise_spike_inverse(rho, c, sigma2), WithinRel(lambda, 1e-13));
  // The smaller root is c s^2 / lambda (roots multiply to c s^2), below the threshold.
  CHECK(c * sigma2 * sigma2 / lambda < sp::info_plus_noise_threshold(c, sigma2));
  CHECK_THROWS_AS(sp::info_plus_noise_spike_inverse(sp::info_plus_noise_bulk_edge(c, sigma2), c, sigma2),
                  std::logic_error);
}

TEST_CASE("a rank-one signal plus noise has its top eigenvalue near the spike limit", "[spectra][info_plus_noise][mc]") {
  // Sigma = B + W, M = 300, N = 1200 (c = 0.25), W iid N(0, s/N), B = sqrt(lambda) e_1 e_1', lambda = 4 s
  // (above the threshold 0.5 s). The outlier fluctuates by O(N^-1/2): sd ~0.19 here (measured over 200
  // seeds at N = 600: sd 0.26), so one matrix cannot decide at 5%. Mean of R = 8 replicates, agreement
  // at 5 sample SE (~4%); negative controls: the limit with c and 1/c swapped, and the bulk edge.
  const int m_rows = 300, n_cols = 1200, replicates = 8;
  const double sigma2 = 1.5, c = static_cast<double>(m_rows) / n_cols, lambda = 4.0 * sigma2;
  double sum = 0.0, sum2 = 0.0;
  for (int r = 0; r < replicates; ++r) {
    const moelab::RandomStream stream(5, moelab::StreamTag::property_test, static_cast<std::uint64_t>(r));
    Eigen::MatrixXd sigma(m_rows, n_cols);
    std::uint64_t j = 0;
    for (int col = 0; col < n_cols; ++col)
      for (int row = 0; row < m_rows; ++row) sigma(row, col) = std::sqrt(sigma2 / n_cols) * stream.normal(j++);
    sigma(0, 0) += std::sqrt(lambda);
    const double top = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sigma * sigma.transpose(), Eigen::EigenvaluesOnly)
                           .eigenvalues()
                           .maxCoeff();
    sum += top;
    sum2 += top * top;
  }
  const double mean = sum / replicates;
  const double se = std::sqrt((sum2 - replicates * mean * mean) / (replicates - 1) / replicates);
  const double limit = sp::info_plus_noise_spike_limit(lambda, c, sigma2);
  INFO("mean top eigenvalue " << mean << " +- " << se << ", limit " << limit);
  CHECK(std::abs(mean - limit) <= 5.0 * se);
  CHECK(std::abs(mean - sp::info_plus_noise_spike_limit(lambda, 1.0 / c, sigma2)) > 5.0 * se);
  CHECK(std::abs(mean - sp::info_plus_noise_bulk_edge(c, sigma2)) > 5.0 * se);
}
