// The generalization-gap measurement (trained/generalization_gap.hpp): the gap estimator against the
// closed form of ordinary least squares, determinism of a training run, the Theorem 1 parameters;
// [slow]: the trained gap shrinks with m.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/trained/generalization_gap.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

/// One OLS fit y = <b, x> + sigma eps on m Gaussian points, its train and test MSE measured by
/// evaluate_losses through a 1-expert linear MoE holding the OLS coefficients.
LossPair ols_gap(int d, int m, double sigma, std::uint64_t seed, int test_size, LossPair* test) {
  moe::MoeShape s;
  s.m = 1, s.k = 1, s.d = d, s.d_out = 1, s.expert = moe::ExpertKind::linear, s.expert_bias = false;
  moe::MoeModel<double> f(s);
  const RandomStream beta(seed, StreamTag::property_test, 0), noise(seed, StreamTag::property_test, 1);
  Eigen::VectorXd b(d);
  for (int j = 0; j < d; ++j) b(j) = beta.normal(static_cast<std::uint64_t>(j));
  const Eigen::MatrixXd X = moe::gaussian_inputs<double>(d, m, seed, StreamTag::moe_train_data, 0);
  const Eigen::MatrixXd Xt = moe::gaussian_inputs<double>(d, test_size, seed, StreamTag::moe_test_data, 0);
  Eigen::MatrixXd Y = b.transpose() * X, Yt = b.transpose() * Xt;
  for (int i = 0; i < m; ++i) Y(0, i) += sigma * noise.normal(static_cast<std::uint64_t>(i));
  for (int i = 0; i < test_size; ++i) Yt(0, i) += sigma * noise.normal(static_cast<std::uint64_t>(m + i));
  const Eigen::VectorXd bhat = Eigen::MatrixXd(X * X.transpose()).ldlt().solve(Eigen::VectorXd(X * Y.transpose()));
  f.w1(f.params(), 0) = bhat.transpose();
  *test = evaluate_losses(f, Xt, Yt);
  return evaluate_losses(f, X, Y);
}

}  // namespace

TEST_CASE("gap estimator: OLS on Gaussian design gives E[test - train MSE] = sigma^2 (d/m + d/(m - d - 1))",
          "[trained][gap]") {
  // Known answer: E[train MSE] = sigma^2 (m - d)/m, E[test MSE] = sigma^2 (1 + d/(m - d - 1)) for x ~ N(0, I_d)
  // (Wishart inverse mean: E tr (X'X)^-1 = d/(m - d - 1)). d = 3, m = 10, sigma = 0.5: 0.25 (0.3 + 0.5) = 0.2.
  // Small m - d - 1 = 6 makes the nearest wrong forms differ by several standard errors: the slip
  // d/(m - d) for the inverse-Wishart mean gives 0.1821 (0.0179 away), the test excess alone without the
  // training term 0.125.
  const int d = 3, m = 10, n = 8000;
  const double sigma = 0.5;
  const double expected = sigma * sigma * (static_cast<double>(d) / m + static_cast<double>(d) / (m - d - 1));
  const double slip = sigma * sigma * (static_cast<double>(d) / m + static_cast<double>(d) / (m - d));
  const double excess_only = sigma * sigma * static_cast<double>(d) / (m - d - 1);
  Welford gap, bounded;
  for (int s = 0; s < n; ++s) {
    LossPair test;
    const LossPair train = ols_gap(d, m, sigma, 1000 + static_cast<std::uint64_t>(s), 200, &test);
    gap.add(test.mse - train.mse);
    bounded.add(test.bounded - train.bounded);
  }
  // Monte-Carlo: 4 standard errors over n = 8000 fits (the per-fit gap has sd ~0.17, se ~0.0019).
  const double tol = 4.0 * gap.standard_error();
  INFO("gap " << gap.mean() << " +- " << gap.standard_error() << "; expected " << expected << ", slip d/(m - d) " << slip
              << ", excess alone " << excess_only);
  CHECK(std::abs(gap.mean() - expected) < tol);
  // Controls: the d/(m - d) slip and the gap without the training term must both be rejected.
  CHECK(std::abs(gap.mean() - slip) > tol);
  CHECK(std::abs(gap.mean() - excess_only) > tol);
  // The bounded loss min(1, |r|) is a different functional: its gap is positive but below sqrt of the MSE gap scale.
  CHECK(bounded.mean() > 0.0);
}

