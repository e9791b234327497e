// The declarative studies of scaling/: declarations (unique columns, bad values rejected naming the
// key) and their rows, read by column name, against the closed forms they tabulate.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/error.hpp"
#include "moelab/scaling/covering_number.hpp"
#include "moelab/scaling/scaling_laws.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "topic_test_support.hpp"

namespace moelab::scaling {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;

namespace {
const std::vector<StudyDef>& studies() { return test::topic_studies<scaling::add_studies>(); }
const StudyDef& study(const std::string& name) { return test::find_study_in(studies(), name); }
using test::rejected_key;
const std::string kChinchilla = "[params]\nE0 = 1.69\nA = 406.4\nalpha_N = 0.34\nB = 410.7\nalpha_D = 0.28\n";
}  // namespace

TEST_CASE("scaling studies declare unique documented columns and are deterministic", "[scaling][studies]") {
  REQUIRE(studies().size() == 2);
  for (const auto& s : studies()) {
    test::check_declaration(s);
    CHECK(s.trial_unit.empty());
  }
}

TEST_CASE("scaling studies reject bad values naming the key", "[scaling][studies]") {
  const auto& co = study("scaling.compute_optimal");
  CHECK(rejected_key(co, kChinchilla + "F = 5\n") == "params.F");  // F <= c = 6
  CHECK(rejected_key(co, kChinchilla + "F = 1e20\nalpha_N = -1\n") != "(accepted)");
  CHECK(rejected_key(co, kChinchilla + "F = 1e20\nmanifold_dim = 0.5\n") == "params.manifold_dim");
  const auto& cv = study("scaling.covering");
  CHECK(rejected_key(cv, "[params]\nP_exp = 10\nM = 8\nk = 9\ndelta = 0.1\n") == "params.k");
  CHECK(rejected_key(cv, "[params]\nP_exp = 10\nM = 8\nk = 2\ndelta = 1\n") == "params.delta");  // < kappa R M0 = 1
  CHECK(rejected_key(cv, "[params]\nP_exp = 10\nM = 8\nk = 2\ndelta = 0.1\nL = 0.5\n") == "params.L");
}

TEST_CASE("scaling studies agree with the closed forms", "[scaling][studies]") {
  const auto t = run_study_text(study("scaling.compute_optimal"), kChinchilla + "F = 1e21\n", McBudget{});
  const TableView v(t);
  REQUIRE(v.size() == 1);
  const scaling::LossModel model{1.69, 406.4, 0.34, 410.7, 0.28};
  CHECK(v.real(0, "N_opt") == scaling::compute_optimal(model, 1e21).N_opt);
  CHECK(v.real(0, "exponent_N") == scaling::allocation_exponents(model).a);
  const auto c = run_study_text(study("scaling.covering"), "[params]\nP_exp = 1000\nL = 4\nM = 64\nk = 2\nell = 128\ndelta = 0.01\n",
                                McBudget{});
  const TableView cv(c);
  REQUIRE(cv.size() == 1);
  const scaling::CoveringParams p{.P_attn = 0, .P_exp = 1000, .L = 4, .k = 2, .M = 64, .ell = 128};
  CHECK(cv.real(0, "total") == scaling::covering_number_bound(p, 0.01).total);
  CHECK(cv.real(0, "routing_overhead_exact") <= cv.real(0, "routing_overhead"));
}
