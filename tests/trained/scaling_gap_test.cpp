// The scaling paper's uniform gap bound (trained/scaling_gap.hpp) against its closed form, the floor
// and bootstrap fits on synthetic data with known exponents, and a small trained run's gap.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/trained/scaling_gap.hpp"
#include "topic_test_support.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace moelab::trained {
void add_studies(std::vector<StudyDef>& out);
}

TEST_CASE("scaling gap bound: Lemma 3.7 through Hoeffding, by hand", "[trained][scaling_gap]") {
  ScalingSpec s;
  s.d = 8, s.E = 8, s.k = 1, s.w = 8, s.train_size = 1024;
  // Router 8 x 8 = 64 (no bias), one expert W1 (8 x 8) + W2 (1 x 8) = 72 (no biases): N_act = 136.
  const double R = 10.0, eta = 0.05, D = 1024.0;
  const auto b = scaling_gap_bound(s, R, eta);
  CHECK(b.active_parameters == 136.0);
  const double lc = 136.0 * std::log(R * D) + 1.0 * std::log(std::exp(1.0) * 8.0);  // k log(e E / k), k = 1
  CHECK_THAT(b.log_covering, WithinRel(lc, 1e-13));
  CHECK_THAT(b.deviation, WithinRel(std::sqrt((lc + std::log(2.0 / eta)) / (2.0 * D)), 1e-13));
  CHECK_THAT(b.bound, WithinRel(2.0 / D + b.deviation, 1e-14));
  CHECK_THAT(b.rate_form, WithinRel(std::sqrt(136.0 * std::log(D) / D), 1e-14));
  // k = 2: the routing term 2 log(8 e / 2) as printed, log C(8, 2) = log 28 exactly.
  s.k = 2;
  const auto b2 = scaling_gap_bound(s, R, eta);
  const double pe = 208.0 * std::log(R * D);  // 64 + 2 x 72
  CHECK(b2.active_parameters == 208.0);
  CHECK_THAT(b2.log_covering, WithinRel(pe + 2.0 * std::log(4.0 * std::exp(1.0)), 1e-13));
  CHECK_THAT(b2.bound_exact_routing, WithinRel(2.0 / D + std::sqrt((pe + std::log(28.0) + std::log(40.0)) / (2.0 * D)), 1e-13));
  CHECK(b2.bound_exact_routing < b2.bound);  // log C(E, k) <= k log(e E / k)
  CHECK_THROWS(scaling_gap_bound(s, 1e-4, eta));  // R D < 1: the lemma's log is negative
}

TEST_CASE("floor fit recovers a known exponent and floor", "[trained][scaling_gap]") {
  // L = 2 x^-0.7 + 0.1, 5% errors: the profile fit finds c and alpha (chi2 ~ 0 at the truth).
  std::vector<double> x = {10, 20, 40, 80, 160, 320}, mean, se;
  for (double v : x) mean.push_back(2.0 * std::pow(v, -0.7) + 0.1), se.push_back(0.05 * mean.back());
  const auto f = fit_power_law_offset(x, mean, se);
  CHECK_THAT(f.exponent, WithinAbs(0.7, 1e-4));
  CHECK_THAT(f.offset, WithinAbs(0.1, 1e-5));
  CHECK(f.chi2_dof < 1e-8);
  // With no floor the fit returns c = 0 (the end of the range) and the plain exponent.
  std::vector<double> m0;
  for (double v : x) m0.push_back(2.0 * std::pow(v, -0.7));
  const auto g = fit_power_law_offset(x, m0, se);
  CHECK_THAT(g.exponent, WithinAbs(0.7, 1e-4));
  CHECK(g.offset < 1e-5);
}

