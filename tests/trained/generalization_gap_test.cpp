// The generalization-gap measurement (trained/generalization_gap.hpp): the gap estimator against the
// closed form of ordinary least squares, determinism of a training run, the Theorem 1 parameters;
// [slow]: the trained gap shrinks with m.
#include <cmath>
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
  const Eigen::VectorXd bhat = (X * X.transpose()).ldlt().solve(X * Y.transpose());
  f.w1(f.params(), 0) = bhat.transpose();
  *test = evaluate_losses(f, Xt, Yt);
  return evaluate_losses(f, X, Y);
}

}  // namespace

TEST_CASE("gap estimator: OLS on Gaussian design gives E[test - train MSE] = sigma^2 (d/m + d/(m - d - 1))",
          "[trained][gap]") {
  // Known answer: E[train MSE] = sigma^2 (m - d)/m, E[test MSE] = sigma^2 (1 + d/(m - d - 1)) for x ~ N(0, I_d)
  // (Wishart inverse mean). d = 4, m = 20, sigma = 0.5: 0.25 (0.2 + 4/15) = 0.11667.
  const int d = 4, m = 20, n = 2000;
  const double sigma = 0.5;
  const double expected = sigma * sigma * (static_cast<double>(d) / m + static_cast<double>(d) / (m - d - 1));
  const double control = sigma * sigma * static_cast<double>(d) / (m - d - 1);  // the test excess alone (no train term)
  Welford gap, bounded;
  for (int s = 0; s < n; ++s) {
    LossPair test;
    const LossPair train = ols_gap(d, m, sigma, 1000 + static_cast<std::uint64_t>(s), 200, &test);
    gap.add(test.mse - train.mse);
    bounded.add(test.bounded - train.bounded);
  }
  // Monte-Carlo: 4 standard errors over n = 2000 fits (se ~ 0.0017 here).
  const double tol = 4.0 * gap.standard_error();
  CHECK(std::abs(gap.mean() - expected) < tol);
  // Control at the nearest wrong value (the gap without the training term) must be rejected.
  CHECK(std::abs(gap.mean() - control) > tol);
  // The bounded loss min(1, |r|) is a different functional: its gap is positive but below sqrt of the MSE gap scale.
  CHECK(bounded.mean() > 0.0);
}

TEST_CASE("gap run: a function of (spec, key, trial), losses in range, Rademacher estimates positive", "[trained][gap]") {
  GapSpec s;
  s.d = 4, s.T = 4, s.k = 2, s.m = 64, s.test_size = 512, s.steps = 100, s.batch = 32, s.rademacher_draws = 50;
  const RngKey key = RngKey::root(3).with("gap-test");
  const GapRun a = run_gap_trial(s, key, 0), b = run_gap_trial(s, key, 0), c = run_gap_trial(s, key, 1);
  CHECK(a.train_loss == b.train_loss);
  CHECK(a.test_loss == b.test_loss);
  CHECK(a.expert_rademacher == b.expert_rademacher);
  CHECK(a.test_loss != c.test_loss);
  for (double v : {a.train_loss, a.test_loss}) {
    CHECK(v >= 0.0);
    CHECK(v <= 1.0);
  }
  CHECK(a.train_mse >= 0.0);
  CHECK(a.expert_norm > 0.0);
  CHECK(a.router_norm > 0.0);
  // R(H, S) of a ball of radius B: between 0 and Jensen's B sqrt(sum ||x_i||^2)/m ~ B sqrt(d/m) = B/4;
  // (1/sqrt 2) of it is a lower bound in expectation (Khintchine-Kahane, sharp constant); MC over 50
  // sign draws on m = 64 points is within ~15% of the mean, so check the ratio is in [0.5, 1].
  const double jensen = a.expert_norm * std::sqrt(static_cast<double>(s.d) / s.m);
  CHECK(a.expert_rademacher / jensen > 0.5);
  CHECK(a.expert_rademacher / jensen < 1.05);
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
