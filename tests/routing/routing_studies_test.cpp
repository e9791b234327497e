// Routing studies (lib/moelab/routing/studies.cpp) from scenario text: small runs give the declared
// columns and exact values where there are some; bad parameters throw InputError naming the key
// before anything runs; the declarations themselves are consistent.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "scenario/input_error_helpers.hpp"

namespace moelab::routing {
void add_studies(std::vector<StudyDef>& out);
}

using moelab::McBudget;
using moelab::StudyDef;

namespace {
const std::vector<StudyDef>& studies() {
  static const auto all = [] {
    std::vector<StudyDef> s;
    moelab::routing::add_studies(s);
    return s;
  }();
  return all;
}
const StudyDef& study(const std::string& name) {
  for (const auto& s : studies())
    if (s.name == name) return s;
  FAIL("no study " << name);
  throw std::logic_error("unreachable");
}
moelab::CsvTable run(const std::string& name, const std::string& params, std::int64_t trials) {
  McBudget b;
  b.trials = trials;
  b.backend = moelab::BackendRequest::cpu;
  return moelab::run_study_text(study(name), params, b);
}
}  // namespace

TEST_CASE("routing.configurations reproduces Table 1", "[routing][studies]") {
  const auto t = run("routing.configurations", "", 1);
  const moelab::TableView v(t);
  REQUIRE(v.size() == 8);
  CHECK(v.text(0, "model") == "DeepSeek-V3");
  CHECK(v.integer(0, "configurations") == 409663695276000);
  CHECK(v.real(0, "sparsity_percent") == 3.125);
  // The reference itself needs c = C^0.01.
  CHECK_THAT(v.real(0, "required_c_vs_reference"), Catch::Matchers::WithinRel(std::pow(409663695276000.0, 0.01), 1e-9));
}

TEST_CASE("routing.balance and routing.mass_histogram run small points", "[routing][studies]") {
  const auto t = run("routing.balance", "[params]\nm = 5\nk = 2\nd = 6\npoints_per_region = 50\n", 8);
  const moelab::TableView v(t);
  REQUIRE(v.size() == 1);
  CHECK(v.integer(0, "regions") == 10);
  CHECK(v.real(0, "second_moment_mean") > 1.0);  // C^2 E mu^2 >= 1 + c2/d > 1
  CHECK(v.integer(0, "trials") == 8);
  const auto h = run("routing.mass_histogram", "[params]\nm = 5\nk = 2\nd = 6\nbins = 10\n", 4);
  const moelab::TableView hv(h);
  REQUIRE(hv.size() == 10);
  double mass = 0.0;
  for (std::size_t r = 0; r < hv.size(); ++r) mass += hv.real(r, "empirical_density") * 0.3;  // bin width 3 / 10
  CHECK(mass <= 1.0 + 1e-12);
  CHECK(mass > 0.8);  // most of C mu lies below 3
}

TEST_CASE("a study point's numbers depend on the seed and not on the thread count", "[routing][studies]") {
  const std::string params = "[params]\nm = 5\nk = 2\nd = 6\npoints_per_region = 50\n";
  McBudget b;
  b.trials = 6;
  b.backend = moelab::BackendRequest::cpu;
  const auto a = moelab::run_study_text(study("routing.balance"), params, b);
  b.threads = 1;
  const auto one = moelab::run_study_text(study("routing.balance"), params, b);
  b.threads = 0;
  b.seed = 2;
  const auto other = moelab::run_study_text(study("routing.balance"), params, b);
  const moelab::TableView va(a), v1(one), vo(other);
  CHECK(va.real(0, "second_moment_mean") == v1.real(0, "second_moment_mean"));
  CHECK(va.real(0, "second_moment_mean") != vo.real(0, "second_moment_mean"));
}

TEST_CASE("routing.packing and routing.separation run small points", "[routing][studies]") {
  const auto p = run("routing.packing", "[params]\nm = 6\nk = 2\nd = 200\n", 20);
  REQUIRE(p.rows.size() == 1);
  CHECK(moelab::TableView(p).real(0, "p_both") == 1.0);  // d = 200: both conditions hold in every trial
  const auto s = run("routing.separation",
                     "[params]\nm = 6\nk = 2\nd = 24\npoints = 4000\nksum_fractions = [1.0]\ngaussian_students = [[3, 1]]\n", 2);
  const moelab::TableView v(s);
  REQUIRE(v.size() == 2);
  CHECK(v.text(0, "family") == "ksum");
  CHECK(std::abs(v.real(0, "relative_error_mean")) < 1e-12);  // the full k-sum student is exact
  CHECK(v.real(1, "relative_error_mean") > v.real(1, "floor_relative"));  // a Gaussian (3, 1) student stays above its floor
}

