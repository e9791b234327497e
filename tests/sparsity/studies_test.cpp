// The declarative studies of sparsity/: declarations (unique columns, bad values rejected naming the
// key) and their rows, read by column name, against the closed forms they tabulate.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

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
  REQUIRE(studies().size() == 2);
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
