// Empirical Rademacher complexity (Definition 2, Eq. 4): Gray-code enumeration against brute force
// and hand values, Monte-Carlo against enumeration, Massart and Jensen bounds, the linear class's
// closed supremum against a search over w, and gated vs constant convex combinations (Lemma 10).
#include "moelab/bounds/rademacher.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace rademacher_test {

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace mb = moelab::bounds;
using moelab::RandomStream;
using moelab::StreamTag;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

Eigen::MatrixXd random_matrix(int rows, int cols, std::uint64_t trial, StreamTag tag = StreamTag::property_test) {
  const RandomStream r(2024, tag, trial);
  Eigen::MatrixXd a(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) a(i, j) = r.normal(static_cast<std::uint64_t>(i) * cols + j);
  return a;
}

// Brute force: every sign vector, every function, straight sums.
double brute_force_rademacher(const Eigen::MatrixXd& values) {
  const int m = static_cast<int>(values.cols());
  double total = 0.0;
  for (std::uint64_t code = 0; code < (std::uint64_t{1} << m); ++code) {
    double best = -std::numeric_limits<double>::infinity();
    for (int f = 0; f < values.rows(); ++f) {
      double s = 0.0;
      for (int i = 0; i < m; ++i) s += ((code >> i) & 1u ? -1.0 : 1.0) * values(f, i);
      best = std::max(best, s);
    }
    total += best;
  }
  return total / std::ldexp(1.0, m) / m;
}

}  // namespace

TEST_CASE("Exact finite-class Rademacher complexity equals brute force and hand values", "[bounds]") {
  // One function: E sum sigma_i f_i = 0. {f, -f}: E|sum sigma_i f_i| / m; for f = 1 and m = 2: (2 + 0 + 0 + 2)/4/2.
  Eigen::MatrixXd one = Eigen::MatrixXd::Ones(1, 5);
  REQUIRE_THAT(mb::finite_class_rademacher(one), WithinAbs(0.0, 8 * kEps));
  Eigen::MatrixXd pm(2, 2);
  pm << 1, 1, -1, -1;
  REQUIRE_THAT(mb::finite_class_rademacher(pm), WithinRel(0.5, 4 * kEps));
  auto m = GENERATE(1, 3, 7, 11, 13);
  auto trial = GENERATE(0u, 1u, 2u);
  const Eigen::MatrixXd values = random_matrix(6, m, 100 * m + trial);
  // Both sum 2^m maxima of sums of m terms of size ~3: relative rounding ~ m eps per term.
  REQUIRE_THAT(mb::finite_class_rademacher(values), WithinAbs(brute_force_rademacher(values), 64 * m * kEps));
  REQUIRE_THAT(mb::rademacher_exact(m, mb::finite_class_supremum(values)),
               WithinAbs(brute_force_rademacher(values), 64 * m * kEps));
}

TEST_CASE("Massart's bound dominates the exact complexity of random finite classes", "[bounds]") {
  auto K = GENERATE(2, 5, 40);
  auto trial = GENERATE(0u, 1u, 2u, 3u);
  const Eigen::MatrixXd values = random_matrix(K, 12, 1000 * K + trial);
  REQUIRE(mb::finite_class_rademacher(values) <= mb::massart_bound(values));
}

TEST_CASE("Monte-Carlo Rademacher complexity agrees with the enumeration", "[bounds]") {
  const Eigen::MatrixXd values = random_matrix(8, 14, 7);
  const double exact = mb::finite_class_rademacher(values);
  const RandomStream signs(11, StreamTag::property_test, 1);
  const auto est = mb::finite_class_rademacher_mc(values, 40000, signs);
  // MC: 5 standard errors (N = 40000 sign draws): a false failure has probability < 1e-6.
  REQUIRE_THAT(est.mean, WithinAbs(exact, 5 * est.standard_error));
  REQUIRE(est.lower <= exact);
  REQUIRE(exact <= est.upper + 2 * est.standard_error);
  // Negative control: the estimate rejects a value 20% off (> 5 standard errors away at this N).
  REQUIRE(std::abs(est.mean - 1.2 * exact) > 5 * est.standard_error);
}