TEST_CASE("routing studies reject bad parameters before running", "[routing][studies]") {
  using moelab::test::expect_input_error;
  const auto key = [](const std::string& name, const std::string& params) {
    return expect_input_error([&] { run(name, params, 2); }).key();
  };
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 5\nd = 6\n") == "params.k");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 0\n") == "params.d");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 4\nlaw = \"cauchy\"\n") == "params.law");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 4\npath = \"diagonal\"\n") == "params.path");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 4\npoints = 10\npoints_per_region = 3\n") == "params.points");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 4\npoints = 1\n") == "params.points");
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 4\nm_typo = 1\n") == "params.m_typo");
  CHECK(key("routing.balance", "[params]\nm = 40\nk = 20\nd = 4\npoints_per_region = 100000\n") == "params.points_per_region");
  CHECK(key("routing.mass_histogram", "[params]\nm = 5\nk = 2\nd = 4\nbins = 2\n") == "params.bins");
  CHECK(key("routing.mass_histogram", "[params]\nm = 5\nk = 2\nd = 4\nmax_mass = 0\n") == "params.max_mass");
  CHECK(key("routing.packing", "[params]\nm = 30\nk = 5\nd = 4\n") == "params.k");
  CHECK(key("routing.separation", "[params]\nm = 6\nk = 2\nd = 8\nksum_fractions = [0.5, 1.5]\n") == "params.ksum_fractions");
  CHECK(key("routing.separation", "[params]\nm = 6\nk = 2\nd = 8\ngaussian_students = [[2, 3]]\n") == "params.gaussian_students");
  CHECK(key("routing.separation", "[params]\nm = 6\nk = 2\nd = 8\n") == "params.ksum_fractions");
  CHECK(key("routing.configurations", "[params]\nreference_m = 8\nreference_k = 8\n") == "params.reference_k");
  // The message names the bad value and the domain.
  const auto e = expect_input_error([] { run("routing.balance", "[params]\nm = 5\nk = 2\nd = -3\n", 2); });
  CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("-3") && Catch::Matchers::Contains("[1, 131070]"));
  // d above routing::kMaxPointDim would wrap the point addressing's 32-bit Philox block counter.
  CHECK(key("routing.balance", "[params]\nm = 5\nk = 2\nd = 131071\n") == "params.d");
}

TEST_CASE("routing study declarations are complete and consistent", "[routing][studies]") {
  const std::set<std::string> names{"routing.mass_histogram", "routing.balance", "routing.packing", "routing.separation",
                                    "routing.configurations"};
  REQUIRE(studies().size() == names.size());
  for (const auto& s : studies()) {
    CAPTURE(s.name);
    CHECK(names.count(s.name) == 1);
    CHECK(!s.summary.empty());
    CHECK(!s.figure.empty());
    CHECK(s.prepare);
    CHECK(s.run);
    std::set<std::string> cols, keys;
    for (const auto& c : s.columns) {
      CHECK(cols.insert(c.name).second);  // unique column names
      CHECK(!c.doc.empty());
    }
    for (const auto& p : s.params) {
      CHECK(keys.insert(p.key).second);  // unique keys
      CHECK(!p.doc.empty());
      CHECK(p.key.rfind("params.", 0) == 0);
    }
    // Only the region-mass studies have a CUDA path, validated (agreed with the CPU on an H200,
    // docs/gpu.md "Validation"); only Table 1 is deterministic.
    const bool region_mass = s.name == "routing.balance" || s.name == "routing.mass_histogram";
    CHECK((s.cuda == moelab::CudaPath::validated) == region_mass);
    CHECK((s.cuda == moelab::CudaPath::none) == !region_mass);
    CHECK(s.trial_unit.empty() == (s.name == "routing.configurations"));
  }
}

// Writes the CSVs of the shipped routing scenarios (fewer trials) to $MOELAB_CSV_DIR, for checking
// the gnuplot scripts by hand: run from the repository root, e.g.
//   MOELAB_CSV_DIR=/tmp/routing_csv build/tests/test_routing "[write_csv]"
TEST_CASE("write the routing scenarios' CSVs for the plots", "[.][slow][routing][write_csv]") {
  const char* dir = std::getenv("MOELAB_CSV_DIR");
  if (dir == nullptr) {
    WARN("MOELAB_CSV_DIR not set: nothing written");
    return;
  }
  for (const std::string name : {"routing_balance", "routing_mass_histogram", "routing_packing", "routing_separation", "routing_table1"}) {
    const auto sc = moelab::load_scenario("scenarios/" + name + ".toml");
    McBudget b = sc.budget;
    b.trials = std::min<std::int64_t>(b.trials, 4);
    b.backend = moelab::BackendRequest::cpu;
    const auto t = moelab::run_scenario(moelab::study_for(sc, studies()), sc, b);
    moelab::write_file_atomic(std::string(dir) + "/" + name + ".csv", t.to_string());
  }
}
