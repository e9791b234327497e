// The granularity paper's Fig. 1 toy (moe/granularity_toy.hpp): the constructions represent the target
// exactly, a perturbed construction does not, the configurations have equal active expert parameters,
// training lowers the error, and the study's rows.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/moe/granularity_toy.hpp"
#include "moelab/scenario/runner.hpp"
#include "topic_test_support.hpp"

using namespace moelab;
using namespace moelab::moe;

namespace moelab::moe {
void add_studies(std::vector<StudyDef>& out);
}

TEST_CASE("the Fig. 1 constructions (9 experts top-1, 6 experts top-2) represent topic + language exactly",
          "[moe][granularity_toy]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    ToyTask task;
    task.p = 5 + static_cast<int>(seed), task.h = 3;
    const ToyTarget target = draw_toy_target(task, seed);
    for (double lambda : {1.0, 4.0}) {
      const auto coarse = evaluate_toy(target, constructive_toy_moe(target, 9, 1, lambda), 4096, seed);
      const auto fine = evaluate_toy(target, constructive_toy_moe(target, 6, 2, lambda), 4096, seed);
      INFO("seed " << seed << " lambda " << lambda);
      // The construction computes the same relu sums as the target, divided and multiplied by the
      // gate weight g: each output within a few ulp of |y| ~ 1, so MSE / Var(y) below (1e-14)^2.
      CHECK(coarse.normalized_mse < 1e-28);
      CHECK(fine.normalized_mse < 1e-28);
      CHECK(coarse.target_variance > 0.05);  // a non-degenerate target (Var y ~ 2 h E relu^2 / h)
      CHECK(coarse.distinct_masks == 9);     // one mask per (topic, language) cell
      CHECK(fine.distinct_masks == 9);       // {topic t, language l}: again 9 masks, from 6 experts
    }
    // A construction with one language expert's output off by 5% is detectably wrong.
    MoeModel<double> off = constructive_toy_moe(target, 6, 2);
    off.w2(off.params(), 4) *= 1.05;
    CHECK(evaluate_toy(target, off, 4096, seed).normalized_mse > 1e-5);
  }
}

TEST_CASE("the toy's configurations have equal active expert parameters", "[moe][granularity_toy]") {
  const ToyTask task;  // T = L = 3, h = 4
  for (int c = 0; c < kToyConfigs; ++c) {
    const auto [m, k] = toy_config(task, c);
    const MoeShape s = toy_shape(task, m, k);
    CHECK(s.k * s.w == 2 * task.h);
    // Active expert parameters: k experts of w (d + d_out) weights, no biases; the router adds m d.
    CHECK(active_parameter_count(s) == static_cast<std::int64_t>(s.k) * s.w * (task.d() + 1) + static_cast<std::int64_t>(m) * task.d());
  }
  CHECK(toy_config(task, 0) == std::pair<int, int>{9, 1});
  CHECK(toy_config(task, 1) == std::pair<int, int>{6, 2});
  CHECK(toy_config(task, 2) == std::pair<int, int>{6, 1});
}

TEST_CASE("training the toy lowers its error and is deterministic", "[moe][granularity_toy]") {
  ToyTask task;
  const ToyTarget target = draw_toy_target(task, 7);
  ToyTraining cfg;
  cfg.steps = 300, cfg.batch = 128, cfg.test_n = 2048;
  const auto a = train_toy(target, 6, 2, cfg, 11, 5);
  const auto b = train_toy(target, 6, 2, cfg, 11, 5);
  CHECK(a.test_mse == b.test_mse);
  // An untrained model (PyTorch init, outputs ~0.3 of the target's scale) is near Var(y) or above;
  // 300 steps bring the (6, 2) model well below it.
  MoeModel<double> init(toy_shape(task, 6, 2));
  init_pytorch(init, 11);
  const double before = evaluate_toy(target, init, 2048, 5).normalized_mse;
  CHECK(before > 0.5);
  CHECK(a.normalized_mse < 0.5 * before);
}

TEST_CASE("moe.granularity_toy writes one row per configuration with the constructive errors", "[moe][granularity_toy]") {
  const auto& s = test::find_study_in(test::topic_studies<moe::add_studies>(), "moe.granularity_toy");
  test::check_declaration(s);
  McBudget b;
  b.trials = 2;
  const auto v_table = run_study_text(s, "[params]\nsteps = 40\nbatch = 64\ntest_samples = 512\nlearning_rates = [1e-2]\n", b);
  const TableView v(v_table);
  REQUIRE(v.size() == 3);
  CHECK(v.text(0, "config") == "granularity1_all");
  CHECK(v.integer(0, "m") == 9);
  CHECK(v.integer(1, "m") == 6);
  CHECK(v.integer(1, "k") == 2);
  CHECK(v.integer(2, "k") == 1);
  CHECK(v.real(0, "constructive_normalized_mse") < 1e-28);
  CHECK(v.real(1, "constructive_normalized_mse") < 1e-28);
  CHECK(std::isnan(v.real(2, "constructive_normalized_mse")));
  CHECK(v.real(0, "gap_vs_all") == 0.0);
  CHECK(test::rejected_key(s, "[params]\nlearning_rates = [0.0]\n") == "params.learning_rates");
  CHECK(test::rejected_key(s, "[params]\ntopics = 9\nlanguages = 8\n") == "params.languages");
}
