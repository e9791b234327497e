// The exact risk functional (noisy, Eq. 4; Thm 3 test noise; Thm 4 mis-routing) against hand values,
// finite differences and a Monte-Carlo simulation of the data model it claims to describe.
#include "moelab/noisy/risk.hpp"

#include <cmath>
#include <functional>

#include <catch2/catch.hpp>

#include "moelab/linalg/decompositions.hpp"
#include "noisy/random_model.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using moelab::noisy::Misroute;
using moelab::noisy::Model;
using moelab::noisy::RiskOptions;
using moelab::noisy::SparseEstimator;

namespace {

Model two_scalar_experts() {
  Model m;
  m.sigma = {Eigen::MatrixXd::Constant(1, 1, 2.0), Eigen::MatrixXd::Constant(1, 1, 4.0)};
  m.p = {0.25, 0.75};
  m.sigma2 = 0.5;
  m.beta_star = {Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Constant(1, -1.0)};
  return m;
}

/// Sample mean and its standard error.
struct MeanSe {
  double mean, se;
};

MeanSe simulate(int samples, const std::function<double(moelab::test::Draws&)>& squared_error) {
  moelab::test::Draws draws(99, 0);
  double sum = 0.0, sum2 = 0.0;
  for (int t = 0; t < samples; ++t) {
    const double v = squared_error(draws);
    sum += v;
    sum2 += v * v;
  }
  const double mean = sum / samples;
  return {mean, std::sqrt((sum2 / samples - mean * mean) / samples)};
}

/// x_i = L_i g ~ N(0, Sigma_i), Sigma_i = L_i L_i'.
Eigen::VectorXd draw_block(const Model& m, int i, moelab::test::Draws& draws) {
  return m.sigma[static_cast<std::size_t>(i)].llt().matrixL() * draws.normal_vector(m.block_size(i));
}

}  // namespace

TEST_CASE("the risk functional matches hand-computed values for two scalar experts", "[noisy][risk]") {
  const Model m = two_scalar_experts();
  const Eigen::Vector2d b(0.5, -0.25);
  // dense: 0.25 * 2 * 0.25 + 0.75 * 4 * 0.5625 + 0.5 * (0.25 + 0.0625) = 1.96875 (exact in binary).
  CHECK_THAT(moelab::noisy::dense_risk(m, b), WithinRel(1.96875, 1e-15));
  // sparse: 0.25 (0.5 + 0.5 * 0.25) + 0.75 (2.25 + 0.5 * 0.0625) = 1.8671875.
  const SparseEstimator s = {Eigen::VectorXd::Constant(1, 0.5), Eigen::VectorXd::Constant(1, -0.25)};
  CHECK_THAT(moelab::noisy::sparse_risk(m, s), WithinRel(1.8671875, 1e-15));
  // test noise 2: dense adds (2 - 0.5) ||b||^2 = 0.46875.
  CHECK_THAT(moelab::noisy::dense_risk(m, b, {2.0, std::nullopt}), WithinRel(1.96875 + 0.46875, 1e-15));
  // misroute i = 0 -> j = 1, eta = 2: 0.5 + 4 * 4 * 0.0625 + 0.5 * 0.3125 = 1.65625.
  CHECK_THAT(moelab::noisy::dense_risk(m, b, {std::nullopt, Misroute{0, 1, 2.0}}), WithinRel(1.65625, 1e-15));
  // sparse misroute: beta_0' S_0 beta_0 + eta^2 b_1' S_1 b_1 + s ||b_1||^2 = 2 + 1 + 0.03125.
  CHECK_THAT(moelab::noisy::sparse_risk(m, s, {std::nullopt, Misroute{0, 1, 2.0}}), WithinRel(3.03125, 1e-15));
}

TEST_CASE("the risk gradients match central finite differences", "[noisy][risk][property]") {
  const auto trial = static_cast<std::uint64_t>(GENERATE(range(0, 20)));
  const Model m = moelab::test::random_model(trial, 1 + static_cast<int>(trial % 5));
  moelab::test::Draws draws(5, trial);
  const Eigen::VectorXd b = draws.normal_vector(m.d());
  const Eigen::VectorXd g = moelab::noisy::dense_risk_gradient(m, b);
  const double h = 1e-4;
  for (int c = 0; c < m.d(); ++c) {
    Eigen::VectorXd up = b, down = b;
    up(c) += h;
    down(c) -= h;
    const double fd = (moelab::noisy::dense_risk(m, up) - moelab::noisy::dense_risk(m, down)) / (2 * h);
    // The risk is quadratic, so the central difference has no truncation error; rounding gives
    // ~eps R / h ~ 1e-11 R: absolute 1e-9 (1 + R).
    CHECK_THAT(fd, WithinAbs(g(c), 1e-9 * (1.0 + moelab::noisy::dense_risk(m, b))));
  }
  SparseEstimator s;
  for (int i = 0; i < m.k(); ++i) s.push_back(draws.normal_vector(m.block_size(i)));
  const SparseEstimator gs = moelab::noisy::sparse_risk_gradient(m, s);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (Eigen::Index c = 0; c < s[i].size(); ++c) {
      SparseEstimator up = s, down = s;
      up[i](c) += h;
      down[i](c) -= h;
      const double fd = (moelab::noisy::sparse_risk(m, up) - moelab::noisy::sparse_risk(m, down)) / (2 * h);
      CHECK_THAT(fd, WithinAbs(gs[i](c), 1e-9 * (1.0 + moelab::noisy::sparse_risk(m, s))));
    }
}

