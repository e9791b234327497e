// noisy, A.6.1 / A.6.2 (appendix_a6.hpp): the designs against their distribution, the A.6.1 bias
// identity and the A.6.2 trace steps against independent computations, with the printed step's
// failure measured; and the per-direction proof of the remark after Thm 4 (docs/errata.md).
#include "moelab/noisy/appendix_a6.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "moelab/core/stats.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/theorems.hpp"
#include "noisy/random_model.hpp"

namespace nz = moelab::noisy;

namespace {

Eigen::MatrixXd pinv_cod(const Eigen::MatrixXd& a) { return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(a).pseudoInverse(); }

}  // namespace

TEST_CASE("A.6 block design: rows have covariance Sigma + sigma2 I (Monte-Carlo, control at Sigma alone)", "[noisy][a6]") {
  moelab::test::Draws draws(11, 0);
  const Eigen::MatrixXd sigma = draws.spd(3);
  const double sigma2 = 0.7;
  const int n = 20000;
  const auto d = nz::draw_a6_block(sigma, sigma2, n, 5, 0);
  // Entry (a, b) of the sample second moment: mean of n products; its standard error is estimated from
  // the products themselves, and 5 standard errors is the tolerance (9 entries: a false alarm < 1e-5).
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      moelab::Welford w, wx;
      for (int t = 0; t < n; ++t) w.add(d.xbar(t, a) * d.xbar(t, b)), wx.add(d.x(t, a) * d.x(t, b));
      const double target = sigma(a, b) + (a == b ? sigma2 : 0.0);
      CHECK(std::fabs(w.mean() - target) < 5 * w.standard_error());
      CHECK(std::fabs(wx.mean() - sigma(a, b)) < 5 * wx.standard_error());
      // Control: on the diagonal the noise-free covariance is 0.7 below, > 20 standard errors here.
      if (a == b) CHECK(std::fabs(w.mean() - sigma(a, b)) > 5 * w.standard_error());
    }
}

TEST_CASE("A.6 dense design is block diagonal (row t in expert t mod k)", "[noisy][a6]") {
  moelab::test::Draws draws(12, 0);
  nz::Model m;
  for (int i : {2, 3, 1}) m.sigma.push_back(draws.spd(i)), m.beta_star.push_back(draws.normal_vector(i));
  m.p = {0.2, 0.3, 0.5};
  m.sigma2 = 0.4;
  const auto d = nz::draw_a6_dense(m, 9, 3, 1);
  for (int t = 0; t < 9; ++t)
    for (int i = 0; i < 3; ++i) {
      const double block_norm = d.x.row(t).segment(m.offset(i), m.block_size(i)).norm();
      if (i == t % 3) CHECK(block_norm > 0.0);
      else CHECK(block_norm == 0.0);
    }
  CHECK((d.xbar - d.x).cwiseAbs().minCoeff() > 0.0);  // noise on every coordinate
}

TEST_CASE("pinv_psd agrees with the complete orthogonal decomposition's pseudo-inverse", "[noisy][a6]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    moelab::test::Draws draws(13, seed);
    const Eigen::MatrixXd a = draws.normal_matrix(6, 3);
    const Eigen::MatrixXd g = a * a.transpose();  // rank 3 of 6
    // Tolerance: condition of g about 1e2, so 1e-10 relative is ~1e4 eps kappa.
    CHECK((nz::pinv_psd(g, 1e-10) - pinv_cod(g)).norm() <= 1e-10 * pinv_cod(g).norm());
  }
}

TEST_CASE("A.6.1: the printed bias identity holds at full column rank and misses -(I - P) beta below it", "[noisy][a6]") {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    moelab::test::Draws draws(14, seed);
    const int p = 4;
    const Eigen::MatrixXd sigma = draws.spd(p);
    const Eigen::VectorXd beta = draws.normal_vector(p);
    const auto full = nz::draw_a6_block(sigma, 0.5, 12, 7, seed);
    const auto r = nz::a61_bias(full, sigma, beta);
    // kappa(Xbar)^2 <= ~1e3 here; 1e-9 relative is ~1e4 eps kappa^2.
    CHECK(std::fabs(r.direct - r.printed) <= 1e-9 * r.direct);
    // n = 2 < p: beta_hat - beta = -Xbar^+ E beta - (I - Xbar^+ Xbar) beta (independent evaluation).
    const auto over = nz::draw_a6_block(sigma, 0.5, 2, 7, 1000 + seed);
    const Eigen::MatrixXd pi = pinv_cod(over.xbar);
    const Eigen::VectorXd vp = -pi * (over.noise() * beta);                              // the printed part
    const Eigen::VectorXd w = -(Eigen::MatrixXd::Identity(p, p) - pi * over.xbar) * beta;  // the part it drops
    const Eigen::VectorXd v = vp + w;
    const auto ro = nz::a61_bias(over, sigma, beta);
    CHECK(std::fabs(ro.direct - v.dot(sigma * v)) <= 1e-9 * ro.direct);
    // The printed form misses exactly 2 vp' Sigma w + w' Sigma w (w != 0: rank 2 < p = 4).
    CHECK(w.norm() > 1e-3 * beta.norm());
    CHECK(std::fabs((ro.direct - ro.printed) - (2 * vp.dot(sigma * w) + w.dot(sigma * w))) <= 1e-9 * ro.direct);
  }
}

