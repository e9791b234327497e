// The noisy training-set draw (simulate.cpp: draw_training_set) and the excess-risk trial that reuses
// per-thread storage (Fig. 3 speed): reusing storage changes no byte, and the design has
// the model's law (noisy, Sec. 3: xbar = x_i (block i) + noise, noise ~ N(0, sigma2 I_d),
// x_i ~ N(0, Sigma_i), y = x_i' beta_i), checked by moments with a control at a wrong covariance.
#include <cmath>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/linalg/covariance.hpp"
#include "moelab/noisy/simulate.hpp"
#include "random_model.hpp"

namespace nz = moelab::noisy;

namespace {

nz::Model toeplitz_model(int k, int block, double rho, double sigma2, std::uint64_t seed) {
  nz::Model m;
  moelab::test::Draws draws(seed, 0);
  for (int i = 0; i < k; ++i) {
    m.sigma.push_back(moelab::toeplitz_covariance(block, rho));
    m.p.push_back(1.0 / k);
    m.beta_star.push_back(draws.normal_vector(block));
  }
  m.sigma2 = sigma2;
  return m;
}

bool same_set(const nz::TrainingSet& a, const nz::TrainingSet& b) {
  return a.xbar.rows() == b.xbar.rows() && a.xbar.cols() == b.xbar.cols() && a.xbar == b.xbar && a.y == b.y &&
         a.expert == b.expert && a.count == b.count;
}

}  // namespace

TEST_CASE("a training set drawn into reused storage has the bytes of a fresh one", "[noisy][simulate]") {
  const nz::Model m = toeplitz_model(3, 5, 0.5, 0.7, 11);
  nz::TrainingSet reused;
  // Sizes that grow, shrink, repeat, and row counts that are not multiples of the draw's row block (16).
  for (const int n : {40, 7, 40, 33, 16, 17, 1}) {
    for (const auto a : {nz::Allocation::balanced, nz::Allocation::multinomial}) {
      INFO("n = " << n);
      nz::draw_training_set(m, n, a, 5, 2, reused);
      CHECK(same_set(reused, nz::draw_training_set(m, n, a, 5, 2)));
    }
  }
}

TEST_CASE("an excess-risk trial does not depend on the trials run before it on the thread", "[noisy][simulate]") {
  const nz::Model m = toeplitz_model(2, 4, 0.3, 0.5, 3);
  const auto alone = nz::excess_trial(m, 12, nz::Allocation::balanced, 9, 4);
  for (const int n : {30, 6, 12, 100}) (void)nz::excess_trial(m, n, nz::Allocation::balanced, 9, 1);
  const auto after = nz::excess_trial(m, 12, nz::Allocation::balanced, 9, 4);
  CHECK(alone.dense == after.dense);  // bit-identical: thread-local storage carries no state
  CHECK(alone.sparse == after.sparse);
  CHECK(alone.dense_fallback == after.dense_fallback);
  CHECK(alone.sparse_fallbacks == after.sparse_fallbacks);
}

TEST_CASE("the training design has the model's second moments (control: a covariance 10% off)", "[noisy][simulate]") {
  // k = 2 experts, blocks of 3, Toeplitz rho = 0.5, sigma2 = 0.7; balanced: n/2 rows per expert.
  // Per row of expert 0, the pairs (a, b) of block-0 coordinates have E[xbar_a xbar_b] = Sigma_ab +
  // s delta_ab, block-1 coordinates s delta_ab, E[xbar_a y] = (Sigma beta_0)_a, E[y^2] = beta_0' Sigma beta_0.
  // Each sample mean of N = 40000 products is tested at 5 standard errors (Gaussian fourth moments:
  // Var(u v) = E[u^2] E[v^2] + E[u v]^2; 5 SE keeps the 20-odd tests' family error below 1e-5).
  // Control: the same statistics against Sigma with rho = 0.45 (off-diagonal 0.45 for 0.5: 10%)
  // must be rejected: the (0, 1) entry is then off by 0.05 = 12 SE.
  const int k = 2, b = 3, rows_per_expert = 40000;
  const double rho = 0.5, s = 0.7;
  const nz::Model m = toeplitz_model(k, b, rho, s, 21);
  const auto t = nz::draw_training_set(m, k * rows_per_expert, nz::Allocation::balanced, 17, 0);
  REQUIRE(t.count == std::vector<int>{rows_per_expert, rows_per_expert});
  const Eigen::MatrixXd cov = m.sigma[0] + s * Eigen::MatrixXd::Identity(b, b);  // block 0 of expert-0 rows
  const Eigen::VectorXd cxy = m.sigma[0] * m.beta_star[0];
  const double vy = m.beta_star[0].dot(m.sigma[0] * m.beta_star[0]);
  // Full second-moment matrix of z = (xbar (d = 6), y) for expert-0 rows.
  Eigen::MatrixXd truth = Eigen::MatrixXd::Zero(2 * b + 1, 2 * b + 1);
  truth.topLeftCorner(b, b) = cov;
  truth.block(b, b, b, b) = s * Eigen::MatrixXd::Identity(b, b);
  truth.block(0, 2 * b, b, 1) = cxy;
  truth.block(2 * b, 0, 1, b) = cxy.transpose();
  truth(2 * b, 2 * b) = vy;
  Eigen::MatrixXd wrong = truth;
  const Eigen::MatrixXd sigma_wrong = moelab::toeplitz_covariance(b, 0.45);
  wrong.topLeftCorner(b, b) = sigma_wrong + s * Eigen::MatrixXd::Identity(b, b);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(2 * b + 1, 2 * b + 1);
  Eigen::VectorXd z(2 * b + 1);
  for (int r = 0; r < rows_per_expert; ++r) {  // expert 0's rows come first
    REQUIRE(t.expert[static_cast<std::size_t>(r)] == 0);
    z << t.xbar.row(r).transpose(), t.y(r);
    sum += z * z.transpose();
  }
  const Eigen::MatrixXd mean = sum / rows_per_expert;
  int rejected_truth = 0, rejected_wrong = 0;
  double worst = 0.0;
  for (int a = 0; a < 2 * b + 1; ++a)
    for (int c = 0; c <= a; ++c) {
      const auto se = [&](const Eigen::MatrixXd& mm) {
        return std::sqrt((mm(a, a) * mm(c, c) + mm(a, c) * mm(a, c)) / rows_per_expert);
      };
      const double zt = std::abs(mean(a, c) - truth(a, c)) / se(truth);
      worst = std::max(worst, zt);
      rejected_truth += zt > 5.0;
      rejected_wrong += std::abs(mean(a, c) - wrong(a, c)) / se(wrong) > 5.0;
    }
  INFO("worst |z| against the model: " << worst);
  CHECK(rejected_truth == 0);
  CHECK(rejected_wrong >= 1);
}
