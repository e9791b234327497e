// Random-matrix ensembles (lib/moelab/spectra/ensembles.hpp): entry laws, the gamma sampler, and
// the tridiagonal Laguerre model against the full Wishart model.
#include "moelab/spectra/ensembles.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/gamma.hpp>
#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/stats.hpp"

using Catch::Matchers::WithinAbs;
namespace sp = moelab::spectra;
using moelab::StreamTag;
using moelab::Welford;

TEST_CASE("entry laws are standardised", "[spectra][ensembles]") {
  const auto law = GENERATE(sp::EntryLaw::gaussian, sp::EntryLaw::rademacher, sp::EntryLaw::uniform);
  const Eigen::MatrixXd X = sp::iid_matrix(200, 500, law, 11, StreamTag::property_test, 0);
  Welford w;
  for (Eigen::Index j = 0; j < X.size(); ++j) w.add(X.data()[j]);
  // 1e5 entries: SE of the mean 3.2e-3; SE of the variance sqrt((m4 - 1) / n) <= 4.5e-3 (m4 <= 3).
  // Tolerance 5 SE (deterministic with the fixed seed; 5 SE keeps it seed-robust).
  CHECK_THAT(w.mean(), WithinAbs(0.0, 5 * 3.2e-3));
  CHECK_THAT(w.variance(), WithinAbs(1.0, 5 * 4.5e-3));
  // Control at the nearest wrong value that matters: a law 5 % off unit variance (11 SE) is rejected.
  CHECK_FALSE(std::abs(w.variance() - 1.05) <= 5 * 4.5e-3);
  CHECK(sp::entry_law_from_name(sp::entry_law_name(law)) == law);
}

TEST_CASE("Gaussian entries are the stream's normals in column-major order", "[spectra][ensembles]") {
  // The noisy Thm 5 claims rely on this layout: entry (i, j) = normal(i + M j), from the bulk generator
  // (fill_normal_cpu), which equals RandomStream::normal up to rounding: 8 ulp of a radius <= 9 is
  // 1.6e-14 (tests/linalg/normal_bulk_test.cpp).
  const Eigen::MatrixXd X = sp::iid_matrix(7, 5, sp::EntryLaw::gaussian, 3, StreamTag::design_noise, 9);
  const moelab::RandomStream rs(3, StreamTag::design_noise, 9);
  std::vector<double> z(35);
  moelab::fill_normal_cpu(rs, 0, z.size(), z.data());
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 7; ++i) {
      CHECK(X(i, j) == z[static_cast<std::size_t>(i + 7 * j)]);
      CHECK_THAT(X(i, j), WithinAbs(rs.normal(static_cast<std::uint64_t>(i + 7 * j)), 2e-14));
    }
}

TEST_CASE("gamma variates have the Gamma(shape, 1) law", "[spectra][ensembles]") {
  const double shape = GENERATE(0.5, 1.0, 3.7, 50.0);
  constexpr int n = 20000;
  std::vector<double> g(n);
  for (int i = 0; i < n; ++i) g[static_cast<std::size_t>(i)] = sp::gamma_variate(shape, 5, StreamTag::property_test, 1, static_cast<std::uint64_t>(i));
  Welford w;
  for (double x : g) w.add(x);
  // Mean shape and variance shape; SE of the mean sqrt(shape / n), of the variance
  // sqrt((m4 - var^2) / n) = shape sqrt((2 + 6 / shape) / n). 5 SE.
  CHECK_THAT(w.mean(), WithinAbs(shape, 5 * std::sqrt(shape / n)));
  CHECK_THAT(w.variance(), WithinAbs(shape, 5 * shape * std::sqrt((2 + 6 / shape) / n)));
  std::sort(g.begin(), g.end());
  const boost::math::gamma_distribution<double> law(shape, 1.0);
  const double d = moelab::ks_statistic(g, [&](double x) { return boost::math::cdf(law, x); });
  // A correct sampler gives p-values uniform on (0, 1); 1e-3 fails a correct one once in 1000 seeds.
  CHECK(moelab::ks_pvalue(d, g.size()) > 1e-3);
  // Negative control: the same draws scaled by 1.05 are rejected (sup CDF distance ~0.02 * sqrt(shape)
  // against a critical D of 0.0136 at n = 2e4); checked for the shapes where that distance is large.
  if (shape >= 3.0) {
    const double d_wrong = moelab::ks_statistic(g, [&](double x) { return boost::math::cdf(law, x / 1.05); });
    CHECK(moelab::ks_pvalue(d_wrong, g.size()) < 1e-3);
  }
}