namespace {

/// The teacher, data and labels of run_gap_trial built here from its documented keys (the header:
/// teacher, data and noise from key.with("teacher" | "data" | "noise", trial); labels teacher(x) +
/// noise eps).
struct GapData {
  Eigen::MatrixXd X, Y, Xt, Yt;
  Eigen::MatrixXd Y0;  // teacher(X) without the noise
};
GapData gap_data(const GapSpec& s, const RngKey& key, std::int64_t trial) {
  moe::MoeShape ts;
  ts.m = s.teacher_T, ts.k = s.teacher_k, ts.d = s.d, ts.d_out = 1, ts.w = 1;
  ts.expert = moe::ExpertKind::linear, ts.expert_bias = false, ts.router_bias = false, ts.weighting = moe::Weighting::softmax;
  moe::MoeModel<double> teacher(ts);
  moe::init_pytorch(teacher, key.with("teacher", trial).seed());
  const std::uint64_t data = key.with("data", trial).seed(), noise = key.with("noise", trial).seed();
  GapData g;
  g.X = moe::gaussian_inputs<double>(s.d, s.m, data, StreamTag::moe_train_data, 0);
  g.Xt = moe::gaussian_inputs<double>(s.d, s.test_size, data, StreamTag::moe_test_data, 0);
  const auto label = [&](const Eigen::MatrixXd& X, StreamTag tag) {
    Eigen::MatrixXd Y = moe::evaluate(teacher, X);
    const RandomStream rs(noise, tag, 0);
    for (Eigen::Index i = 0; i < Y.cols(); ++i) Y(0, i) += s.noise * rs.normal(static_cast<std::uint64_t>(i));
    return Y;
  };
  g.Y = label(g.X, StreamTag::moe_train_data);
  g.Y0 = moe::evaluate(teacher, g.X);
  g.Yt = label(g.Xt, StreamTag::moe_test_data);
  return g;
}

double mse(const Eigen::VectorXd& b, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
  return (b.transpose() * X - Y).squaredNorm() / static_cast<double>(X.cols());
}

}  // namespace

