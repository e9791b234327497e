// Expert utilisation against k (trained/utilisation.hpp) on masks built by hand, the study's rows,
// and trained.generalization_gap beyond 64 experts.
#include <bit>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/scenario/runner.hpp"
#include "moelab/trained/utilisation.hpp"
#include "topic_test_support.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinRel;

namespace moelab::trained {
void add_studies(std::vector<StudyDef>& out);
}

TEST_CASE("routing utilisation of hand-built masks", "[trained][utilisation]") {
  // T = 4: masks {0,1} twice and {0,2} twice. Loads 4, 2, 2, 0 (total 8, mean 2).
  const std::vector<std::uint64_t> masks{0b0011, 0b0101, 0b0011, 0b0101};
  const auto u = routing_utilisation(masks, 4);
  CHECK(u.distinct_masks == 2);
  CHECK_THAT(u.effective_masks, WithinRel(2.0, 1e-15));  // two equally frequent masks
  // Load shares 1/2, 1/4, 1/4: H = (1/2) log 2 + (1/2) log 4 = (3/2) log 2, exp(H) = 2^(3/2).
  CHECK_THAT(u.effective_experts, WithinRel(std::pow(2.0, 1.5), 1e-14));
  CHECK(u.load_max_over_mean == 2.0);
  CHECK(u.dead_fraction == 0.25);
  // Balanced top-1 over all experts: everything at its ideal.
  const auto b = routing_utilisation({1, 2, 4, 8}, 4);
  CHECK_THAT(b.effective_experts, WithinRel(4.0, 1e-15));
  CHECK(b.load_max_over_mean == 1.0);
  CHECK(b.dead_fraction == 0.0);
  // Collapse onto one expert: one effective expert, load T / k over the mean.
  const auto c = routing_utilisation({1, 1, 1}, 4);
  CHECK(c.effective_experts == 1.0);
  CHECK(c.load_max_over_mean == 4.0);
  CHECK(c.dead_fraction == 0.75);
}

TEST_CASE("trained.utilisation trains every k and reads the router's masks", "[trained][utilisation]") {
  const auto& s = test::find_study_in(test::topic_studies<trained::add_studies>(), "trained.utilisation");
  test::check_declaration(s);
  McBudget b;
  b.trials = 2;
  const std::string point = "[params]\nM = 2\nR = 4\nT = 4\nwidth = 8\ntrain_size = 256\ntest_size = 256\nsteps = 30\nbatch = 64\n";
  const auto v_table = run_study_text(s, point, b);
  const TableView v(v_table);
  REQUIRE(v.size() == 4);  // k = 1..T
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto k = v.integer(i, "k");
    CHECK(k == static_cast<std::int64_t>(i + 1));
    CHECK(v.real(i, "distinct_masks_mean") <= v.real(i, "masks_possible"));
    CHECK(v.real(i, "effective_masks_mean") <= v.real(i, "distinct_masks_mean") * (1 + 1e-12));
    CHECK(v.real(i, "effective_experts_mean") <= 4.0 * (1 + 1e-12));
    CHECK(v.real(i, "load_max_over_mean_mean") >= 1.0);
    CHECK(v.real(i, "load_max_over_mean_mean") <= 4.0 / static_cast<double>(k) * (1 + 1e-12));
  }
  // k = T: one mask, every expert used equally.
  CHECK(v.real(3, "distinct_masks_mean") == 1.0);
  CHECK(v.real(3, "dead_fraction_mean") == 0.0);
  CHECK(test::rejected_key(s, point + "k_list = [5]\n") == "params.k_list");
}

TEST_CASE("trained.generalization_gap runs with 256 experts and refuses adaptive routing above 64", "[trained][gap]") {
  const auto& s = test::find_study_in(test::topic_studies<trained::add_studies>(), "trained.generalization_gap");
  McBudget b;
  b.trials = 2;
  const std::string point = "[params]\nd = 4\nT = 256\nk = 2\nm = 64\ntest_size = 256\nsteps = 20\nrademacher_draws = 8\n";
  const auto v_table = run_study_text(s, point, b);
  const TableView v(v_table);
  REQUIRE(v.size() == 1);
  CHECK(v.integer(0, "T") == 256);
  CHECK(std::isfinite(v.real(0, "gap_mean")));
  CHECK(test::rejected_key(s, "[params]\nd = 4\nT = 128\nk = 2\nm = 64\ngate = \"softmax_all\"\nrouting = \"top_p\"\ntop_p = 0.5\n") ==
        "params.T");
}

TEST_CASE("a utilisation run is trained.compositional_kstar's run, and its masks are the router's", "[trained][utilisation]") {
  CompositionalSpec s;
  s.M = 2, s.R = 4, s.T = 4, s.k = 2, s.width = 8, s.train_size = 128, s.test_size = 128, s.steps = 20, s.batch = 32;
  const RngKey key = RngKey::root(3).with("utilisation-test");
  const auto u = run_utilisation_trial(s, key, 1);
  const auto r = run_compositional_trial(s, key, 1);
  CHECK(u.run.id_accuracy == r.id_accuracy);
  CHECK(u.run.final_train_loss == r.final_train_loss);
  // The trained model handed back is the one that was evaluated: its masks on the test problems
  // give the utilisation, k experts per problem.
  Model m(moe::MoeShape{});
  (void)run_compositional_trial(s, key, 1, {}, &m);
  const auto test = make_task(s, key).draw(s.test_size, key.with("data", 1).seed(), StreamTag::moe_test_data, false);
  const auto masks = router_masks(m, test.X);
  for (auto mask : masks) CHECK(std::popcount(mask) == 2);
  CHECK(routing_utilisation(masks, 4).distinct_masks == u.usage.distinct_masks);
  CHECK(routing_utilisation(masks, 4).effective_experts == u.usage.effective_experts);
}
