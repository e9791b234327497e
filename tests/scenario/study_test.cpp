// The declarative study form (scenario/study.hpp) and the runner that owns the loop: declared
// domains are the validation, rows are set by column name, a point's random key depends on its
// coordinates only, and the CSV does not depend on the thread count.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "input_error_helpers.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace study_test {

using namespace moelab;

namespace {

struct ToyPoint {
  std::int64_t n;
  double scale;
  std::string law;
};

/// A toy Monte-Carlo study: the mean of n scaled normals per trial, reduced to mean and std error.
StudyDef toy_study() {
  StudyDef d;
  d.name = "toy.mean";
  d.summary = "mean of normals";
  d.trial_unit = "samples of n normals";
  d.params = {integer("params.n", "normals per trial").at_least(1).at_most(1000).unit("draws"),
              real("params.scale", "standard deviation").positive().or_default(1.0),
              choice("params.law", {"normal", "uniform"}, "draw law").or_default("normal")};
  d.columns = {{"n", "draws per trial"}, {"law", "law"}, {"mean", "mean over trials"}, {"trials", "trials"}};
  return define_trial_study<ToyPoint, double>(
      std::move(d),
      [](const PointParams& p) { return ToyPoint{p.integer("params.n"), p.real("params.scale"), p.text("params.law")}; },
      [](const ToyPoint& pt, const RunContext& ctx, std::int64_t t) {
        const RandomStream rs(ctx.key.seed(), StreamTag::property_test, static_cast<std::uint64_t>(t));
        double s = 0.0;
        for (std::int64_t j = 0; j < pt.n; ++j) s += pt.law == "normal" ? rs.normal(j) : rs.uniform(j);
        return pt.scale * s / static_cast<double>(pt.n);
      },
      [](const ToyPoint& pt, std::span<const double> r, const RunContext& ctx, RowSink& rows) {
        double s = 0.0;
        for (double x : r) s += x;
        rows.row().set("n", pt.n).set("law", pt.law).set("mean", s / static_cast<double>(r.size())).set("trials", ctx.trials);
      });
}

McBudget budget(int threads) {
  McBudget b;
  b.trials = 64;
  b.seed = 7;
  b.threads = threads;
  b.backend = BackendRequest::cpu;
  return b;
}

CsvTable run_text(const std::string& text, int threads = 1) {
  const StudyDef s = toy_study();
  return run_scenario(s, parse_scenario("study = \"toy.mean\"\n" + text, "toy.toml"), budget(threads));
}

}  // namespace

TEST_CASE("a declared domain rejects a bad value naming file, line and key", "[scenario][study]") {
  const auto e = test::expect_input_error([] { run_text("[params]\nn = 0\n"); });
  CHECK(e.file() == "toy.toml");
  CHECK(e.line() == 3);
  CHECK(e.key() == "params.n");
  CHECK_THAT(e.reason(), Catch::Matchers::Contains("integer in [1, 1000]"));
}

TEST_CASE("a 64-bit integer beyond the declared maximum is refused, not narrowed", "[scenario][study]") {
  const auto e = test::expect_input_error([] { run_text("[params]\nn = 4294967336\n"); });
  CHECK(e.key() == "params.n");
}

TEST_CASE("a missing required key, a non-finite real and a bad choice are refused", "[scenario][study]") {
  CHECK(test::expect_input_error([] { run_text("[params]\nscale = 1.0\n"); }).key() == "params.n");
  CHECK(test::expect_input_error([] { run_text("[params]\nn = 3\nscale = nan\n"); }).key() == "params.scale");
  CHECK(test::expect_input_error([] { run_text("[params]\nn = 3\nlaw = \"cauchy\"\n"); }).key() == "params.law");
}

TEST_CASE("an undeclared key is unknown, with a suggestion", "[scenario][study]") {
  const auto e = test::expect_input_error([] { run_text("[params]\nn = 3\nscal = 2.0\n"); });
  CHECK(e.key() == "params.scal");
  CHECK_THAT(e.reason(), Catch::Matchers::Contains("did you mean 'params.scale'"));
}

TEST_CASE("a bad value at the last sweep point is reported before anything runs", "[scenario][study]") {
  const auto e = test::expect_input_error([] { run_text("[params]\nn = 3\n[sweep]\n\"params.n\" = [1, 2, 5000]\n"); });
  CHECK(e.key() == "params.n");
}

