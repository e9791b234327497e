// SRAVEN with non-uniform combination frequencies (sraven_task.hpp, App. A.5 of the compositional
// paper) and the study trained.sraven_difficulty: drawn combinations follow the power-law weights
// (chi-square and per-cell binomial bounds; the same draws reject a wrong weighting), weights of 1
// reproduce the uniform sampler bit for bit, M = 2's weights are A.5's pairwise weights (their sum over
// ordered pairs is the sparsity topic's W), the weighted Bayes prior, the paired design (the uniform
// test problems and initial parameters do not depend on the weighting), and bad keys refused by name.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/keys.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"
#include "moelab/trained/sraven_task.hpp"
#include "topic_test_support.hpp"

using namespace moelab;
using namespace moelab::trained;

namespace moelab::trained {
void add_studies(std::vector<StudyDef>& out);
}

namespace {

sparsity::DifficultySpec powerlaw(double alpha) {
  sparsity::DifficultySpec s;
  s.kind = sparsity::Difficulty::powerlaw;
  s.alpha = alpha;
  return s;
}

/// Counts of each combination index among n weighted draws on one side.
std::map<int, std::int64_t> draw_counts(const SravenTask& task, bool ood, std::int64_t n, std::uint64_t seed) {
  std::map<int, std::int64_t> counts;
  const auto& all = task.combinations();
  for (std::int64_t i = 0; i < n; ++i) {
    const auto p = task.sample(seed, StreamTag::moe_train_data, static_cast<std::uint64_t>(i), ood, true);
    const auto at = std::lower_bound(all.begin(), all.end(), p.combination) - all.begin();
    ++counts[static_cast<int>(at)];
  }
  return counts;
}

/// Pearson's chi-square of the counts against probabilities q over the side's combinations, and its
/// upper-tail p-value with (cells - 1) degrees of freedom.
double chi_square_p(const SravenTask& task, bool ood, const std::map<int, std::int64_t>& counts, std::int64_t n,
                    const std::vector<double>& q) {
  const auto& side = ood ? task.ood_indices() : task.id_indices();
  double chi2 = 0.0;
  for (int c : side) {
    const double e = static_cast<double>(n) * q[static_cast<std::size_t>(c)];
    const auto it = counts.find(c);
    const double o = it == counts.end() ? 0.0 : static_cast<double>(it->second);
    chi2 += (o - e) * (o - e) / e;
  }
  const double df = static_cast<double>(side.size()) - 1.0;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(df), chi2));
}

std::vector<double> side_probabilities(const SravenTask& task, bool ood) {
  std::vector<double> q(task.combinations().size());
  for (std::size_t c = 0; c < q.size(); ++c) q[c] = task.combination_probability(static_cast<int>(c), ood);
  return q;
}

}  // namespace

TEST_CASE("sraven difficulty: drawn combinations follow the power-law weights, and a wrong weighting is rejected",
          "[trained][sraven][difficulty]") {
  // n = 40000 draws per case: the smallest expected count (M = 3, alpha = 3: p ~ 5e-4) is ~20, where
  // Pearson's statistic is close to its chi-square law. Level 1e-4 per case (16 cases: family error
  // <= 2e-3 under the truth; the seeds are fixed, so the outcome is deterministic).
  const std::int64_t n = 40000;
  int cases = 0;
  for (int M : {1, 2, 3}) {
    for (double alpha : {1.5, 2.0, 3.0}) {
      SravenTask task(M, 8, 3, 8, 0.25, 11 + static_cast<std::uint64_t>(M));
      task.set_combination_weights(powerlaw_combination_weights(task, powerlaw(alpha)));
      for (bool ood : {false, true}) {
        if (M == 1 && ood) continue;  // two held-out rules: a one-degree-of-freedom check is covered by the bounds below
        ++cases;
        const auto counts = draw_counts(task, ood, n, 100 + static_cast<std::uint64_t>(10 * alpha));
        const auto q = side_probabilities(task, ood);
        INFO(fmt::format("M = {}, alpha = {}, {}", M, alpha, ood ? "OOD" : "ID"));
        CHECK(chi_square_p(task, ood, counts, n, q) > 1e-4);
        // Per cell: |count - n q| <= 5 binomial s.d. (P(|Z| > 5) = 5.7e-7 per cell, at most 120
        // cells per case: 7e-5).
        for (int c : ood ? task.ood_indices() : task.id_indices()) {
          const double e = static_cast<double>(n) * q[static_cast<std::size_t>(c)];
          const auto it = counts.find(c);
          const double o = it == counts.end() ? 0.0 : static_cast<double>(it->second);
          CHECK(std::abs(o - e) <= 5.0 * std::sqrt(e * (1.0 - q[static_cast<std::size_t>(c)])));
        }
        // Controls on the same draws: the uniform law and the power law at alpha + 0.5 are rejected
        // at the same level (the test has power against the alternatives that matter here).
        SravenTask uniform(M, 8, 3, 8, 0.25, 11 + static_cast<std::uint64_t>(M));
        CHECK(chi_square_p(task, ood, counts, n, side_probabilities(uniform, ood)) < 1e-4);
        SravenTask steeper(M, 8, 3, 8, 0.25, 11 + static_cast<std::uint64_t>(M));
        steeper.set_combination_weights(powerlaw_combination_weights(steeper, powerlaw(alpha + 0.5)));
        CHECK(chi_square_p(task, ood, counts, n, side_probabilities(steeper, ood)) < 1e-4);
      }
    }
  }
  CHECK(cases == 15);
}

