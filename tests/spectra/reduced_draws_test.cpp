// The reduced Gaussian draws of spectra/ensembles.hpp (Sampler::reduced: the Bartlett draw of the
// Wishart matrix, the block-bidiagonal band model of the information-plus-noise matrix) against the
// full draws (Sampler::entries, every entry): the same law of the eigenvalues. Each comparison has a
// control at the nearest wrong law, the same reduced draw with every chi one degree of freedom off,
// which the same tests must reject.
#include "moelab/spectra/ensembles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/stats.hpp"

namespace sp = moelab::spectra;

namespace {

/// Two-sample Kolmogorov-Smirnov statistic sup |F_a - F_b| and its asymptotic p-value at the
/// effective size n_a n_b / (n_a + n_b) (Smirnov 1939; continuous laws, so no ties).
double ks_two_sample_p(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / a.size() - static_cast<double>(j) / b.size()));
  }
  const auto n_eff = static_cast<std::size_t>(static_cast<double>(a.size()) * b.size() / (a.size() + b.size()));
  return moelab::ks_pvalue(d, n_eff);
}

struct Sample {
  std::vector<double> trace, largest, smallest;
};

Sample collect(int trials, const std::function<Eigen::VectorXd(std::uint64_t)>& eig) {
  Sample s;
  for (int t = 0; t < trials; ++t) {
    const Eigen::VectorXd ev = eig(static_cast<std::uint64_t>(t));
    s.trace.push_back(ev.sum());
    s.largest.push_back(ev.maxCoeff());
    s.smallest.push_back(ev.minCoeff());
  }
  return s;
}

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("Bartlett draw of the sample covariance: same eigenvalue law as drawing every entry",
          "[spectra][ensembles][reduced]") {
  // S = (sigma2 / N) T^(1/2) X X' T^(1/2), M = 5, N = 9, T = diag(4, 1, 1, 1, 1), sigma2 = 1.3.
  // Exact: E tr S = sigma2 tr T = 10.4; Var tr S = (2 / N) sigma2^2 sum t_i^2 = 7.51 (sd 2.74), SE of
  // the mean over K = 3000 draws 0.050. The control (every chi with one more degree of freedom) adds
  // sigma2 tr T / N = 1.156 to E tr S: 23 SE. Accept within 4 SE, reject the control beyond 4 SE.
  const int M = 5, N = 9, K = 3000;
  const std::vector<double> ell{4.0};
  const double sigma2 = 1.3;
  const double expected = sigma2 * (4.0 + (M - 1)), se = std::sqrt(2.0 / N * sigma2 * sigma2 * (16.0 + (M - 1)) / K);
  const auto reduced = collect(K, [&](std::uint64_t t) {
    return sp::sample_covariance_eigenvalues(M, N, ell, sigma2, sp::EntryLaw::gaussian, 11, t);
  });
  const auto entries = collect(K, [&](std::uint64_t t) {
    return sp::sample_covariance_eigenvalues(M, N, ell, sigma2, sp::EntryLaw::gaussian, 12, t, sp::Sampler::entries);
  });
  // The default is the Bartlett draw, bit for bit.
  CHECK(sp::sample_covariance_eigenvalues(M, N, ell, sigma2, sp::EntryLaw::gaussian, 11, 3) ==
        sp::detail::bartlett_covariance_eigenvalues(M, N, ell, sigma2, 11, 3, 0));
  CHECK(std::abs(mean(reduced.trace) - expected) <= 4 * se);
  CHECK(std::abs(mean(entries.trace) - expected) <= 4 * se);
  // Whole laws of the trace, largest and smallest eigenvalue: two-sample KS (K = 3000 each; p > 1e-3).
  CHECK(ks_two_sample_p(reduced.trace, entries.trace) > 1e-3);
  CHECK(ks_two_sample_p(reduced.largest, entries.largest) > 1e-3);
  CHECK(ks_two_sample_p(reduced.smallest, entries.smallest) > 1e-3);
  for (const int shift : {+1, -1}) {
    const auto wrong = collect(K, [&](std::uint64_t t) {
      return sp::detail::bartlett_covariance_eigenvalues(M, N, ell, sigma2, 11, t, shift);
    });
    INFO("control: chi degrees of freedom shifted by " << shift);
    CHECK_FALSE(std::abs(mean(wrong.trace) - expected) <= 4 * se);
    CHECK(ks_two_sample_p(wrong.trace, entries.trace) < 1e-3);
  }
}

