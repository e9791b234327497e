// The cost model of the frame: a study may declare cost(point, trials) -> {bytes, work};
// the runner refuses, before any work, a run whose estimated memory exceeds the limit, and counts
// the frame's own storage (kept trial results, sweep points) for studies without one.
#include <atomic>
#include <string>

#include <catch2/catch.hpp>

#include "input_error_helpers.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"

using namespace moelab;

namespace {

std::atomic<int> g_trials_run{0};

struct BigPoint {
  std::int64_t n;
};

/// A study whose point declares n x n doubles per trial thread and n^3 operations per trial.
StudyDef costed_study(bool with_cost) {
  StudyDef d;
  d.name = "toy.costed";
  d.summary = "declares its cost";
  d.trial_unit = "draws";
  d.params = {integer("params.n", "matrix size").at_least(1).at_most(std::int64_t{1} << 40)};
  d.columns = {{"n", "size"}, {"trials", "trials"}};
  d = define_trial_study<BigPoint, double>(
      std::move(d), [](const PointParams& p) { return BigPoint{p.integer("params.n")}; },
      [](const BigPoint&, const RunContext&, std::int64_t) {
        ++g_trials_run;
        return 1.0;
      },
      [](const BigPoint& pt, std::span<const double> r, const RunContext&, RowSink& rows) {
        rows.row().set("n", pt.n).set("trials", static_cast<std::int64_t>(r.size()));
      });
  if (with_cost)
    set_cost<BigPoint>(d, [](const BigPoint& p, std::int64_t trials) {
      const double n = static_cast<double>(p.n);
      return StudyCost{8.0 * n * n, n * n * n * static_cast<double>(trials)};
    });
  return d;
}

McBudget budget(std::int64_t trials, double max_memory) {
  McBudget b;
  b.trials = trials;
  b.max_memory = max_memory;
  b.backend = BackendRequest::cpu;
  return b;
}

}  // namespace

TEST_CASE("a point whose declared memory exceeds the limit is refused before any trial runs", "[scenario][cost]") {
  const StudyDef s = costed_study(true);
  g_trials_run = 0;
  // n = 10^5: 8e10 bytes, over a 1 GB limit; the message names the estimate, the point and the limit.
  const auto e = test::expect_input_error(
      [&] { run_study_text(s, "[params]\nn = 100000\n", budget(10, 1e9)); });
  CHECK(e.key() == "monte_carlo.max_memory");
  CHECK_THAT(e.reason(), Catch::Contains("80 GB") && Catch::Contains("1 GB") && Catch::Contains("10 trials"));
  CHECK(g_trials_run == 0);
  // The same point within the limit runs.
  CHECK(run_study_text(s, "[params]\nn = 100\n", budget(10, 1e9)).rows.size() == 1);
  CHECK(g_trials_run == 10);
}

TEST_CASE("without a cost model the frame still counts the trial results it keeps", "[scenario][cost]") {
  const StudyDef s = costed_study(false);
  g_trials_run = 0;
  // 10^9 trials keep 10^9 doubles = 8 GB until reduce: refused under a 1 GB limit, in the sweep's name.
  const auto e = test::expect_input_error([&] { run_study_text(s, "[params]\nn = 3\n", budget(1000000000, 1e9)); });
  CHECK_THAT(e.reason(), Catch::Contains("8 GB") && Catch::Contains("1000000000 trials"));
  CHECK(g_trials_run == 0);
  // The machine's memory is the default limit.
  CHECK(machine_memory_bytes() > 1e8);
  const auto huge = test::expect_input_error([&] { run_study_text(s, "[params]\nn = 3\n", budget(std::int64_t{1} << 62, 0)); });
  CHECK_THAT(huge.reason(), Catch::Contains("the memory this process can get"));
}

TEST_CASE("a sweep too large for memory is refused before its points are built", "[scenario][cost]") {
  const StudyDef s = costed_study(false);
  const Scenario sc = parse_scenario("study = \"toy.costed\"\n[params]\nn = 1\n[sweep]\n\"params.n\" = {from = 1, to = 1e9, steps "
                                     "= 10000000, integer = true}\n",
                                     "big.toml");
  const auto e = test::expect_input_error([&] { run_scenario(s, sc, budget(1, 1e8)); });
  CHECK_THAT(e.reason(), Catch::Contains("1e+07 sweep points"));
}

TEST_CASE("memory sizes parse with decimal and binary units", "[scenario][cost]") {
  double b = 0;
  CHECK((parse_memory_size("8G", b) && b == 8e9));
  CHECK((parse_memory_size("512M", b) && b == 512e6));
  CHECK((parse_memory_size("64KiB", b) && b == 65536));
  CHECK((parse_memory_size("1.5e9", b) && b == 1.5e9));
  CHECK((parse_memory_size("2 GB", b) && b == 2e9));
  CHECK_FALSE(parse_memory_size("lots", b));
  CHECK_FALSE(parse_memory_size("-1G", b));
  CHECK_FALSE(parse_memory_size("nan", b));
  CHECK_FALSE(parse_memory_size("8X", b));
  CHECK(format_bytes(8e10) == "80 GB");
  CHECK(format_bytes(512) == "512 bytes");
}

TEST_CASE("scenario budgets: thread counts above the cap and bad max_memory are refused", "[scenario][cost]") {
  const auto t = test::expect_input_error(
      [] { parse_scenario("study = \"x\"\n[monte_carlo]\nthreads = 65536\n", "t.toml"); });
  CHECK(t.key() == "monte_carlo.threads");
  CHECK(t.line() == 3);
  const auto m = test::expect_input_error(
      [] { parse_scenario("study = \"x\"\n[monte_carlo]\nmax_memory = \"lots\"\n", "m.toml"); });
  CHECK(m.key() == "monte_carlo.max_memory");
  CHECK(parse_scenario("study = \"x\"\n[monte_carlo]\nmax_memory = \"2G\"\n", "ok.toml").budget.max_memory == 2e9);
  const auto dir = test::expect_input_error([] { load_scenario("/tmp"); });
  CHECK_THAT(dir.reason(), Catch::Contains("is a directory"));
}