TEST_CASE("sraven difficulty: weights of 1 reproduce the uniform sampler bit for bit, and setting weights leaves it unchanged",
          "[trained][sraven][difficulty]") {
  for (int M : {1, 2, 4}) {
    const SravenTask plain(M, 8, 3, 8, 0.25, 5);
    SravenTask ones(M, 8, 3, 8, 0.25, 5), weighted(M, 8, 3, 8, 0.25, 5);
    ones.set_combination_weights(std::vector<double>(ones.combinations().size(), 1.0));
    weighted.set_combination_weights(powerlaw_combination_weights(weighted, powerlaw(2.0)));
    for (bool ood : {false, true})
      for (std::uint64_t i = 0; i < 2000; ++i) {
        const auto a = plain.sample(9, StreamTag::moe_train_data, i, ood);
        const auto b = ones.sample(9, StreamTag::moe_train_data, i, ood, true);  // the cumulative path, weights 1
        const auto c = weighted.sample(9, StreamTag::moe_train_data, i, ood);  // weights set, uniform draw
        REQUIRE(a.combination == b.combination);
        REQUIRE(a.values == b.values);
        REQUIRE(a.combination == c.combination);
        REQUIRE(a.values == c.values);
        CHECK(plain.bayes_correct(a, ood) == ones.bayes_correct(a, ood, true));
      }
  }
  // The weighted draw moves only the combination: given the same combination, the values are the
  // uniform sampler's (draw 0 picks it either way).
  SravenTask w(2, 8, 3, 8, 0.25, 5);
  w.set_combination_weights(powerlaw_combination_weights(w, powerlaw(3.0)));
  int same = 0;
  for (std::uint64_t i = 0; i < 500; ++i) {
    const auto a = w.sample(4, StreamTag::moe_train_data, i, false), b = w.sample(4, StreamTag::moe_train_data, i, false, true);
    if (a.combination == b.combination) {
      ++same;
      CHECK(a.values == b.values);
    }
  }
  CHECK(same > 0);
}

TEST_CASE("sraven difficulty: at M = 2 the weights are App. A.5's pairwise power law, summing to the sparsity topic's W",
          "[trained][sraven][difficulty]") {
  for (double alpha : {1.1, 2.0, 3.5}) {
    for (auto profile : {sparsity::DifficultyProfile::index, sparsity::DifficultyProfile::power, sparsity::DifficultyProfile::list}) {
      auto spec = powerlaw(alpha);
      spec.profile = profile;
      spec.gamma = 1.7;
      spec.D = {0.5, 2.0, 1.0, 7.0, 3.0, 0.25, 4.0, 9.0};
      const SravenTask task(2, 8, 3, 8, 0.25, 3);
      const auto w = powerlaw_combination_weights(task, spec);
      const auto D = sparsity::difficulty_values(spec, 8);
      double ordered = 0.0;
      for (std::size_t c = 0; c < w.size(); ++c) {
        const auto& rc = task.combinations()[c];
        const double want = std::pow(D[static_cast<std::size_t>(rc[0])] + D[static_cast<std::size_t>(rc[1])], -alpha);
        CHECK(w[c] == want);  // the same expression, evaluated the same way
        ordered += (rc[0] == rc[1] ? 1.0 : 2.0) * w[c];  // a multiset {i, i'} is two ordered pairs when i != i'
      }
      // Same terms summed in another order: a few ulps of the sum (64 terms, relative 1e-14).
      CHECK_THAT(ordered, Catch::Matchers::WithinRel(sparsity::powerlaw_weight_sum(D, alpha), 1e-14));
    }
  }
  // Profile index: rule r has D = r + 1, so the heaviest combination is (constant, constant), w = 2^-alpha.
  const SravenTask t(2, 8, 3, 8, 0.25, 3);
  const auto w = powerlaw_combination_weights(t, powerlaw(2.0));
  CHECK(w.front() == 0.25);
  CHECK(*std::max_element(w.begin(), w.end()) == w.front());
  CHECK(w.back() == std::pow(16.0, -2.0));
}

