// Scaling fits and routing usage (trained/scaling_experiment.hpp), router masks against the moe
// forward pass, and the topic's study declarations.
#include <cmath>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/moe/teacher_student.hpp"
#include "moelab/trained/fit_moe.hpp"
#include "moelab/trained/generalization_gap.hpp"
#include "moelab/trained/scaling_experiment.hpp"
#include "moelab/scenario/runner.hpp"
#include "topic_test_support.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace moelab::trained {
void add_studies(std::vector<StudyDef>& out);
}

TEST_CASE("power-law fit recovers an exact exponent and weighs by relative error", "[trained][scaling]") {
  // Exact law L = 3 x^-0.7: exponent 0.7, intercept log 3, chi2 = 0 (rounding only).
  std::vector<double> x = {10, 20, 40, 80, 160}, mean, se;
  for (double v : x) mean.push_back(3.0 * std::pow(v, -0.7)), se.push_back(0.05 * 3.0 * std::pow(v, -0.7));
  const auto f = fit_power_law(x, mean, se);
  CHECK_THAT(f.exponent, WithinAbs(0.7, 1e-12));
  CHECK_THAT(f.intercept, WithinAbs(std::log(3.0), 1e-11));
  CHECK(f.chi2_dof < 1e-20);
  // Equal relative errors 5% -> Var(log L) = 0.0025 each; the slope's standard error is
  // sqrt(0.0025 / sum (log x - mean)^2), sum = log(2)^2 (4 + 1 + 0 + 1 + 4) = 10 log(2)^2.
  CHECK_THAT(f.se, WithinRel(0.05 / std::sqrt(10.0 * std::log(2.0) * std::log(2.0)), 1e-10));
  // A point with a huge error barely moves the fit.
  mean[2] *= 2.0, se[2] = mean[2] * 100.0;
  CHECK_THAT(fit_power_law(x, mean, se).exponent, WithinAbs(0.7, 1e-3));
}

TEST_CASE("power-law fit through 2 values: the exact line, with the delta-method error", "[trained][scaling][hardening]") {
  // 2 values is the documented minimum; the weighted least squares needs 3 (it once ended the run
  // with an internal error after all the training).
  const std::vector<double> x = {10, 40};
  std::vector<double> mean, se;
  for (double v : x) mean.push_back(3.0 * std::pow(v, -0.7)), se.push_back(0.05 * 3.0 * std::pow(v, -0.7));
  const auto f = fit_power_law(x, mean, se);
  CHECK_THAT(f.exponent, WithinAbs(0.7, 1e-12));
  CHECK_THAT(f.intercept, WithinAbs(std::log(3.0), 1e-12));
  // Var(slope) = (0.05^2 + 0.05^2) / log(4)^2.
  CHECK_THAT(f.se, WithinRel(0.05 * std::sqrt(2.0) / std::log(4.0), 1e-12));
  CHECK(std::isnan(f.chi2_dof));
}

TEST_CASE("trained.scaling with 2 axis values runs to its fit, and a repeated value is refused before any work",
          "[trained][scaling][hardening]") {
  const auto& sc = test::find_study_in(test::topic_studies<add_studies>(), "trained.scaling");
  McBudget budget;
  budget.trials = 2;
  const auto t = run_study_text(sc, "[params]\naxis = \"active\"\nwidths = [2, 4]\nsteps = 5\nbatch = 16\ntest_size = 64\n", budget);
  const TableView v(t);
  REQUIRE(v.size() == 2);
  CHECK(std::isfinite(v.real(0, "fitted_exponent")));
  CHECK(std::isfinite(v.real(0, "fitted_exponent_se")));
  CHECK(test::rejected_key(sc, "[params]\naxis = \"active\"\nwidths = [4, 4]\n") == "params.widths");
}

TEST_CASE("routing usage: distinct masks and exp(entropy)", "[trained][scaling]") {
  const auto u = routing_usage({1, 2, 4, 8, 1, 2, 4, 8});
  CHECK(u.distinct == 4);
  CHECK_THAT(u.effective, WithinRel(4.0, 1e-14));
  const auto v = routing_usage({3, 3, 3, 5});  // p = (3/4, 1/4)
  CHECK(v.distinct == 2);
  CHECK_THAT(v.effective, WithinRel(std::exp(-(0.75 * std::log(0.75) + 0.25 * std::log(0.25))), 1e-14));
}