TEST_CASE("band model of the information-plus-noise spectrum: same eigenvalue law as drawing every entry",
          "[spectra][ensembles][reduced]") {
  // Sigma = B + W, W iid N(0, sigma2 / N), B with squared singular values (4, 2): r = 2, band b = 2.
  // Both orientations (M < N: Sigma Sigma'; M > N: the band model of Sigma'). Exact:
  // E tr Sigma Sigma' = sum sv2 + M sigma2 = 6 + M; Var = 4 s^2 sum sv2 + 2 M N s^4 (s^2 = sigma2 / N).
  // The control (every chi one degree of freedom off) moves E tr by s^2 times the number of chi
  // variates (2 m - 2 here): 22 / 30 = 0.73 (M < N), 22 / 12 = 1.8 (M > N), at least 30 SE.
  const auto dims = GENERATE(std::pair{12, 30}, std::pair{30, 12});
  const int M = dims.first, N = dims.second, K = 3000;
  Eigen::VectorXd sv2(2);
  sv2 << 4.0, 2.0;
  const double sigma2 = 1.0, s2 = sigma2 / N;
  const double expected = 6.0 + M * sigma2, se = std::sqrt((4 * s2 * 6.0 + 2.0 * M * N * s2 * s2) / K);
  const auto reduced = collect(K, [&](std::uint64_t t) {
    return sp::info_plus_noise_eigenvalues(M, N, sv2, sigma2, sp::EntryLaw::gaussian, 21, t);
  });
  const auto entries = collect(K, [&](std::uint64_t t) {
    return sp::info_plus_noise_eigenvalues(M, N, sv2, sigma2, sp::EntryLaw::gaussian, 22, t, sp::Sampler::entries);
  });
  INFO("M " << M << " N " << N);
  const Eigen::VectorXd one = sp::info_plus_noise_eigenvalues(M, N, sv2, sigma2, sp::EntryLaw::gaussian, 21, 3);
  CHECK(one.size() == std::min(M, N));
  CHECK(std::is_sorted(one.data(), one.data() + one.size(), std::greater<>()));  // descending
  CHECK(one == sp::detail::banded_info_plus_noise_eigenvalues(M, N, sv2, sigma2, 21, 3, 0).reverse());
  CHECK(std::abs(mean(reduced.trace) - expected) <= 4 * se);
  CHECK(std::abs(mean(entries.trace) - expected) <= 4 * se);
  CHECK(ks_two_sample_p(reduced.trace, entries.trace) > 1e-3);
  CHECK(ks_two_sample_p(reduced.largest, entries.largest) > 1e-3);
  CHECK(ks_two_sample_p(reduced.smallest, entries.smallest) > 1e-3);
  for (const int shift : {+1, -1}) {
    const auto wrong = collect(K, [&](std::uint64_t t) {
      return sp::detail::banded_info_plus_noise_eigenvalues(M, N, sv2, sigma2, 21, t, shift);
    });
    INFO("control: chi degrees of freedom shifted by " << shift);
    CHECK_FALSE(std::abs(mean(wrong.trace) - expected) <= 4 * se);
    CHECK(ks_two_sample_p(wrong.trace, entries.trace) < 1e-3);
  }
}

TEST_CASE("band model with no signal is the Dumitriu-Edelman bidiagonal model", "[spectra][ensembles][reduced]") {
  // r = 0: b = 1, K lower bidiagonal with chi_{n - i} and chi_{m - 1 - i}: E tr = M sigma2 exactly;
  // the law against every entry drawn by KS of the largest eigenvalue (the Tracy-Widom edge).
  const int M = 20, N = 50, K = 3000;
  const Eigen::VectorXd none(0);
  const auto reduced = collect(K, [&](std::uint64_t t) {
    return sp::info_plus_noise_eigenvalues(M, N, none, 1.0, sp::EntryLaw::gaussian, 31, t);
  });
  const auto entries = collect(K, [&](std::uint64_t t) {
    return sp::info_plus_noise_eigenvalues(M, N, none, 1.0, sp::EntryLaw::gaussian, 32, t, sp::Sampler::entries);
  });
  const double se = std::sqrt(2.0 * M / N / K);  // Var tr = 2 M N / N^2
  CHECK(std::abs(mean(reduced.trace) - M) <= 4 * se);
  CHECK(ks_two_sample_p(reduced.largest, entries.largest) > 1e-3);
  CHECK(ks_two_sample_p(reduced.smallest, entries.smallest) > 1e-3);
  // Controls: the same bidiagonal model with every chi degree of freedom shifted by one (the nearest
  // wrong form: an off-by-one in the Dumitriu-Edelman indices) must fail the same KS tests against the
  // entries, and its trace the same 4 SE rule.
  for (const int shift : {+1, -1}) {
    const auto wrong = collect(K, [&](std::uint64_t t) {
      return sp::detail::banded_info_plus_noise_eigenvalues(M, N, none, 1.0, 31, t, shift);
    });
    INFO("control: chi degrees of freedom shifted by " << shift);
    CHECK_FALSE(std::abs(mean(wrong.trace) - M) <= 4 * se);
    CHECK(ks_two_sample_p(wrong.largest, entries.largest) < 1e-3);
  }
}