TEST_CASE("Linear class: closed supremum B ||sum sigma_i x_i|| matches a search over ||w|| <= B", "[bounds]") {
  const Eigen::MatrixXd points = random_matrix(2, 6, 3);
  const double B = 1.7;
  // Search w on a 20000-point grid of the circle of radius B (the supremum of a linear function over
  // the ball is on the sphere): the grid misses the maximum by a factor cos(pi / 20000) >= 1 - 1.3e-8.
  double grid_total = 0.0;
  for (std::uint64_t code = 0; code < 64; ++code) {
    Eigen::Vector2d v = Eigen::Vector2d::Zero();
    for (int i = 0; i < 6; ++i) v += ((code >> i) & 1u ? -1.0 : 1.0) * points.col(i);
    double best = -1e300;
    for (int g = 0; g < 20000; ++g) {
      const double a = 2 * M_PI * g / 20000;
      best = std::max(best, B * (std::cos(a) * v(0) + std::sin(a) * v(1)));
    }
    grid_total += best;
  }
  const double exact = mb::linear_class_rademacher(points, B);
  REQUIRE_THAT(exact, WithinRel(grid_total / 64 / 6, 2e-8));
  REQUIRE(exact <= mb::linear_class_rademacher_bound(points, B));
  // Monte-Carlo with 20000 draws: 5 standard errors.
  const auto est = mb::linear_class_rademacher_mc(points, B, 20000, RandomStream(5, StreamTag::property_test, 2));
  REQUIRE_THAT(est.mean, WithinAbs(exact, 5 * est.standard_error));
  // Control at the nearest plausible wrong value: Jensen's bound B sqrt(sum ||x_i||^2) / m (what the
  // complexity is often replaced by; equal only for orthogonal points) is rejected.
  INFO("MC " << est.mean << " +- " << est.standard_error << ", exact " << exact << ", Jensen "
             << mb::linear_class_rademacher_bound(points, B));
  REQUIRE(std::abs(est.mean - mb::linear_class_rademacher_bound(points, B)) > 5 * est.standard_error);
}

TEST_CASE("Linear class in high dimension: exact complexity approaches Jensen's bound", "[bounds]") {
  // Orthogonal points (d = m, x_i = e_i): ||sum sigma_i e_i|| = sqrt(m) for every sigma, so R = B sqrt(m)/m
  // equals the Jensen bound exactly.
  const Eigen::MatrixXd eye = Eigen::MatrixXd::Identity(9, 9);
  REQUIRE_THAT(mb::linear_class_rademacher(eye, 2.0), WithinRel(2.0 * 3.0 / 9.0, 64 * kEps));
  REQUIRE_THAT(mb::linear_class_rademacher_bound(eye, 2.0), WithinRel(2.0 * 3.0 / 9.0, 4 * kEps));
}

TEST_CASE("Lemma 10: constant convex combinations have R(H), x-dependent gates exceed it", "[bounds]") {
  // Expert class: 4 random functions on m = 10 points; T = 3 experts.
  const int m = 10, T = 3;
  const Eigen::MatrixXd experts = random_matrix(4, m, 42);
  const double r_h = mb::finite_class_rademacher(experts);
  // Constant gates: the 3 vertices and 20 random interior points of the simplex.
  std::vector<Eigen::MatrixXd> constant;
  const RandomStream u(9, StreamTag::property_test, 0);
  for (int g = 0; g < 23; ++g) {
    Eigen::VectorXd lambda = Eigen::VectorXd::Zero(T);
    if (g < T) {
      lambda(g) = 1.0;
    } else {
      for (int j = 0; j < T; ++j) lambda(j) = -std::log(u.uniform(g * T + j));  // Dirichlet(1, 1, 1)
      lambda /= lambda.sum();
    }
    constant.push_back(lambda.replicate(1, m));
  }
  // Eq. 42-45: the supremum over the simplex sits at a vertex, so R(conv H) = R(H) exactly.
  REQUIRE_THAT(mb::rademacher_exact(m, mb::gated_class_supremum(experts, constant)), WithinAbs(r_h, 64 * m * kEps));
  // A fixed partition gate (expert i mod 3 at point i) is a convex combination at every point, yet its
  // class is the piecewise choice of experts: strictly richer than H (the step Eq. 24 -> 25 misses).
  Eigen::MatrixXd partition = Eigen::MatrixXd::Zero(T, m);
  for (int i = 0; i < m; ++i) partition(i % T, i) = 1.0;
  const double r_gated = mb::rademacher_exact(m, mb::gated_class_supremum(experts, {partition}));
  REQUIRE(r_gated > r_h * 1.05);
}

}  // namespace rademacher_test
