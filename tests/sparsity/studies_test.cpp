// The declarative studies of sparsity/: declarations (unique columns, bad values rejected naming the
// key) and their rows, read by column name, against the closed forms they tabulate.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "topic_test_support.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::sparsity {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;

namespace {
const std::vector<StudyDef>& studies() { return test::topic_studies<sparsity::add_studies>(); }
const StudyDef& study(const std::string& name) { return test::find_study_in(studies(), name); }
using test::rejected_key;
}  // namespace

TEST_CASE("sparsity studies declare unique documented columns and are deterministic", "[sparsity][studies]") {
  REQUIRE(studies().size() == 4);
  for (const auto& s : studies()) {
    test::check_declaration(s);
    CHECK(s.trial_unit.empty());
  }
}

TEST_CASE("sparsity studies reject bad values naming the key", "[sparsity][studies]") {
  const auto& ks = study("sparsity.kstar");
  CHECK(rejected_key(ks, "[params]\nN = 0.5\nm = 100\nT = 8\n") == "params.N");
  CHECK(rejected_key(ks, "[params]\nN = 2\nm = 100\nT = 0\n") == "params.T");
  CHECK(rejected_key(ks, "[params]\nN = 2\nm = 100\nT = 8\ndelta = 1\n") == "params.delta");
  CHECK(rejected_key(ks, "[params]\nN = 2\nm = 100\nT = 8\nform = \"def5\"\n") == "params.form");
  CHECK(rejected_key(study("sparsity.tradeoff"), "[params]\nN = 2\nm = 100\nT = 2000000\n") == "params.T");  // one row per k
}

TEST_CASE("sparsity.kstar and sparsity.tradeoff agree with the closed forms", "[sparsity][studies]") {
  const std::string point = "[params]\nN = 4\nm = 10000\nd_N = 2\nT = 64\na = 0.01\nform = \"theorem1\"\n";
  const auto k = run_study_text(study("sparsity.kstar"), point, McBudget{});
  const auto c = run_study_text(study("sparsity.tradeoff"), point, McBudget{});
  const TableView kv(k), cv(c);
  REQUIRE(kv.size() == 1);
  REQUIRE(cv.size() == 64);
  const sparsity::TradeoffParams p{.N = 4, .m = 10000, .d_N = 2, .T = 64, .a = 0.01, .b = 1.0};
  const auto best = sparsity::integer_k_star(p, sparsity::EstimationForm::theorem1);
  CHECK(kv.text(0, "form") == "theorem1");
  CHECK(kv.integer(0, "k_star") == best.k);
  CHECK(kv.real(0, "error_at_k_star") == best.error);
  for (std::size_t i = 0; i < cv.size(); ++i) {
    CHECK(cv.integer(i, "k") == static_cast<std::int64_t>(i + 1));
    CHECK(cv.integer(i, "is_k_star") == (cv.integer(i, "k") == best.k ? 1 : 0));
  }
  CHECK(cv.real(static_cast<std::size_t>(best.k - 1), "total") == best.error);
}

TEST_CASE("sparsity.kstar_difficulty under uniform difficulty is sparsity.kstar bit for bit", "[sparsity][studies]") {
  // The uniform model returns the trade-off unchanged (with_difficulty), so every shared column is the
  // same double, for each estimation form.
  for (const char* form : {"definition5", "definition5_e", "theorem1"}) {
    const std::string point =
        fmt::format("[params]\nN = 3\nm = 5000\nd_N = 2\nT = 48\na = 0.02\nform = \"{}\"\n", form);
    const auto plain = run_study_text(study("sparsity.kstar"), point, McBudget{});
    const auto twin = run_study_text(study("sparsity.kstar_difficulty"), point, McBudget{});
    const auto plain_c = run_study_text(study("sparsity.tradeoff"), point, McBudget{});
    const auto twin_c = run_study_text(study("sparsity.tradeoff_difficulty"), point, McBudget{});
    const TableView a(plain), b(twin), ac(plain_c), bc(twin_c);
    for (const auto& col : study("sparsity.kstar").column_names()) {
      INFO(form << " " << col);
      if (col == "form") CHECK(a.text(0, col) == b.text(0, col));
      else CHECK(a.real(0, col) == b.real(0, col));
    }
    CHECK(b.text(0, "difficulty") == "uniform");
    CHECK(b.real(0, "weight_sum") == 9.0);
    CHECK(b.real(0, "a_effective") == 0.02);
    REQUIRE(ac.size() == bc.size());
    for (std::size_t i = 0; i < ac.size(); ++i)
      for (const auto& col : study("sparsity.tradeoff").column_names())
        if (col != "form") CHECK(ac.real(i, col) == bc.real(i, col));
  }
}