TEST_CASE("router_masks agree with the experts moe::forward selects", "[trained][fit]") {
  moe::MoeShape s;
  s.m = 8, s.k = 3, s.w = 4, s.d = 5, s.d_out = 2;
  for (bool bias : {false, true}) {
    s.router_bias = bias;
    Model f(s);
    moe::init_pytorch(f, 7);
    if (bias) f.router_b(f.params()).setLinSpaced(-0.3, 0.4);
    const Mat X = moe::gaussian_inputs<double>(5, 300, 9, StreamTag::moe_test_data, 0);
    moe::ForwardCache<double> cache;
    Mat Y;
    moe::forward(f, X, nullptr, cache, Y);
    const auto masks = router_masks(f, X);
    for (int i = 0; i < 300; ++i) {
      std::uint64_t m = 0;
      for (int j = 0; j < s.k; ++j) m |= std::uint64_t{1} << cache.slot_expert[static_cast<std::size_t>(i * s.k + j)];
      REQUIRE(masks[static_cast<std::size_t>(i)] == m);
    }
  }
}

TEST_CASE("trained studies: declarations complete", "[trained][studies]") {
  const auto& all = test::topic_studies<add_studies>();
  REQUIRE(all.size() == 8);  // gap, compositional_kstar, inference_k, scaling, scaling_gap, sraven, sraven_difficulty, utilisation
  for (const auto& s : all) test::check_declaration(s);
}

TEST_CASE("trained studies reject bad values naming the key", "[trained][studies]") {
  const auto& all = test::topic_studies<add_studies>();
  const auto& gap = test::find_study_in(all, "trained.generalization_gap");
  CHECK(test::rejected_key(gap, "[params]\nT = 4\nk = 5\nm = 64\n") == "params.k");  // k > T
  CHECK(test::rejected_key(gap, "[params]\nT = 4\nk = 2\nm = 1\n") == "params.m");   // m >= 2
  CHECK(test::rejected_key(gap, "[params]\nT = 4\nk = 2\n") == "params.m");          // required
  const auto& ks = test::find_study_in(all, "trained.compositional_kstar");
  const std::string base = "[params]\nM = 2\ntrain_size = 10\nsteps = 1\n";
  CHECK(test::rejected_key(ks, base + "k_list = [1, 9]\n") == "params.k_list");  // k > T = 8
  CHECK(test::rejected_key(ks, base + "k_list = []\n") == "params.k_list");
  CHECK(test::rejected_key(ks, base + "k_list = [1]\nV = 2\nR = 9\n") == "params.R");  // more rules than V^3
  const auto& sc = test::find_study_in(all, "trained.scaling");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"active\"\n") == "params.widths");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"data\"\ntrain_sizes = [100]\n") == "params.train_sizes");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"experts\"\nexperts_k = 2\nexpert_counts = [1, 4]\n") == "params.expert_counts");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"depth\"\n") == "params.axis");
  // Gates and adaptive routing: every bad combination is refused by the key at fault.
  const std::string kb = base + "k_list = [8]\n";
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax\"\n") == "params.gate");                       // not a gate
  CHECK(test::rejected_key(ks, kb + "routing = \"top_p\"\ntop_p = 0.5\n") == "params.gate");       // needs softmax_all
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax_all\"\nrouting = \"top_p\"\n") == "params.top_p");  // missing
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax_all\"\nrouting = \"top_p\"\ntop_p = 1.5\n") == "params.top_p");
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax_all\"\nrouting = \"top_p\"\ntop_p = 0\n") == "params.top_p");
  CHECK(test::rejected_key(ks, kb + "top_p = 0.5\n") == "params.top_p");                              // unused with top_k
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax_all\"\nrouting = \"threshold\"\n") == "params.threshold");
  CHECK(test::rejected_key(ks, kb + "gate = \"softmax_all\"\nrouting = \"threshold\"\nthreshold = -0.1\n") == "params.threshold");
  CHECK(test::rejected_key(gap, "[params]\nT = 4\nk = 2\nm = 64\ngate = \"relu\"\n") == "params.gate");
  CHECK(test::rejected_key(sc, "[params]\naxis = \"active\"\nwidths = [2, 4]\nrouting = \"any\"\n") == "params.routing");
  const auto& ik = test::find_study_in(all, "trained.inference_k");
  CHECK(test::rejected_key(ik, base + "k0_list = [0]\n") == "params.k0_list");
  CHECK(test::rejected_key(ik, base + "k0_list = [2]\neval_k_list = [9]\n") == "params.eval_k_list");
  CHECK(test::rejected_key(ik, base + "k0_list = [2]\ngate = \"softmax_all\"\nrouting = \"top_p\"\ntop_p = 0.5\n") == "params.routing");
}

