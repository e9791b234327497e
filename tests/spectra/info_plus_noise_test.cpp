// Loubaton-Vallet information-plus-noise spikes (used by noisy, Thm 5 / A.5).
#include "moelab/spectra/info_plus_noise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <Eigen/Dense>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/linalg/decompositions.hpp"

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
  // The other root of (s + l)(c s + l) / l = rho is l' = c s^2 / lambda (the roots multiply to c s^2): the
  // closed form, written out at l', gives the same rho (an independent evaluation; rounding ~1e-15).
  const double other = c * sigma2 * sigma2 / lambda;
  CHECK_THAT((sigma2 + other) * (c * sigma2 + other) / other, WithinRel(rho, 1e-13));
  CHECK_THROWS_AS(sp::info_plus_noise_spike_inverse(sp::info_plus_noise_bulk_edge(c, sigma2), c, sigma2),
                  std::logic_error);
}

TEST_CASE("a rank-one signal plus noise has its top eigenvalue near the spike limit", "[spectra][info_plus_noise][mc]") {
  // Sigma = B + W, M = 300, N = 1200 (c = 0.25), W iid N(0, s/N), B = sqrt(lambda) e_1 e_1', lambda = 4 s
  // (above the threshold 0.5 s). The outlier fluctuates by O(N^-1/2): sd ~0.19 here (measured over 200
  // seeds at N = 600: sd 0.26), so one matrix cannot decide at 5%. Mean of R = 32 replicates (8 could not reject
  // the nearest wrong value below: 4.4 s.e.), agreement
  // at 5 sample SE (~4%); negative controls: the limit with c and 1/c swapped, and the bulk edge.
  const int m_rows = 300, n_cols = 1200, replicates = 32;
  const double sigma2 = 1.5, c = static_cast<double>(m_rows) / n_cols, lambda = 4.0 * sigma2;
  double sum = 0.0, sum2 = 0.0;
  for (int r = 0; r < replicates; ++r) {
    const moelab::RandomStream stream(5, moelab::StreamTag::property_test, static_cast<std::uint64_t>(r));
    Eigen::MatrixXd sigma(m_rows, n_cols);
    std::uint64_t j = 0;
    for (int col = 0; col < n_cols; ++col)
      for (int row = 0; row < m_rows; ++row) sigma(row, col) = std::sqrt(sigma2 / n_cols) * stream.normal(j++);
    sigma(0, 0) += std::sqrt(lambda);
    const double top = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Eigen::MatrixXd(sigma * sigma.transpose()), Eigen::EigenvaluesOnly)
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
  // Control at the nearest plausible wrong value: signal plus noise variance, lambda + sigma2 = 7.5 (the limit
  // without the c sigma2 (sigma2 + lambda)/lambda push of the bulk), 0.47 below the limit 7.97, ~7 s.e.
  // (The c <-> 1/c swap and the bulk edge, 77 and 49 s.e. away, could not fail.)
  CHECK(std::abs(mean - (lambda + sigma2)) > 5.0 * se);
}

TEST_CASE("singular-vector overlaps take their closed-form values and vanish at the threshold", "[spectra][info_plus_noise]") {
  // c = 0.25, sigma2 = 1.5, lambda = 3 (t = 2): left (4 - 0.25)/(2 * 2.25) = 5/6, right 3.75/(2 * 3) = 5/8.
  CHECK_THAT(sp::info_plus_noise_left_overlap(3.0, 0.25, 1.5), WithinRel(5.0 / 6.0, 1e-15));
  CHECK_THAT(sp::info_plus_noise_right_overlap(3.0, 0.25, 1.5), WithinRel(5.0 / 8.0, 1e-15));
  // Benaych-Georges & Nadakuditi's printed forms 1 - c(1 + t)/(t(t + c)), 1 - (c + t)/(t(t + 1)).
  for (const double t : {0.6, 1.0, 3.0, 20.0}) {
    const double c = 0.25;
    CHECK_THAT(sp::info_plus_noise_left_overlap(t, c, 1.0), WithinAbs(1.0 - c * (1 + t) / (t * (t + c)), 1e-15));
    CHECK_THAT(sp::info_plus_noise_right_overlap(t, c, 1.0), WithinAbs(1.0 - (c + t) / (t * (t + 1)), 1e-15));
  }
  CHECK(sp::info_plus_noise_left_overlap(0.4, 0.25, 1.0) == 0.0);
  CHECK(sp::info_plus_noise_right_overlap(0.4, 0.25, 1.0) == 0.0);
  CHECK_THROWS_AS(sp::info_plus_noise_left_overlap(-1.0, 0.25, 1.0), std::logic_error);
}