TEST_CASE("the tridiagonal Laguerre model has the Wishart trace law and largest eigenvalue", "[spectra][ensembles]") {
  constexpr int M = 30, N = 60, T = 2000;
  Welford trace_tri, top_tri, top_full;
  for (int t = 0; t < T; ++t) {
    const Eigen::VectorXd tri = sp::laguerre_tridiagonal_eigenvalues(M, N, 1.0, 21, static_cast<std::uint64_t>(t));
    trace_tri.add(tri.sum());
    top_tri.add(tri(M - 1));
    // Full model: X X' with X M x N standard normal (sigma2 = N undoes the 1/N of S).
    const Eigen::VectorXd full = sp::sample_covariance_eigenvalues(M, N, {}, N, sp::EntryLaw::gaussian, 22, static_cast<std::uint64_t>(t));
    top_full.add(full(M - 1));
  }
  // tr(X X') ~ chi^2_{M N}: mean M N, variance 2 M N (exact). 5 SE.
  CHECK_THAT(trace_tri.mean(), WithinAbs(M * N, 5 * std::sqrt(2.0 * M * N / T)));
  CHECK_THAT(trace_tri.variance(), WithinAbs(2.0 * M * N, 5 * 2.0 * M * N * std::sqrt(2.0 / T)));
  // Controls at the nearest wrong values: one degree of freedom lost per row (chi^2_{M (N - 1)}, mean 30 below,
  // 22 SE) and the beta = 2 normalisation of the variance (M N, 16 SE below).
  CHECK_FALSE(std::abs(trace_tri.mean() - M * (N - 1.0)) <= 5 * std::sqrt(2.0 * M * N / T));
  CHECK_FALSE(std::abs(trace_tri.variance() - 1.0 * M * N) <= 5 * 2.0 * M * N * std::sqrt(2.0 / T));
  // Same law of the largest eigenvalue: two-sample z on the means (independent streams), |z| < 4.
  const double z = (top_tri.mean() - top_full.mean()) /
                   std::sqrt(top_tri.variance() / T + top_full.variance() / T);
  CHECK(std::abs(z) < 4.0);
  // Negative control: the beta = 2 model (unnormalised, E|x|^2 = 2) has twice the trace; its largest
  // eigenvalue sits far from the real Wishart one (z well beyond 4).
  Welford top_beta2;
  for (int t = 0; t < 200; ++t) top_beta2.add(sp::laguerre_tridiagonal_eigenvalues(M, N, 2.0, 23, static_cast<std::uint64_t>(t))(M - 1));
  const double z2 = (top_beta2.mean() - top_full.mean()) / std::sqrt(top_beta2.variance() / 200 + top_full.variance() / T);
  CHECK(z2 > 10.0);
}

TEST_CASE("spiked sample covariance has the exact expected trace", "[spectra][ensembles]") {
  constexpr int M = 50, N = 80, T = 400;
  const std::vector<double> ell{9.0, 4.0};
  const double sigma2 = 1.5;
  Welford trace;
  for (int t = 0; t < T; ++t) trace.add(sp::sample_covariance_eigenvalues(M, N, ell, sigma2, sp::EntryLaw::uniform, 4, static_cast<std::uint64_t>(t)).sum());
  // E tr S = sigma2 tr(T) = sigma2 (9 + 4 + 48) for any standardised law (uniform here: with
  // Rademacher entries the trace is not random at all). 5 SE from the sample.
  CHECK_THAT(trace.mean(), WithinAbs(sigma2 * 61.0, 5 * trace.standard_error()));
  // Control at the nearest wrong value: the spikes added on top of the unit bulk (tr = 9 + 4 + 50 = 63) is rejected.
  INFO("trace " << trace.mean() << " +- " << trace.standard_error());
  CHECK_FALSE(std::abs(trace.mean() - sigma2 * 63.0) <= 5 * trace.standard_error());
  // M > N: exactly M - N zero eigenvalues, ascending order.
  const Eigen::VectorXd ev = sp::sample_covariance_eigenvalues(90, 40, {}, 1.0, sp::EntryLaw::gaussian, 4, 0);
  CHECK(ev.head(50).cwiseAbs().maxCoeff() == 0.0);
  CHECK(ev(50) > 0.0);
  CHECK(std::is_sorted(ev.data(), ev.data() + ev.size()));
}

TEST_CASE("Sturm bisection finds the largest eigenvalue of the tridiagonal model", "[spectra][ensembles]") {
  const int M = GENERATE(1, 2, 17, 120);
  const double beta = GENERATE(1.0, 2.0, 4.0);
  for (std::uint64_t t = 0; t < 5; ++t) {
    const Eigen::VectorXd all = sp::laguerre_tridiagonal_eigenvalues(M, M + 7, beta, 8, t);
    // Both are backward stable on the same tridiagonal matrix: agreement to ~1e-13 relative.
    CHECK_THAT(sp::laguerre_tridiagonal_largest(M, M + 7, beta, 8, t), Catch::Matchers::WithinRel(all(M - 1), 1e-12));
  }
}