TEST_CASE("trained.inference_k: one row per inference k, the gain at k = k0 exactly 0", "[trained][studies]") {
  const auto& all = test::topic_studies<add_studies>();
  McBudget budget;
  budget.trials = 2;
  const std::string task = "[params]\nM = 2\nR = 4\nwidth = 8\ntrain_size = 64\ntest_size = 64\nsteps = 5\nbatch = 16\n";
  const auto ti = run_study_text(test::find_study_in(all, "trained.inference_k"), task + "k0_list = [2]\neval_k_list = [1, 2, 4]\n", budget);
  const auto tk = run_study_text(test::find_study_in(all, "trained.compositional_kstar"), task + "k_list = [2]\n", budget);
  const TableView vi(ti), vk(tk);
  REQUIRE(vi.size() == 3);
  REQUIRE(vk.size() == 1);
  CHECK(vi.integer(1, "k") == 2);
  CHECK(vi.real(1, "ood_head_gain_mean") == 0.0);  // k = k0: the model paired against itself
  CHECK(vi.real(1, "id_head_gain_mean") == 0.0);
  CHECK(vi.real(0, "ood_head_gain_mean") != 0.0);  // k = 1 computes another function
  CHECK(vk.real(0, "mean_k") == 2.0);
}

TEST_CASE("adaptive routing in a trained study reports its mean k between 1 and the cap", "[trained][studies]") {
  const auto& ks = test::find_study_in(test::topic_studies<add_studies>(), "trained.compositional_kstar");
  McBudget budget;
  budget.trials = 2;
  const auto t = run_study_text(ks, "[params]\nM = 2\nR = 4\nwidth = 8\ntrain_size = 64\ntest_size = 64\nsteps = 5\nbatch = 16\n"
                                    "k_list = [8]\ngate = \"softmax_all\"\nrouting = \"top_p\"\ntop_p = 0.5\n", budget);
  const TableView v(t);
  REQUIRE(v.size() == 1);
  // Near-uniform router at this tiny training: mass 0.5 of 8 experts needs about 4 of them.
  CHECK(v.real(0, "mean_k") >= 1.0);
  CHECK(v.real(0, "mean_k") <= 8.0);
  CHECK(v.real(0, "mean_k") > 1.0);
}

TEST_CASE("trained.generalization_gap writes Theorem 1's forms from the bounds topic", "[trained][studies]") {
  const auto& gap = test::find_study_in(test::topic_studies<add_studies>(), "trained.generalization_gap");
  McBudget budget;
  budget.trials = 2;
  const auto t = run_study_text(gap, "[params]\nd = 4\nT = 4\nk = 2\nm = 32\ntest_size = 256\nsteps = 20\nrademacher_draws = 20\n", budget);
  const TableView v(t);
  REQUIRE(v.size() == 1);
  GapSpec s;
  s.d = 4, s.T = 4, s.k = 2, s.m = 32;
  const auto p = theorem1_params(s, v.real(0, "expert_rademacher_mean"));
  CHECK_THAT(v.real(0, "bound_printed"), WithinRel(bounds::theorem1_printed(p).total, 1e-12));
  CHECK_THAT(v.real(0, "bound_eq17"), WithinRel(bounds::theorem1_eq17(p).total, 1e-12));
  CHECK_THAT(v.real(0, "bound_derived"), WithinRel(bounds::theorem1_derived(p).total, 1e-12));
  CHECK(v.real(0, "gap_ci_low") <= v.real(0, "gap_mean"));
  CHECK(v.real(0, "gap_mean") <= v.real(0, "gap_ci_high"));
  CHECK(v.integer(0, "trials") == 2);
}