TEST_CASE("overlaps are continuous at the threshold, increasing, and exchanged by transposition", "[spectra][info_plus_noise]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 3.0);
  const double sigma2 = GENERATE(0.2, 1.0, 7.0);
  const double threshold = sp::info_plus_noise_threshold(c, sigma2);
  // Both are (t^2 - c)/... = O(e) at t = sqrt(c)(1 + e): e = 1e-9 gives < 1e-8.
  CHECK(sp::info_plus_noise_left_overlap(threshold * (1 + 1e-9), c, sigma2) < 1e-8);
  CHECK(sp::info_plus_noise_right_overlap(threshold * (1 + 1e-9), c, sigma2) < 1e-8);
  double previous_left = 0.0, previous_right = 0.0;
  for (double factor = 1.01; factor < 1e4; factor *= 1.5) {
    const double lambda = threshold * factor;
    const double left = sp::info_plus_noise_left_overlap(lambda, c, sigma2);
    const double right = sp::info_plus_noise_right_overlap(lambda, c, sigma2);
    CHECK(left > previous_left);
    CHECK(right > previous_right);
    CHECK(left < 1.0);
    CHECK(right < 1.0);
    // Sigma' = B' + W' is N x M with entries of variance sigma2 / N = (c sigma2) / M: the convention with
    // c' = 1/c, sigma2' = c sigma2, same lambda. Its left overlap is our right one (few-ulp formulas).
    CHECK_THAT(sp::info_plus_noise_left_overlap(lambda, 1.0 / c, c * sigma2), WithinRel(right, 1e-13));
    CHECK_THAT(sp::info_plus_noise_right_overlap(lambda, 1.0 / c, c * sigma2), WithinRel(left, 1e-13));
    // The transposed spike limit is c times ours (Sigma' Sigma'^T has the same eigenvalues, here in units
    // of the transposed convention the limit is (s' + l)(c' s' + l)/l = (c s + l)(s + l)/l: identical).
    CHECK_THAT(sp::info_plus_noise_spike_limit(lambda, 1.0 / c, c * sigma2),
               WithinRel(sp::info_plus_noise_spike_limit(lambda, c, sigma2), 1e-13));
    previous_left = left;
    previous_right = right;
  }
}

namespace {

// Mean (and SE) over replicates of the squared cosines between the top singular vectors of
// Sigma = B + W (M x N, W iid N(0, sigma2/N), B = sqrt(lambda) e_1 e_1') and e_1 on each side.
struct OverlapSample {
  double left = 0.0, left_se = 0.0, right = 0.0, right_se = 0.0;
};

OverlapSample simulate_overlaps(int M, int N, double lambda, double sigma2, int replicates, std::uint64_t seed) {
  double ls = 0.0, ls2 = 0.0, rs = 0.0, rs2 = 0.0;
  for (int r = 0; r < replicates; ++r) {
    const moelab::RandomStream stream(seed, moelab::StreamTag::property_test, static_cast<std::uint64_t>(r));
    Eigen::MatrixXd sigma(M, N);
    std::uint64_t j = 0;
    for (int col = 0; col < N; ++col)
      for (int row = 0; row < M; ++row) sigma(row, col) = std::sqrt(sigma2 / N) * stream.normal(j++);
    sigma(0, 0) += std::sqrt(lambda);
    // Top singular pair from the smaller Gram matrix; the other vector is Sigma' u / |Sigma' u| (or Sigma v).
    Eigen::VectorXd u, v;
    if (M <= N) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(sigma * sigma.transpose()));
      u = eig.eigenvectors().col(M - 1);
      v = (sigma.transpose() * u).normalized();
    } else {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(sigma.transpose() * sigma));
      v = eig.eigenvectors().col(N - 1);
      u = (sigma * v).normalized();
    }
    const double l = u(0) * u(0), rr = v(0) * v(0);
    ls += l;
    ls2 += l * l;
    rs += rr;
    rs2 += rr * rr;
  }
  const double R = replicates;
  OverlapSample out;
  out.left = ls / R;
  out.right = rs / R;
  out.left_se = std::sqrt(std::max(ls2 - R * out.left * out.left, 0.0) / (R - 1) / R);
  out.right_se = std::sqrt(std::max(rs2 - R * out.right * out.right, 0.0) / (R - 1) / R);
  return out;
}

}  // namespace