TEST_CASE("test noise adds (sigma_o^2 - sigma^2) times the squared norm", "[noisy][risk][property]") {
  const auto trial = static_cast<std::uint64_t>(GENERATE(range(0, 20)));
  const Model m = moelab::test::random_model(trial, 1 + static_cast<int>(trial % 5));
  moelab::test::Draws draws(6, trial);
  const Eigen::VectorXd b = draws.normal_vector(m.d());
  const double s_o = 3.0 * draws.uniform();
  // 1e-13 relative: a handful of additions of O(R) terms.
  CHECK_THAT(moelab::noisy::dense_risk(m, b, {s_o, std::nullopt}),
             WithinRel(moelab::noisy::dense_risk(m, b) + (s_o - m.sigma2) * b.squaredNorm(), 1e-13));
}

TEST_CASE("the risk functional agrees with a Monte-Carlo simulation of the data model", "[noisy][risk][mc]") {
  // Samples are squared errors of Gaussian mixtures (sd/mean up to ~3, measured): with N = 4e5 the
  // standard error is <= ~0.5% of the mean; agreement at 5 SE (two-sided level ~6e-7), and a closed form
  // 5% off is rejected.
  const Model m = moelab::test::random_model(17, 3, 3);
  moelab::test::Draws coef(8, 0);
  const Eigen::VectorXd b = coef.normal_vector(m.d());
  SparseEstimator s;
  for (int i = 0; i < m.k(); ++i) s.push_back(coef.normal_vector(m.block_size(i)));
  const int samples = 400000;
  const double s_o = 1.7;
  const Misroute route{0, 2, 1.6};

  const auto dense_error = [&](moelab::test::Draws& d, double noise, bool misrouted) {
    const int i = misrouted ? route.i : moelab::test::draw_expert(m, d);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m.d());
    x.segment(m.offset(i), m.block_size(i)) = draw_block(m, i, d);
    const double y = x.segment(m.offset(i), m.block_size(i)).dot(m.beta_star[static_cast<std::size_t>(i)]);
    if (misrouted) x.segment(m.offset(route.j), m.block_size(route.j)) = route.eta * draw_block(m, route.j, d);
    const Eigen::VectorXd xbar = x + std::sqrt(noise) * d.normal_vector(m.d());
    return std::pow(xbar.dot(b) - y, 2);
  };
  const auto sparse_error = [&](moelab::test::Draws& d, double noise, bool misrouted) {
    const int i = misrouted ? route.i : moelab::test::draw_expert(m, d);
    const int e = misrouted ? route.j : i;  // the expert that answers
    const Eigen::VectorXd x_i = draw_block(m, i, d);
    const double y = x_i.dot(m.beta_star[static_cast<std::size_t>(i)]);
    const Eigen::VectorXd seen = (misrouted ? Eigen::VectorXd(route.eta * draw_block(m, e, d)) : x_i) +
                                 std::sqrt(noise) * d.normal_vector(m.block_size(e));
    return std::pow(seen.dot(s[static_cast<std::size_t>(e)]) - y, 2);
  };

  struct Case {
    const char* name;
    double closed_form;
    MeanSe mc;
  };
  const Case cases[] = {
      {"dense mixture", moelab::noisy::dense_risk(m, b),
       simulate(samples, [&](auto& d) { return dense_error(d, m.sigma2, false); })},
      {"dense test noise", moelab::noisy::dense_risk(m, b, {s_o, std::nullopt}),
       simulate(samples, [&](auto& d) { return dense_error(d, s_o, false); })},
      {"dense misroute", moelab::noisy::dense_risk(m, b, {std::nullopt, route}),
       simulate(samples, [&](auto& d) { return dense_error(d, m.sigma2, true); })},
      {"sparse mixture", moelab::noisy::sparse_risk(m, s),
       simulate(samples, [&](auto& d) { return sparse_error(d, m.sigma2, false); })},
      {"sparse test noise", moelab::noisy::sparse_risk(m, s, {s_o, std::nullopt}),
       simulate(samples, [&](auto& d) { return sparse_error(d, s_o, false); })},
      {"sparse misroute", moelab::noisy::sparse_risk(m, s, {std::nullopt, route}),
       simulate(samples, [&](auto& d) { return sparse_error(d, m.sigma2, true); })},
  };
  for (const Case& c : cases) {
    INFO(c.name << ": closed form " << c.closed_form << ", MC " << c.mc.mean << " +- " << c.mc.se);
    CHECK(std::abs(c.mc.mean - c.closed_form) <= 5.0 * c.mc.se);
    // Negative control: the check rejects a closed form that is 5% off.
    CHECK(std::abs(c.mc.mean - 1.05 * c.closed_form) > 5.0 * c.mc.se);
  }
}

TEST_CASE("the risk functional rejects malformed estimators and misroutes", "[noisy][risk]") {
  const Model m = two_scalar_experts();
  CHECK_THROWS_AS(moelab::noisy::dense_risk(m, Eigen::VectorXd::Zero(3)), std::logic_error);
  CHECK_THROWS_AS(moelab::noisy::sparse_risk(m, SparseEstimator{Eigen::VectorXd::Zero(1)}), std::logic_error);
  CHECK_THROWS_AS(moelab::noisy::dense_risk(m, Eigen::VectorXd::Zero(2), {std::nullopt, Misroute{1, 1, 2.0}}),
                  std::logic_error);
  CHECK_THROWS_AS(moelab::noisy::dense_risk(m, Eigen::VectorXd::Zero(2), {std::nullopt, Misroute{0, 2, 2.0}}),
                  std::logic_error);
}