TEST_CASE("sraven difficulty: the weighted Bayes prior favours the heavier combination on an ambiguous context",
          "[trained][sraven][difficulty]") {
  // M = 1, R = 8, V = 8, 2 rows (one full row, then two shown values): row (1, 2, 3) then (3, 4) fits
  // progression +1 (answer 5; likelihood 1/8 for the row, 1/8 for the shown pair) and addition
  // (1 + 2 = 3; answer 3 + 4 = 7; 1/64 and 1/64); no other rule fits (checked by the ceiling below:
  // under the uniform prior the answer 5 wins, so the truth 7 of an addition problem is missed).
  SravenTask task(1, 8, 2, 8, 0.0, 1);
  SravenTask::Problem p;
  p.combination = {5};
  p.values = {1, 2, 3, 3, 4, 7};  // addition: 1 + 2 = 3, 3 + 4 = 7
  int ans = 0;
  const double l_prog = task.likelihood(1, p.values.data(), &ans);
  REQUIRE(ans == 5);
  const double l_add = task.likelihood(5, p.values.data(), &ans);
  REQUIRE(ans == 7);
  REQUIRE(l_prog > l_add);
  // Uniform prior: progression +1 wins (answer 5), the truth 7 loses.
  CHECK(task.bayes_correct(p, false) == 0.0);
  // A prior with addition heavier than progression +1 by more than the likelihood ratio flips it.
  std::vector<double> w(8, 1.0);
  w[5] = 2.0 * l_prog / l_add;
  task.set_combination_weights(w);
  CHECK(task.bayes_correct(p, false, true) == 1.0);
  CHECK(task.bayes_correct(p, false) == 0.0);  // the uniform ceiling does not see the weights
}

TEST_CASE("sraven difficulty: a weighted run shares the seed's initial parameters and uniform test problems",
          "[trained][sraven][difficulty]") {
  // Frozen runs (lr 0): nothing is trained, so the uniform ID and OOD test scores are functions of the
  // initial parameters and the test problems alone. They equal the uniform run's bit for bit: the
  // weighting changes only the training draw and adds the weighted test sets.
  SravenSpec s;
  s.M = 2, s.V = 5, s.heads = 2, s.d_head = 4, s.T = 4, s.k = 2, s.width = 8, s.steps = 3, s.batch = 8, s.test_size = 256;
  const RngKey key = RngKey::root(5).with("difficulty_pairing");
  const SravenRun u = run_sraven_trial(s, key, 0, 0.0);
  s.combination_weights = powerlaw(3.0);
  const SravenRun w = run_sraven_trial(s, key, 0, 0.0);
  CHECK(u.initial_loss == w.initial_loss);
  CHECK(u.id_accuracy == w.id_accuracy);
  CHECK(u.ood_accuracy == w.ood_accuracy);
  CHECK(u.bayes_id == w.bayes_id);
  // Under uniform the weighted columns are the uniform ones; under the power law they are other
  // problems (weighted towards the low rules), and their ceilings are probabilities.
  CHECK(u.id_weighted_accuracy == u.id_accuracy);
  CHECK(u.bayes_id_weighted == u.bayes_id);
  CHECK(w.bayes_id_weighted <= 1.0);
  CHECK(w.bayes_id_weighted > 0.5);
}