TEST_CASE("simulated singular-vector overlaps match the left and right limits, not each other's", "[spectra][info_plus_noise][mc]") {
  // Two shapes: c = 0.25 (M = 200, N = 800, t = lambda/sigma2 = 2) and c = 2 (M = 600, N = 300, t = 4), both
  // above sqrt(c); sigma2 = 1.5. Squared cosines fluctuate by O(N^-1/2) per matrix; R = 12 replicates,
  // tolerance 4 SE + 2/min(M, N) (their O(1/N) finite-size bias, measured below 1/min(M, N) here).
  // Negative control: the other side's formula (c = 0.25: 5/6 vs 5/8; c = 2: 7/12 vs 7/10).
  struct Shape {
    int M, N;
    double t;
  };
  const Shape shape = GENERATE(Shape{200, 800, 2.0}, Shape{600, 300, 4.0});
  const double sigma2 = 1.5, lambda = shape.t * sigma2, c = double(shape.M) / shape.N;
  const OverlapSample s = simulate_overlaps(shape.M, shape.N, lambda, sigma2, 12, 31);
  const double left = sp::info_plus_noise_left_overlap(lambda, c, sigma2);
  const double right = sp::info_plus_noise_right_overlap(lambda, c, sigma2);
  const double bias = 2.0 / std::min(shape.M, shape.N);
  INFO("c = " << c << ": left " << s.left << " +- " << s.left_se << " (limit " << left << "), right " << s.right << " +- "
              << s.right_se << " (limit " << right << ")");
  CHECK(std::abs(s.left - left) <= 4.0 * s.left_se + bias);
  CHECK(std::abs(s.right - right) <= 4.0 * s.right_se + bias);
  CHECK(std::abs(s.left - right) > 4.0 * s.left_se + bias);
  CHECK(std::abs(s.right - left) > 4.0 * s.right_se + bias);
}

TEST_CASE("spike map and overlaps match mpmath up to lambda = 1e308, no overflow", "[spectra][info_plus_noise]") {
  // tests/data/spectra/gen_info_plus_noise_reference.py: the closed forms at 40 digits. `moelab spectrum ipn
  // --lambda 1e300 --c 0.5` printed inf: the product (sigma2 + lambda)(c sigma2 + lambda) overflowed.
  std::ifstream in(std::string(MOELAB_SOURCE_DIR) + "/tests/data/spectra/info_plus_noise_reference.csv");
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const moelab::CsvTable table = moelab::parse_csv(buffer.str());
  REQUIRE(table.columns.size() == 7);
  const auto value = [&](const auto& row, std::size_t j) { return std::stod(std::get<std::string>(row[j])); };
  double worst[4] = {0.0, 0.0, 0.0, 0.0};
  for (const auto& row : table.rows) {
    const double lambda = value(row, 0), c = value(row, 1), sigma2 = value(row, 2);
    const double got[4] = {sp::info_plus_noise_spike_limit(lambda, c, sigma2),
                           sp::info_plus_noise_spike_inverse(value(row, 3), c, sigma2),
                           sp::info_plus_noise_left_overlap(lambda, c, sigma2),
                           sp::info_plus_noise_right_overlap(lambda, c, sigma2)};
    // The inverse forms b = rho - sigma2 - c sigma2 first: where c sigma2 >> lambda that subtraction cancels by the
    // factor rho / b (up to ~500 in this table), which the comparison divides out.
    const double rho = value(row, 3);
    const double cancellation = rho / (rho - sigma2 - c * sigma2);
    for (int k = 0; k < 4; ++k) {
      INFO("lambda " << lambda << " c " << c << " sigma2 " << sigma2 << " column " << k + 3);
      REQUIRE(std::isfinite(got[k]));
      const double rel = std::abs(got[k] / value(row, 3 + k) - 1.0);
      worst[k] = std::max(worst[k], k == 1 ? rel / cancellation : rel);
    }
  }
  std::printf("info_plus_noise vs mpmath (%zu rows): max rel limit %.2e, inverse (per unit cancellation) %.2e, "
              "left overlap %.2e, right %.2e\n",
              table.rows.size(), worst[0], worst[1], worst[2], worst[3]);
  // A handful of roundings each, all factors positive (no cancellation at these points, far above the
  // threshold): 8 eps (the inverse: 8 eps per unit of its cancellation factor).
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  for (double w : worst) CHECK(w < 8 * kEps);
  CHECK_THAT(sp::info_plus_noise_spike_limit(1e300, 0.5, 1.0), WithinRel(1e300, kEps));
}