TEST_CASE("every distinct error of a scenario is reported at once", "[scenario][study]") {
  // Two sweep points with two different errors (n out of range at one, a bad law at another), and one
  // base-table error repeated at every point: the first is the error's key and line, the others follow
  // once each in the message, so the file is fixed in one round.
  const auto e = test::expect_input_error([] {
    run_text("[params]\nn = 3\nscale = -1.0\n[sweep]\n\"params.n\" = [0, 2, 5000]\n");
  });
  // The first point (n = 0) fails on n, declared first; the second on scale; the third on n again.
  CHECK(e.key() == "params.n");
  const std::string r = e.reason();
  CHECK_THAT(r, Catch::Matchers::Contains("got 0"));
  CHECK_THAT(r, Catch::Matchers::Contains("and 2 more error(s)"));
  CHECK_THAT(r, Catch::Matchers::Contains("got 5000"));
  // The base-table error is reported once, although it holds at every point.
  std::size_t count = 0;
  for (std::size_t at = r.find("params.scale"); at != std::string::npos; at = r.find("params.scale", at + 1)) ++count;
  CHECK(count == 1);
  // One error alone keeps its message unchanged.
  const auto one = test::expect_input_error([] { run_text("[params]\nn = 0\n"); });
  CHECK_THAT(one.reason(), !Catch::Matchers::Contains("more error"));
}

TEST_CASE("rows are set by name and defaults apply", "[scenario][study]") {
  const CsvTable t = run_text("[params]\nn = 4\n");
  REQUIRE(t.rows.size() == 1);
  const TableView v(t);
  CHECK(v.integer(0, "n") == 4);
  CHECK(v.text(0, "law") == "normal");
  CHECK(v.integer(0, "trials") == 64);
  // 64 trials of the mean of 4 standard normals: sd of the result 1/sqrt(256) = 0.0625; 5 sd.
  CHECK(std::fabs(v.real(0, "mean")) < 5 * 0.0625);
}

TEST_CASE("a point's draws depend on its coordinates, not on the rest of the sweep", "[scenario][study]") {
  const CsvTable alone = run_text("[params]\nn = 8\n[sweep]\n\"params.n\" = [8]\n");
  const CsvTable with_others = run_text("[params]\nn = 8\n[sweep]\n\"params.n\" = [2, 8, 16]\n");
  REQUIRE(with_others.rows.size() == 3);
  CHECK(format_cell(alone.rows[0][2]) == format_cell(with_others.rows[1][2]));
  // Different points draw different numbers (no shared seed across the sweep).
  CHECK(format_cell(with_others.rows[0][2]) != format_cell(with_others.rows[1][2]));
}

TEST_CASE("the CSV is byte-identical for any thread count", "[scenario][study]") {
  const std::string text = "[params]\nn = 5\n[sweep]\n\"params.n\" = [1, 5, 9]\n";
  CHECK(run_text(text, 1).to_string() == run_text(text, 2).to_string());
  CHECK(run_text(text, 1).to_string() == run_text(text, 3).to_string());
}

TEST_CASE("a row that leaves a declared column unset is an internal error", "[scenario][study]") {
  const std::vector<ColumnDecl> cols{{"a", ""}, {"b", ""}};
  RowSink rows(cols);
  rows.row().set("a", 1.0);
  CHECK_THROWS(rows.take());
  RowSink other(cols);
  CHECK_THROWS(other.row().set("c", 1.0));
}

TEST_CASE("describe prints every key with type, domain, default and unit, and every column", "[scenario][study]") {
  const std::string text = describe_study(toy_study());
  CHECK_THAT(text, Catch::Matchers::Contains("params.n"));
  CHECK_THAT(text, Catch::Matchers::Contains("integer in [1, 1000]; default (required); unit: draws"));
  CHECK_THAT(text, Catch::Matchers::Contains("real > 0; default 1"));
  CHECK_THAT(text, Catch::Matchers::Contains("one of normal, uniform; default normal"));
  CHECK_THAT(text, Catch::Matchers::Contains("samples of n normals"));
  CHECK_THAT(text, Catch::Matchers::Contains("mean over trials"));
}

TEST_CASE("fewer trials than the study can summarise are refused before anything runs", "[scenario][study]") {
  StudyDef s = toy_study();
  s.min_trials = 2;
  McBudget b = budget(1);
  b.trials = 1;
  const auto e = test::expect_input_error(
      [&] { run_scenario(s, parse_scenario("study = \"toy.mean\"\n[params]\nn = 3\n", "toy.toml"), b); });
  CHECK(e.key() == "monte_carlo.trials");
  CHECK_THAT(e.reason(), Catch::Matchers::Contains("at least 2 samples of n normals"));
}

TEST_CASE("a run that fails on bad input leaves the default thread count behind", "[scenario][study]") {
  const int before = num_threads();
  (void)test::expect_input_error([] { run_text("[params]\nn = 0\n", 3); });
  CHECK(num_threads() == before);
  (void)run_text("[params]\nn = 2\n", 3);
  CHECK(num_threads() == before);
}

}  // namespace study_test