TEST_CASE("gap run: a function of (spec, key, trial), and one linear expert trains to the least-squares fit built here",
          "[trained][gap]") {
  GapSpec s;
  s.d = 4, s.T = 4, s.k = 2, s.m = 64, s.test_size = 512, s.steps = 100, s.batch = 32, s.rademacher_draws = 50;
  const RngKey key = RngKey::root(3).with("gap-test");
  const GapRun a = run_gap_trial(s, key, 0), b = run_gap_trial(s, key, 0), c = run_gap_trial(s, key, 1);
  CHECK(a.train_loss == b.train_loss);
  CHECK(a.test_loss == b.test_loss);
  CHECK(a.expert_rademacher == b.expert_rademacher);
  CHECK(a.test_loss != c.test_loss);
  CHECK(a.router_norm > 0.0);

  // One expert (T = k = 1: no router) is linear regression without intercept: AdamW on the full batch
  // (batch = m) with the cosine ending at 0 converges to the least-squares coefficients, which have the
  // smallest training MSE of any linear map. Built here from the documented keys: the OLS fit on the
  // same data, its train and test MSE.
  GapSpec one = s;
  one.T = 1, one.k = 1, one.steps = 3000, one.batch = one.m, one.lr = 2e-2;
  const GapRun r = run_gap_trial(one, key, 0);
  const GapData g = gap_data(one, key, 0);
  const Eigen::VectorXd ols = Eigen::MatrixXd(g.X * g.X.transpose()).ldlt().solve(Eigen::VectorXd(g.X * g.Y.transpose()));
  const double ols_train = mse(ols, g.X, g.Y), ols_test = mse(ols, g.Xt, g.Yt);
  INFO("trained: train MSE " << r.train_mse << ", test MSE " << r.test_mse << ", norm " << r.expert_norm << "; OLS: "
                             << ols_train << ", " << ols_test << ", " << ols.norm());
  // OLS is the minimum (to rounding) and the trained fit reaches it: the excess training MSE of a fit
  // b is (b - ols)' (X X'/m) (b - ols), so 1e-6 relative puts b within ~1e-3 ||ols|| of it.
  CHECK(r.train_mse >= ols_train * (1.0 - 1e-12));
  CHECK(r.train_mse <= ols_train * (1.0 + 1e-6));
  CHECK_THAT(r.test_mse, WithinRel(ols_test, 1e-3));
  CHECK_THAT(r.expert_norm, WithinRel(ols.norm(), 1e-3));
  CHECK(r.router_norm == 0.0);
  // Control: the same comparison against labels without their noise (a run that dropped the noise
  // stream) is rejected: OLS on teacher(x) alone has a far smaller training MSE.
  const Eigen::VectorXd clean = Eigen::MatrixXd(g.X * g.X.transpose()).ldlt().solve(Eigen::VectorXd(g.X * g.Y0.transpose()));
  CHECK(std::abs(r.train_mse - mse(clean, g.X, g.Y0)) > 1e-6 * ols_train);
  // Bounded loss of the OLS fit, computed here: min(1, |r|) averaged.
  const auto bounded = [](const Eigen::VectorXd& bb, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
    return (bb.transpose() * X - Y).array().abs().min(1.0).mean();
  };
  CHECK_THAT(r.train_loss, WithinRel(bounded(ols, g.X, g.Y), 1e-3));
  CHECK_THAT(r.test_loss, WithinRel(bounded(ols, g.Xt, g.Yt), 1e-3));

  // R(H, S) = B E||sum sigma_i x_i|| / m for the ball of radius B = expert_norm (exact supremum),
  // estimated here with 20000 sign vectors of its own (std::mt19937_64): within 4 combined SE of
  // the run's 50-draw estimate. Control: without the 1/m (or with 1/sqrt(m)) it is far off.
  std::mt19937_64 gen(77);
  std::bernoulli_distribution coin;
  Welford norms;
  for (int draw = 0; draw < 20000; ++draw) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(g.X.rows());
    for (Eigen::Index i = 0; i < g.X.cols(); ++i) v += (coin(gen) ? 1.0 : -1.0) * g.X.col(i);
    norms.add(v.norm() / static_cast<double>(g.X.cols()));
  }
  const double here = r.expert_norm * norms.mean();
  // The run's estimate has 50 draws: its SE is about sqrt(20000/50) = 20 times this one's.
  const double se = r.expert_norm * norms.standard_error() * std::sqrt(1.0 + 20000.0 / 50.0);
  INFO("Rademacher: run " << r.expert_rademacher << ", here " << here << " +- " << se);
  CHECK(std::abs(r.expert_rademacher - here) < 4.0 * se);
  CHECK(std::abs(r.expert_rademacher - here * std::sqrt(static_cast<double>(g.X.cols()))) > 4.0 * se);
}

TEST_CASE("gap: Theorem 1 parameters of the setting", "[trained][gap]") {
  GapSpec s;
  s.d = 8, s.T = 16, s.k = 4, s.m = 512;
  const auto p = theorem1_params(s, 0.1);
  CHECK(p.d_N == 128.0);
  CHECK(p.T == 16.0);
  CHECK(p.k == 4.0);
  CHECK(p.m == 512.0);
  CHECK(p.rademacher == 0.1);
  // Eq. 17 never above the printed form; the derived form's Rademacher term is 4 T R (w_max = 1).
  CHECK(bounds::theorem1_eq17(p).total <= bounds::theorem1_printed(p).total);
  CHECK_THAT(bounds::theorem1_derived(p).rademacher_term, WithinRel(4.0 * 16.0 * 0.1, 1e-14));
}

TEST_CASE("gap: the trained gap shrinks as the training set grows", "[trained][gap][slow]") {
  GapSpec s;
  s.d = 8, s.T = 8, s.k = 2;
  const RngKey key = RngKey::root(1).with("gap-slow");
  Welford small, large;
  for (int t = 0; t < 6; ++t) {
    s.m = 64;
    small.add(run_gap_trial(s, key, t).gap());
    s.m = 1024;
    large.add(run_gap_trial(s, key, t).gap());
  }
  INFO("gap m = 64: " << small.mean() << " +- " << small.standard_error() << ", m = 1024: " << large.mean() << " +- "
                      << large.standard_error());
  // Difference larger than 4 combined standard errors.
  CHECK(small.mean() - large.mean() > 4.0 * std::sqrt(small.variance() / 6 + large.variance() / 6));
}
