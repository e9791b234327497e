// Property tests of the Bayes-optimal estimators (noisy, Eq. 3) against the risk functional (Eq. 4).
#include "moelab/noisy/bayes.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/risk.hpp"
#include "noisy/random_model.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using moelab::noisy::bayes_dense_estimator;
using moelab::noisy::bayes_sparse_estimator;
using moelab::noisy::SparseEstimator;

namespace {

double norm(const SparseEstimator& b) {
  double n2 = 0.0;
  for (const auto& v : b) n2 += v.squaredNorm();
  return std::sqrt(n2);
}

SparseEstimator perturbed(const SparseEstimator& b, moelab::test::Draws& draws, double scale) {
  SparseEstimator out = b;
  for (auto& v : out) v += scale * draws.normal_vector(static_cast<int>(v.size()));
  return out;
}

}  // namespace

TEST_CASE("the dense Bayes estimator of a one-dimensional block matches p lambda / (p lambda + sigma2) beta",
          "[noisy][bayes]") {
  moelab::noisy::Model m;
  m.sigma = {Eigen::MatrixXd::Constant(1, 1, 3.0), Eigen::MatrixXd::Constant(1, 1, 0.5)};
  m.p = {0.25, 0.75};
  m.sigma2 = 2.0;
  m.beta_star = {Eigen::VectorXd::Constant(1, 1.5), Eigen::VectorXd::Constant(1, -2.0)};
  const Eigen::VectorXd dense = bayes_dense_estimator(m);
  const SparseEstimator sparse = bayes_sparse_estimator(m);
  // 1e-15 relative: one division of exactly representable inputs (a few ulps).
  CHECK_THAT(dense(0), WithinRel(0.25 * 3.0 / (0.25 * 3.0 + 2.0) * 1.5, 1e-15));
  CHECK_THAT(dense(1), WithinRel(0.75 * 0.5 / (0.75 * 0.5 + 2.0) * -2.0, 1e-15));
  CHECK_THAT(sparse[0](0), WithinRel(3.0 / 5.0 * 1.5, 1e-15));
  CHECK_THAT(sparse[1](0), WithinRel(0.5 / 2.5 * -2.0, 1e-15));
}

TEST_CASE("with a single expert the dense and sparse Bayes estimators coincide", "[noisy][bayes]") {
  const auto trial = static_cast<std::uint64_t>(GENERATE(range(0, 20)));
  moelab::noisy::Model m = moelab::test::random_model(trial, 1, 6);
  m.p = {1.0};
  const Eigen::VectorXd dense = bayes_dense_estimator(m);
  const SparseEstimator sparse = bayes_sparse_estimator(m);
  // 1e-13 relative: the same LLT solve (condition <= ~1e3) with p = 1 scaling; only rounding differs.
  CHECK((dense - sparse[0]).norm() <= 1e-13 * sparse[0].norm());
}

TEST_CASE("the risk gradient vanishes at the Bayes estimators", "[noisy][bayes][property]") {
  const auto trial = static_cast<std::uint64_t>(GENERATE(range(0, 50)));
  const int k = 1 + static_cast<int>(trial % 7);
  const moelab::noisy::Model m = moelab::test::random_model(trial, k);
  moelab::test::Draws draws(7, trial);
  INFO("trial " << trial << ", k = " << k << ", sigma2 = " << m.sigma2);

  const Eigen::VectorXd dense = bayes_dense_estimator(m);
  const Eigen::VectorXd dense_off = dense + draws.normal_vector(static_cast<int>(dense.size()));
  const double dense_scale = moelab::noisy::dense_risk_gradient(m, dense_off).norm();
  // 1e-12 relative to the gradient at a unit perturbation: LLT solves of condition <= ~1e3 leave
  // residuals of order 1e3 * eps ~ 1e-13.
  CHECK(moelab::noisy::dense_risk_gradient(m, dense).norm() <= 1e-12 * dense_scale);

  const SparseEstimator sparse = bayes_sparse_estimator(m);
  const double sparse_scale = norm(moelab::noisy::sparse_risk_gradient(m, perturbed(sparse, draws, 1.0)));
  CHECK(norm(moelab::noisy::sparse_risk_gradient(m, sparse)) <= 1e-12 * sparse_scale);
}

TEST_CASE("the Bayes estimators minimise the risk and the excess equals the quadratic form",
          "[noisy][bayes][property]") {
  const auto trial = static_cast<std::uint64_t>(GENERATE(range(0, 50)));
  const int k = 1 + static_cast<int>(trial % 7);
  const moelab::noisy::Model m = moelab::test::random_model(trial, k);
  moelab::test::Draws draws(11, trial);
  const double scale = GENERATE(1e-2, 1.0);
  INFO("trial " << trial << ", perturbation scale " << scale);

  const Eigen::VectorXd dense = bayes_dense_estimator(m);
  const Eigen::VectorXd dense_off = dense + scale * draws.normal_vector(static_cast<int>(dense.size()));
  const double dense_gap = moelab::noisy::dense_risk(m, dense_off) - moelab::noisy::dense_risk(m, dense);
  const double dense_excess = moelab::noisy::dense_excess_risk(m, dense_off);
  CHECK(dense_excess > 0.0);
  CHECK(dense_gap > 0.0);
  // Absolute 1e-13 * risk: the difference of two risks of size R carries ~10 eps R of rounding,
  // amplified by the solve residual of the Bayes estimator (its gradient is ~1e-13, see above).
  CHECK_THAT(dense_gap, WithinAbs(dense_excess, 1e-13 * moelab::noisy::dense_risk(m, dense_off) + 1e-15));

  const SparseEstimator sparse = bayes_sparse_estimator(m);
  const SparseEstimator sparse_off = perturbed(sparse, draws, scale);
  const double sparse_gap = moelab::noisy::sparse_risk(m, sparse_off) - moelab::noisy::sparse_risk(m, sparse);
  const double sparse_excess = moelab::noisy::sparse_excess_risk(m, sparse_off);
  CHECK(sparse_excess > 0.0);
  CHECK(sparse_gap > 0.0);
  CHECK_THAT(sparse_gap, WithinAbs(sparse_excess, 1e-13 * moelab::noisy::sparse_risk(m, sparse_off) + 1e-15));
}

TEST_CASE("a wrong dense estimator (the sparse one, stacked) has a positive excess risk", "[noisy][bayes]") {
  // Negative control for the tests above: the excess form is not identically zero.
  const moelab::noisy::Model m = moelab::test::random_model(3, 4);
  const SparseEstimator sparse = bayes_sparse_estimator(m);
  Eigen::VectorXd stacked(m.d());
  for (int i = 0; i < m.k(); ++i) stacked.segment(m.offset(i), m.block_size(i)) = sparse[static_cast<std::size_t>(i)];
  CHECK(moelab::noisy::dense_excess_risk(m, stacked) > 1e-6);
  CHECK(moelab::noisy::dense_risk_gradient(m, stacked).norm() > 1e-6);
}