TEST_CASE("A.6.2: variance trace = exact with beta beta', the printed line is its sum over the unit vectors", "[noisy][a6]") {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    moelab::test::Draws draws(15, seed);
    const int p = 4, n = seed % 2 ? 3 : 10;  // both sides of the column rank
    const Eigen::MatrixXd sigma = draws.spd(p);
    const Eigen::VectorXd beta = draws.normal_vector(p);
    const auto d = nz::draw_a6_block(sigma, 0.5, n, 8, seed);
    const auto v = nz::a62_variance(d, 0.5, beta);
    CHECK(std::fabs(v.direct - v.exact) <= 1e-9 * v.direct);
    CHECK(std::fabs(v.direct - 0.5 * (pinv_cod(d.xbar) * d.x * beta).squaredNorm()) <= 1e-9 * v.direct);
    // tr M = sum_m e_m' M e_m: the printed (beta beta' dropped) line is the exact one summed over beta = e_m.
    double sum = 0.0;
    for (int m = 0; m < p; ++m) sum += nz::a62_variance(d, 0.5, Eigen::VectorXd::Unit(p, m)).exact;
    CHECK(std::fabs(v.printed - sum) <= 1e-9 * sum);
    CHECK(std::fabs(v.printed - v.direct) > 1e-3 * v.direct);  // and it is not the variance of this beta
  }
}

TEST_CASE("A.6 test-error split equals its definition by quadrature in one dimension", "[noisy][a6]") {
  // p = 1: E[((x + e) b - x beta)^2] = lambda (b - beta)^2 + sigma2 b^2 exactly (x, e independent).
  const Eigen::MatrixXd s = Eigen::MatrixXd::Constant(1, 1, 2.0);
  const Eigen::VectorXd b = Eigen::VectorXd::Constant(1, 0.7), beta = Eigen::VectorXd::Constant(1, 1.1);
  CHECK_THAT(nz::a6_test_error(s, 0.3, b, beta), Catch::Matchers::WithinRel(2.0 * 0.16 + 0.3 * 0.49, 1e-14));
}

TEST_CASE("remark after Thm 4: with p_r = 0 the exact dense-minus-sparse risk is the per-direction sum of docs/errata.md", "[noisy][thm4]") {
  // Scalar experts i = 0, j = 1 (Sigma = l, beta = b) and a third with p = 0: dense - sparse =
  //   l_i^2 p_i b_i^2 (s p_i - p_i l_i - 2 s)/(p_i l_i + s)^2                                  (block i, < 0)
  //   + eta^2 l_j^3 b_j^2 [p_j^2/(p_j l_j + s)^2 - 1/(l_j + s)^2] + s l_j^2 b_j^2 [same bracket]    (block j, <= 0).
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    moelab::test::Draws draws(16, seed);
    nz::Model m;
    double l[3], b[3];
    for (int q = 0; q < 3; ++q) {
      l[q] = std::exp(draws.normal()), b[q] = draws.normal();
      m.sigma.push_back(Eigen::MatrixXd::Constant(1, 1, l[q]));
      m.beta_star.push_back(Eigen::VectorXd::Constant(1, b[q]));
    }
    const double pi = 0.05 + 0.9 * draws.uniform(), s = std::exp(draws.normal()), eta = 1.0 + std::exp(draws.normal());
    m.p = {pi, 1.0 - pi, 0.0};
    m.sigma2 = s;
    const nz::Misroute r{0, 1, eta};
    const double pj = 1.0 - pi;
    const double block_i = l[0] * l[0] * pi * b[0] * b[0] * (s * pi - pi * l[0] - 2 * s) / std::pow(pi * l[0] + s, 2);
    const double bracket = pj * pj / std::pow(pj * l[1] + s, 2) - 1.0 / std::pow(l[1] + s, 2);
    const double block_j = (eta * eta * l[1] + s) * l[1] * l[1] * b[1] * b[1] * bracket;
    const double diff = nz::thm4_dense_risk_exact(m, r) - nz::thm4_sparse_risk_exact(m, r);
    // Both sides are a handful of rational operations on O(1) numbers: 1e-12 relative to the risks.
    CHECK(std::fabs(diff - (block_i + block_j)) <= 1e-12 * nz::thm4_sparse_risk_exact(m, r));
    CHECK(diff <= 0.0);
    CHECK(block_i < 0.0);
    CHECK(block_j <= 0.0);
  }
}