TEST_CASE("trained.sraven_difficulty refuses bad keys by name and writes a row per weighting and k",
          "[trained][sraven][difficulty][studies]") {
  const auto& st = test::find_study_in(test::topic_studies<add_studies>(), "trained.sraven_difficulty");
  test::check_declaration(st);
  const std::string base = "[params]\nM = 2\nsteps = 1\nk_list = [1, 2]\n";
  CHECK(test::rejected_key(st, base) == "params.difficulty_alphas");                                   // required
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2, 1]\n") == "params.difficulty_alphas");  // A.5: alpha > 1
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [0.5]\n") == "params.difficulty_alphas");
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2, 2]\n") == "params.difficulty_alphas");  // repeated
  CHECK(test::rejected_key(st, base + "difficulty_alphas = []\n") == "params.difficulty_alphas");
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2]\ndifficulty_profile = \"list\"\n") == "params.difficulty_profile");
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2]\ndifficulty_profile = \"list\"\ndifficulty_D = [1, 2, 3]\n") ==
        "params.difficulty_D");  // R = 8 rules need 8 entries
  CHECK(test::rejected_key(st, "[params]\nM = 2\nsteps = 1\nk_list = [1]\nR = 3\ndifficulty_alphas = [2]\n"
                                "difficulty_profile = \"list\"\ndifficulty_D = [1, 0, 3]\n") == "params.difficulty_D");  // D > 0
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2]\ndifficulty_D = [1, 2, 3, 4, 5, 6, 7, 8]\n") ==
        "params.difficulty_D");  // only with profile list
  CHECK(test::rejected_key(st, base + "difficulty_alphas = [2]\ndifficulty_profile = \"zipf\"\n") == "params.difficulty_profile");
  CHECK(test::rejected_key(st, "[params]\nM = 2\nsteps = 1\nk_list = [1, 9]\ndifficulty_alphas = [2]\n") ==
        "params.k_list");  // trained.sraven's checks: k > T = 8

  McBudget budget;
  budget.trials = 2;
  const auto t = run_study_text(st, "[params]\nM = 2\nV = 5\nR = 4\nk_list = [1, 4]\nT = 4\nwidth = 8\nheads = 2\nd_head = 4\n"
                                    "steps = 4\nbatch = 8\ntest_size = 64\nbootstrap = 50\ndifficulty_alphas = [1.5, 3]\n",
                                budget);
  const TableView v(t);
  REQUIRE(v.size() == 6);  // (uniform, 1.5, 3) x (k = 1, 4)
  const std::int64_t id_combos = SravenTask::combination_count(4, 2) - 2;  // C(5, 2) = 10, floor(2.5) held out
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool uniform = i < 2;
    CHECK(v.text(i, "combination_weights") == (uniform ? "uniform" : "powerlaw"));
    CHECK(v.integer(i, "k") == (i % 2 == 0 ? 1 : 4));
    if (uniform) {
      CHECK(std::isnan(v.real(i, "difficulty_alpha")));
      CHECK(v.real(i, "id_weighted_accuracy_mean") == v.real(i, "id_accuracy_mean"));
      CHECK(v.real(i, "ood_weighted_accuracy_mean") == v.real(i, "ood_accuracy_mean"));
      CHECK(v.real(i, "weight_sum") == 16.0);  // R^2 compositions of weight 1
      // 1 / sum p^2 of a uniform law is its support: the ID combinations (up to the rounding of 1 / n^2).
      CHECK_THAT(v.real(i, "effective_combinations"), Catch::Matchers::WithinRel(static_cast<double>(id_combos), 1e-12));
    } else {
      CHECK(v.real(i, "difficulty_alpha") == (i < 4 ? 1.5 : 3.0));
      CHECK(v.real(i, "effective_combinations") < static_cast<double>(id_combos));  // concentrated
      CHECK(v.real(i, "weight_sum") < 16.0);  // every (D_i + D_i')^-alpha < 1
      // The closed form: a power law never moves k* above the uniform k* (docs/sparsity.md).
      CHECK(v.integer(i, "kstar_closed_form") <= v.integer(0, "kstar_closed_form"));
    }
    for (const char* c : {"kstar_id", "kstar_id_weighted", "kstar_ood", "kstar_ood_weighted"}) {
      const auto k = v.integer(i, c);
      CHECK((k == 1 || k == 4));
    }
    CHECK(v.integer(i, "kstar_id_weighted_lo") <= v.integer(i, "kstar_id_weighted_hi"));
    CHECK(v.integer(i, "trials") == 2);
  }
  // The steeper law concentrates more.
  CHECK(v.real(4, "effective_combinations") < v.real(2, "effective_combinations"));
}