TEST_CASE("sparsity.kstar_difficulty with a power law is App. A.5's weighted trade-off", "[sparsity][studies]") {
  // N = 2, D = (1, 2), alpha = 2: W = 2^-2 + 4^-2 + 2 * 3^-2 = 1/4 + 1/16 + 2/9 = 77/144 (built by hand).
  const std::string point = "[params]\nN = 2\nm = 1e4\nd_N = 2\nT = 64\na = 0.5\nform = \"theorem1\"\n"
                            "difficulty = \"powerlaw\"\ndifficulty_alpha = 2.0\n";
  const auto v_table = run_study_text(study("sparsity.kstar_difficulty"), point, McBudget{});
  const TableView v(v_table);
  // The weight sum is a compensated sum of four terms: within 4 ulp of the exact rational.
  CHECK_THAT(v.real(0, "weight_sum"), Catch::Matchers::WithinRel(77.0 / 144.0, 4 * 2.220446049250313e-16));
  CHECK(v.real(0, "a") == 0.5);
  CHECK_THAT(v.real(0, "a_effective"), Catch::Matchers::WithinRel(0.5 * 77.0 / 144.0 / 4.0, 8 * 2.220446049250313e-16));
  const sparsity::TradeoffParams p{.N = 2, .m = 1e4, .d_N = 2, .T = 64, .a = 0.5, .b = 1.0};
  const auto q = sparsity::with_powerlaw_weights(p, sparsity::index_difficulties(2), 2.0);
  const auto best = sparsity::integer_k_star(q, sparsity::EstimationForm::theorem1);
  CHECK(v.integer(0, "k_star") == best.k);
  CHECK(v.real(0, "error_at_k_star") == best.error);
  CHECK(v.real(0, "approximation_at_k_star") == sparsity::approximation_error(static_cast<double>(best.k), q));

  // Every weight (D_i + D_i')^-alpha is below 1 when D_i >= 1, so W < N^2 and E_approx shrinks; under
  // the theorem1 form E_est increases in k, so k* can only move down (never above the uniform k*), and
  // does move at these sizes (uniform k* = 13 > power-law k*).
  const std::string base = "[params]\nN = 8\nm = 1e4\nd_N = 2\nT = 64\na = 0.01\nform = \"theorem1\"\n";
  const auto u_table = run_study_text(study("sparsity.kstar_difficulty"), base, McBudget{});
  const TableView u(u_table);
  std::int64_t previous = u.integer(0, "k_star");
  for (double alpha : {1.1, 1.5, 2.0, 3.0}) {
    const auto w_table = run_study_text(study("sparsity.kstar_difficulty"),
                                     base + fmt::format("difficulty = \"powerlaw\"\ndifficulty_alpha = {}\n", alpha), McBudget{});
  const TableView w(w_table);
    INFO("alpha " << alpha);
    CHECK(w.integer(0, "k_star") <= previous);  // W decreases in alpha (each weight does)
    CHECK(w.integer(0, "k_star") < u.integer(0, "k_star"));
    previous = w.integer(0, "k_star");
  }
}

TEST_CASE("sparsity.kstar_difficulty profiles: power and list give the D they name", "[sparsity][studies]") {
  // profile power with gamma = 1 is the index profile; a list equal to 1..N too (same doubles).
  const std::string base = "[params]\nN = 5\nm = 1e4\nT = 32\na = 0.1\nform = \"theorem1\"\ndifficulty = \"powerlaw\"\n"
                           "difficulty_alpha = 1.5\n";
  const auto idx_table = run_study_text(study("sparsity.kstar_difficulty"), base, McBudget{});
  const TableView idx(idx_table);
  const auto pw_table = run_study_text(study("sparsity.kstar_difficulty"), base + "difficulty_profile = \"power\"\n", McBudget{});
  const TableView pw(pw_table);
  const auto ls_table = run_study_text(study("sparsity.kstar_difficulty"),
                                    base + "difficulty_profile = \"list\"\ndifficulty_D = [1.0, 2.0, 3.0, 4.0, 5.0]\n", McBudget{});
  const TableView ls(ls_table);
  CHECK(idx.real(0, "weight_sum") == pw.real(0, "weight_sum"));
  CHECK(idx.real(0, "weight_sum") == ls.real(0, "weight_sum"));
  CHECK(idx.integer(0, "k_star") == ls.integer(0, "k_star"));
  // gamma = 2: D = 1, 4, 9, 16, 25, a different (smaller) weight sum, computed here pair by pair.
  const auto g2_table = run_study_text(study("sparsity.kstar_difficulty"),
                                    base + "difficulty_profile = \"power\"\ndifficulty_gamma = 2.0\n", McBudget{});
  const TableView g2(g2_table);
  double W = 0;
  for (int i = 1; i <= 5; ++i)
    for (int j = 1; j <= 5; ++j) W += std::pow(static_cast<double>(i * i + j * j), -1.5);
  // 25 terms summed in a different order than the library's compensated sum: 32 ulp.
  CHECK_THAT(g2.real(0, "weight_sum"), Catch::Matchers::WithinRel(W, 32 * 2.220446049250313e-16));
}

TEST_CASE("sparsity difficulty parameters are refused naming the key", "[sparsity][studies]") {
  const auto& ks = study("sparsity.kstar_difficulty");
  const std::string base = "[params]\nN = 4\nm = 100\nT = 8\ndifficulty = \"powerlaw\"\n";
  CHECK(rejected_key(ks, base + "difficulty_alpha = 1.0\n") == "params.difficulty_alpha");  // alpha > 1 (A.5)
  CHECK(rejected_key(ks, "[params]\nN = 4.5\nm = 100\nT = 8\ndifficulty = \"powerlaw\"\n") == "params.N");
  CHECK(rejected_key(ks, "[params]\nN = 20000\nm = 100\nT = 8\ndifficulty = \"powerlaw\"\n") == "params.N");
  CHECK(rejected_key(ks, base + "difficulty_profile = \"list\"\ndifficulty_D = [1.0, 2.0]\n") == "params.difficulty_D");
  CHECK(rejected_key(ks, base + "difficulty_profile = \"list\"\n") == "params.difficulty_profile");
  CHECK(rejected_key(ks, base + "difficulty_profile = \"list\"\ndifficulty_D = [1.0, 2.0, 0.0, 1.0]\n") == "params.difficulty_D");
  CHECK(rejected_key(ks, base + "difficulty_D = [1.0, 2.0, 3.0, 4.0]\n") == "params.difficulty_D");  // not a list profile
  CHECK(rejected_key(ks, "[params]\nN = 4\nm = 100\nT = 8\ndifficulty = \"steep\"\n") == "params.difficulty");
  // The plain studies do not know the keys.
  CHECK(rejected_key(study("sparsity.kstar"), base) == "params.difficulty");
}
