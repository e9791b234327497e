#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include "moelab/core/distributions.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/linalg/min_norm.hpp"

using namespace moelab;
using Catch::Matchers::WithinAbs;

namespace {
Eigen::MatrixXd gaussian(int n, int p, std::uint64_t seed) {
  const RandomStream s(seed, StreamTag::property_test, 0);
  Eigen::MatrixXd X(n, p);
  s.fill_normal(0, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(p), X.data());
  return X;
}
// Reference: the pseudoinverse from a full SVD.
Eigen::VectorXd svd_min_norm(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(X, Eigen::ComputeThinU | Eigen::ComputeThinV);
  svd.setThreshold(1e-12);
  return svd.solve(y);
}
}  // namespace

TEST_CASE("min-norm solve equals the SVD pseudoinverse on both sides of n = p", "[linalg]") {
  const int p = 40;
  const int n = GENERATE(10, 39, 40, 41, 200);
  const Eigen::MatrixXd X = gaussian(n, p, 1000 + static_cast<std::uint64_t>(n));
  const Eigen::VectorXd y = gaussian(n, 1, 7).col(0);
  const auto sol = min_norm_solve(X, y);
  const Eigen::VectorXd ref = svd_min_norm(X, y);
  // Relative error bound ~ cond(X)^2 eps for the Gram path; Gaussian 40-column matrices near n = p have
  // cond up to ~1e3, so 1e-6 relative is a generous but meaningful bound (a wrong solution is O(1) off).
  CHECK((sol.beta - ref).norm() <= 1e-6 * ref.norm());
}

TEST_CASE("an exactly rank-deficient design falls back to the orthogonal decomposition", "[linalg]") {
  Eigen::MatrixXd X = gaussian(50, 10, 3);
  X.col(9) = X.col(0);  // duplicate column: X'X singular
  const Eigen::VectorXd y = gaussian(50, 1, 4).col(0);
  const auto sol = min_norm_solve(X, y);
  CHECK(sol.status == SolveStatus::orthogonal);
  const Eigen::VectorXd ref = svd_min_norm(X, y);
  CHECK((sol.beta - ref).norm() <= 1e-8 * ref.norm());
  // Minimum norm: the weight on the duplicated column is split evenly.
  CHECK_THAT(sol.beta(0) - sol.beta(9), WithinAbs(0.0, 1e-8));
}

TEST_CASE("interpolation: the under-determined solution fits the data exactly", "[linalg]") {
  const Eigen::MatrixXd X = gaussian(20, 60, 11);
  const Eigen::VectorXd y = gaussian(20, 1, 12).col(0);
  const auto sol = min_norm_solve(X, y);
  CHECK(sol.status == SolveStatus::cholesky);
  CHECK((X * sol.beta - y).norm() <= 1e-10 * y.norm());
}