TEST_CASE("seed bootstrap of a power-law exponent covers the truth and shrinks with seeds", "[trained][scaling_gap]") {
  // Seed t at x_j: x_j^-0.5 (1 + 0.1 z_tj): the exponent 0.5; the interval's half-width ~ 1.96 x the
  // slope's standard error 0.1 / sqrt(T) / sqrt(sum (log x - mean)^2).
  const std::vector<double> x = {16, 32, 64, 128, 256};
  const auto draw = [&](int T) {
    std::vector<std::vector<double>> s(static_cast<std::size_t>(T), std::vector<double>(x.size()));
    const RandomStream rs(11, StreamTag::property_test, static_cast<std::uint64_t>(T));
    for (int t = 0; t < T; ++t)
      for (std::size_t j = 0; j < x.size(); ++j)
        s[static_cast<std::size_t>(t)][j] = std::pow(x[j], -0.5) * (1.0 + 0.1 * rs.normal(static_cast<std::uint64_t>(t * 8) + j));
    return s;
  };
  const auto a = bootstrap_power_law(x, draw(10), 2000, 5), b = bootstrap_power_law(x, draw(160), 2000, 5);
  CHECK(a.lo < 0.5);
  CHECK(a.hi > 0.5);
  CHECK(b.lo < 0.5);
  CHECK(b.hi > 0.5);
  const double sxx = 10.0 * std::log(2.0) * std::log(2.0);
  // Half-width within a factor 2 of the normal theory's 1.96 se (bootstrap percentiles at 10 seeds are rough).
  const double se10 = 0.1 / std::sqrt(10.0 * sxx), se160 = 0.1 / std::sqrt(160.0 * sxx);
  CHECK((a.hi - a.lo) / 2.0 > 1.96 * se10 / 2.0);
  CHECK((a.hi - a.lo) / 2.0 < 1.96 * se10 * 2.0);
  CHECK((b.hi - b.lo) / 2.0 > 1.96 * se160 / 2.0);
  CHECK((b.hi - b.lo) / 2.0 < 1.96 * se160 * 2.0);
  CHECK(a.skipped == 0.0);
}

TEST_CASE("a small trained run: positive finite gap below the bound, same bytes twice", "[trained][scaling_gap]") {
  ScalingGapSpec s;
  s.model.d = 4, s.model.teacher_E = 4, s.model.teacher_k = 2, s.model.teacher_w = 8;
  s.model.E = 4, s.model.k = 1, s.model.w = 16, s.model.train_size = 64, s.model.test_size = 4096;
  s.model.steps = 400, s.model.batch = 32;
  s.model.gating.gate = moe::Gate::softmax_all;
  const RngKey key = RngKey::root(3).with("scaling-gap-test");
  const auto r = run_scaling_gap_trial(s, key, 0, true);
  const auto r2 = run_scaling_gap_trial(s, key, 0);
  CHECK(r.test_loss == r2.test_loss);
  CHECK(r.train_mse == r2.train_mse);
  REQUIRE(r.loss_curve.size() == 400);
  CHECK(r2.loss_curve.empty());
  // 64 noisy points (noise 0.5) and 4 x 16 + 1 x (16 + 16 x 4) = 96 active parameters: the fit
  // overfits, so the gap is positive (bounded and MSE), and the train MSE is below the noise level.
  CHECK(std::isfinite(r.gap()));
  CHECK(r.gap() > 0.0);
  CHECK(r.mse_gap() > 0.0);
  CHECK(r.train_mse < 0.25);
  CHECK(r.mean_k == 1.0);
  // At D = 64 the bound is vacuous (above the loss range 1): N_act log(R D) ~ 96 x 6 against 2 D = 128.
  const auto b = scaling_gap_bound(s.model, std::max(1.0, r.param_norm), s.delta);
  CHECK(b.bound > 1.0);
}

TEST_CASE("trained.scaling_gap runs to its fits and refuses bad axes by key", "[trained][scaling_gap]") {
  const auto& sc = test::find_study_in(test::topic_studies<add_studies>(), "trained.scaling_gap");
  McBudget budget;
  budget.trials = 3;
  const auto t = run_study_text(
      sc, "[params]\naxis = \"active\"\nwidths = [2, 8, 32]\ntrain_size = 64\nsteps = 200\nbatch = 32\ntest_size = 1024\nbootstrap = 50\n",
      budget);
  const TableView v(t);
  REQUIRE(v.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::isfinite(v.real(i, "gap_mean")));
    CHECK(v.real(i, "bound") > 0.0);
    CHECK(v.real(i, "mean_k") == 1.0);
  }
  CHECK(v.real(0, "N_active") < v.real(2, "N_active"));
  CHECK(v.real(0, "bound") < v.real(2, "bound"));  // the bound grows with N_act
  CHECK(std::isfinite(v.real(0, "bound_slope")));
  CHECK(test::rejected_key(sc, "[params]\naxis = \"active\"\nwidths = [2, 4]\n") == "params.widths");  // < 3 values
  CHECK(test::rejected_key(sc, "[params]\naxis = \"data\"\n") == "params.train_sizes");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"experts\"\nk = 2\nexpert_counts = [1, 4, 8]\n") == "params.expert_counts");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"active\"\nwidths = [2, 4, 8]\ngate = \"relu\"\n") == "params.gate");
}
