// The declarative studies of bounds/: declarations (unique columns, documented parameters, bad values
// rejected naming the key) and their rows, read by column name.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/bounds/generalization.hpp"
#include "moelab/bounds/pattern_counts.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "topic_test_support.hpp"

namespace moelab::bounds {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;
using namespace moelab::bounds;

namespace {
const std::vector<StudyDef>& studies() { return test::topic_studies<bounds::add_studies>(); }
const StudyDef& study(const std::string& name) { return test::find_study_in(studies(), name); }
using test::rejected_key;
}  // namespace

TEST_CASE("bounds studies declare unique documented columns and parameters", "[bounds][studies]") {
  REQUIRE(studies().size() == 2);
  for (const auto& s : studies()) {
    test::check_declaration(s);
    CHECK_FALSE(s.figure.empty());
  }
  CHECK(study("bounds.theorem1").trial_unit.empty());
  CHECK(study("bounds.patterns").trial_unit == "random routers");
}

TEST_CASE("bounds studies reject bad values naming the key", "[bounds][studies]") {
  const auto& t1 = study("bounds.theorem1");
  CHECK(rejected_key(t1, "[params]\nm = 100\nT = 8\nk = 9\n") == "params.k");              // k > T
  CHECK(rejected_key(t1, "[params]\nm = 100.5\nT = 8\n") == "params.m");                   // not an integer
  CHECK(rejected_key(t1, "[params]\nm = 100\nT = 8\ndelta = 1.0\n") == "params.delta");    // delta in (0, 1)
  CHECK(rejected_key(t1, "[params]\nm = 100\nT = 8\nmax_gate_weight = 2\n") == "params.max_gate_weight");
  CHECK(rejected_key(t1, "[params]\nm = 100\nT = 8\nrademacher = 0.1\nrademacher_scale = 1\n") ==
        "params.rademacher_scale");
  CHECK(rejected_key(t1, "[params]\nT = 8\n") == "params.m");  // required
  const auto& pc = study("bounds.patterns");
  CHECK(rejected_key(pc, "[params]\nm = 4\nd = 2\nT = 65\nk = 1\n") == "params.T");  // masks are 64-bit words
  CHECK(rejected_key(pc, "[params]\nm = 4\nd = 2\nT = 4\nk = 4\n") == "params.k");   // k < T
  CHECK(rejected_key(pc, "[params]\nm = 0\nd = 2\nT = 4\nk = 1\n") == "params.m");
}

TEST_CASE("bounds.theorem1 writes the five forms with the closed forms' totals", "[bounds][studies]") {
  const auto t = run_study_text(study("bounds.theorem1"), "[params]\nm = 10000\nT = 64\nk = 4\nN = 4\nd_N = 2\n", McBudget{});
  const TableView v(t);
  REQUIRE(v.size() == 5);
  const Theorem1Params p{.C = 1, .rademacher = 1.0 / 100.0, .k = 4, .N = 4, .d_N = 2, .T = 64, .m = 10000, .delta = 0.05};
  CHECK(v.text(0, "form") == "printed");
  CHECK(v.real(0, "total") == theorem1_printed(p).total);  // same function, same arguments: bit for bit
  CHECK(v.text(2, "form") == "derived");
  CHECK(v.real(2, "total") == theorem1_derived(p).total);
  CHECK(v.text(4, "form") == "ensemble_averaged");
  CHECK(std::isnan(v.real(4, "denominator")));
}

TEST_CASE("bounds.patterns counts the routers it is given and is the claims' experiment", "[bounds][studies]") {
  const McBudget budget{.trials = 3000, .seed = 7};
  const auto t = run_study_text(study("bounds.patterns"), "[params]\nm = 8\nd = 2\nT = 4\nk = 1\n", budget);
  const TableView v(t);
  REQUIRE(v.size() == 1);
  CHECK(v.integer(0, "routers") == 3000);
  CHECK(v.integer(0, "distinct_patterns") <= 3000);
  CHECK(v.integer(0, "distinct_masks") <= 4);
  CHECK(v.real(0, "log_patterns") <= v.real(0, "log_arrangement_bound"));
  // The study's count where it is known exactly: d = 1, T = 3, k = 1 on points of both signs gives the
  // T (T - 1) = 6 ordered pairs (argmax w, argmin w) (x > 0 picks argmax w, x < 0 argmin w) and all 3
  // masks; T = 5, k = 2 gives C(5, 2) C(3, 2) = 30 pairs (top-2 set, disjoint bottom-2 set), counted by
  // hand. 10 standard normal points have both signs (seed fixed); 3000 routers see each pattern
  // (probability 1/6 or 1/30 each by symmetry: a miss has probability < 30 (29/30)^3000 ~ 1e-42).
  const auto exact = [&](const char* params) {
    const auto e = run_study_text(study("bounds.patterns"), params, budget);
    return std::pair(TableView(e).integer(0, "distinct_patterns"), TableView(e).integer(0, "distinct_masks"));
  };
  CHECK(exact("[params]\nm = 10\nd = 1\nT = 3\nk = 1\n") == std::pair<std::int64_t, std::int64_t>(6, 3));
  CHECK(exact("[params]\nm = 10\nd = 1\nT = 5\nk = 2\n") == std::pair<std::int64_t, std::int64_t>(30, 10));
  // The study runs count_routing_patterns at the point's key: the same call reproduces its count.
  SweepPoint point;
  const PatternCountParams p{.m = 8, .d = 2, .T = 4, .k = 1, .routers = 3000};
  const auto r = count_routing_patterns(p, point_key(7, "bounds.patterns", point).seed());
  CHECK(static_cast<std::int64_t>(r.distinct_patterns) == v.integer(0, "distinct_patterns"));
}
