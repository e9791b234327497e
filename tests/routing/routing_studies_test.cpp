// Routing studies from scenario text (lib/moelab/routing/routing_studies.cpp): small runs give the
// stated columns and exact values where there are some; bad parameters throw InputError naming the key
// before anything runs (tests/scenario/shipped_scenarios_test.cpp validates the shipped scenarios).
#include <cmath>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/scenario.hpp"
#include "scenario/input_error_helpers.hpp"

using moelab::InputError;
using moelab::McBudget;

namespace {
moelab::CsvTable run_text(const std::string& text, std::int64_t trials) {
  const auto sc = moelab::parse_scenario(text, "test.toml");
  McBudget b = sc.budget;
  b.trials = trials;
  return moelab::run_scenario(sc, b);
}
double num(const moelab::CsvCell& c) { return std::get<double>(c); }
std::int64_t integer(const moelab::CsvCell& c) { return std::get<std::int64_t>(c); }
}  // namespace

TEST_CASE("routing.configurations reproduces Table 1", "[routing][studies]") {
  const auto t = run_text("study = \"routing.configurations\"\n", 1);
  REQUIRE(t.rows.size() == 8);
  CHECK(std::get<std::string>(t.rows[0][0]) == "DeepSeek-V3");
  CHECK(integer(t.rows[0][5]) == 409663695276000);
  CHECK(num(t.rows[0][3]) == 3.125);
  // The reference itself needs c = C^0.01.
  CHECK_THAT(num(t.rows[0][7]), Catch::Matchers::WithinRel(std::pow(409663695276000.0, 0.01), 1e-9));
}

TEST_CASE("routing.balance and routing.mass_histogram run small points", "[routing][studies]") {
  const auto t = run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 2\nd = 6\npoints_per_region = 50\n", 8);
  REQUIRE(t.rows.size() == 1);
  CHECK(integer(t.rows[0][5]) == 10);
  CHECK(num(t.rows[0][8]) > 1.0);  // C^2 E mu^2 >= 1 + c2/d > 1
  const auto h = run_text("study = \"routing.mass_histogram\"\n[params]\nm = 5\nk = 2\nd = 6\nbins = 10\n", 4);
  REQUIRE(h.rows.size() == 10);
  double mass = 0.0;
  for (const auto& r : h.rows) mass += num(r[5]) * 0.3;  // bin width 3 / 10
  CHECK(mass <= 1.0 + 1e-12);
  CHECK(mass > 0.8);  // most of C mu lies below 3
}

TEST_CASE("routing.packing and routing.separation run small points", "[routing][studies]") {
  const auto p = run_text("study = \"routing.packing\"\n[params]\nm = 6\nk = 2\nd = 200\n", 20);
  REQUIRE(p.rows.size() == 1);
  CHECK(num(p.rows[0][4]) == 1.0);  // d = 200: both conditions hold in every trial
  const auto s = run_text("study = \"routing.separation\"\n[params]\nm = 6\nk = 2\nd = 24\npoints = 4000\nksum_fractions = [1.0]\n"
                          "gaussian_students = [[3, 1]]\n",
                          2);
  REQUIRE(s.rows.size() == 2);
  CHECK(std::abs(num(s.rows[0][8])) < 1e-12);  // the full k-sum student is exact
  CHECK(num(s.rows[1][8]) > num(s.rows[1][10]));  // a Gaussian (3, 1) student stays above its floor
}

TEST_CASE("routing studies reject bad parameters before running", "[routing][studies]") {
  using moelab::test::expect_input_error;
  CHECK(expect_input_error([] { run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 5\nd = 6\n", 2); }).key() == "params.k");
  CHECK(expect_input_error([] { run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 2\nd = 0\n", 2); }).key() == "params.d");
  CHECK(expect_input_error([] { run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 2\nd = 4\nlaw = \"cauchy\"\n", 2); }).key() ==
        "params.law");
  CHECK(expect_input_error([] { run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 2\nd = 4\npoints = 10\npoints_per_region = 3\n", 2); })
            .key() == "params.points");
  CHECK(expect_input_error([] { run_text("study = \"routing.packing\"\n[params]\nm = 30\nk = 5\nd = 4\n", 2); }).key() == "params.k");
  CHECK(expect_input_error([] { run_text("study = \"routing.separation\"\n[params]\nm = 6\nk = 2\nd = 8\nksum_fractions = [0.5, 1.5]\n", 2); })
            .key() == "params.ksum_fractions");
  CHECK(expect_input_error([] { run_text("study = \"routing.separation\"\n[params]\nm = 6\nk = 2\nd = 8\ngaussian_students = [[2, 3]]\n", 2); })
            .key() == "params.gaussian_students");
  CHECK(expect_input_error([] { run_text("study = \"routing.separation\"\n[params]\nm = 6\nk = 2\nd = 8\n", 2); }).key() ==
        "params.ksum_fractions");
  CHECK(expect_input_error([] { run_text("study = \"routing.balance\"\n[params]\nm = 5\nk = 2\nd = 4\ntypo = 1\n", 2); }).key() == "params.typo");
}
