#include "moelab/scenario/scenario.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "scenario/input_error_helpers.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace scenario_test {

using moelab::ParamView;
using moelab::parse_scenario;
using moelab::test::expect_input_error;

namespace {
// A file stem for which no plots/<stem>.gp exists in the working directory.
const std::string kPath = "scenarios/zz_scenario_test.toml";

std::string what(const moelab::InputError& e) { return e.what(); }
}  // namespace

TEST_CASE("a minimal scenario gets the documented defaults", "[scenario]") {
  const auto s = parse_scenario("study = \"noisy.excess_risk\"\n[params]\nn = 10\n", kPath);
  CHECK(s.study == "noisy.excess_risk");
  CHECK(s.title.empty());
  CHECK(s.name == "zz_scenario_test");
  CHECK(s.budget.trials == 1000);
  CHECK(s.budget.seed == 1);
  CHECK(s.budget.threads == 0);
  CHECK(s.output_csv == "results/zz_scenario_test.csv");
  CHECK(s.output_plot.empty());
  CHECK(s.axes.empty());
  // The study's tables go to base, the scenario's own keys do not.
  CHECK(s.base.contains("params"));
  CHECK_FALSE(s.base.contains("study"));
  const auto points = s.points();
  REQUIRE(points.size() == 1);
  CHECK(points[0].coordinates.empty());
  CHECK(points[0].base == &s.base);
  CHECK(points[0].overrides.empty());
}

TEST_CASE("monte_carlo, output and title are read", "[scenario]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"
      "title = \"Fig 3\"\n"
      "[monte_carlo]\ntrials = 50\nseed = 0\nthreads = 4\n"
      "[output]\ncsv = \"out/a.csv\"\nplot = \"plots/a.gp\"\n",
      kPath);
  CHECK(s.title == "Fig 3");
  CHECK(s.budget.trials == 50);
  CHECK(s.budget.seed == 0);
  CHECK(s.budget.threads == 4);
  CHECK(s.output_csv == "out/a.csv");
  CHECK(s.output_plot == "plots/a.gp");
  CHECK(s.base.empty());
}

TEST_CASE("malformed TOML is an InputError at the parser's line", "[scenario][errors]") {
  const auto e = expect_input_error([] { parse_scenario("study = \"s\"\n[params]\nn = = 3\n", "x.toml"); });
  CHECK(e.file() == "x.toml");
  CHECK(e.line() == 3);
  CHECK(e.key().empty());
  CHECK(what(e).rfind("x.toml:3: ", 0) == 0);
  CHECK_FALSE(e.reason().empty());
}

TEST_CASE("a missing or non-string study is rejected", "[scenario][errors]") {
  CHECK(what(expect_input_error([] { parse_scenario("[params]\nn = 1\n", "x.toml"); })) ==
        "x.toml:1: key 'study': required key is missing");
  CHECK(what(expect_input_error([] { parse_scenario("study = 3\n", "x.toml"); })) ==
        "x.toml:1: key 'study': must be a string, got integer 3");
}

TEST_CASE("trials < 1 and other bad budgets are rejected", "[scenario][errors]") {
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\n[monte_carlo]\ntrials = 0\n", "x.toml"); })) ==
        "x.toml:3: key 'monte_carlo.trials': must be >= 1, got 0");
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\n[monte_carlo]\ntrials = 1e3\n", "x.toml"); })) ==
        "x.toml:3: key 'monte_carlo.trials': must be an integer, got float 1000.0");
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\n[monte_carlo]\nseed = -1\n", "x.toml"); })) ==
        "x.toml:3: key 'monte_carlo.seed': must be >= 0, got -1");
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\nmonte_carlo = 5\n", "x.toml"); })) ==
        "x.toml:2: key 'monte_carlo': must be a table");
}

TEST_CASE("unknown keys are rejected in [monte_carlo], [output], [sweep] and at the top level", "[scenario][errors]") {
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\n[monte_carlo]\ntrails = 10\n", "x.toml"); })) ==
        "x.toml:3: key 'monte_carlo.trails': unknown key (did you mean 'monte_carlo.trials'?)");
  CHECK(what(expect_input_error([] { parse_scenario("study = \"s\"\n[output]\npng = \"a.png\"\n", "x.toml"); })) ==
        "x.toml:3: key 'output.png': unknown key");
  CHECK(what(expect_input_error([] {
          parse_scenario("study = \"s\"\n[sweep]\n\"params.n\" = { from = 1, to = 9, step = 3 }\n", "x.toml");
        })) == "x.toml:3: key 'sweep.\"params.n\".step': unknown key (did you mean 'sweep.\"params.n\".steps'?)");
  // A top-level key the scenario layer does not own goes to the study, whose ParamView reports it.
  const auto s = parse_scenario("study = \"s\"\ntrails = 10\n[params]\nn = 5\n", "x.toml");
  const ParamView v(s.base, s.path);
  v.get_int_at_least("params.n", 1);
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) == "x.toml:2: key 'trails': unknown key");
}

TEST_CASE("a sweep expands to the cartesian product, first axis slowest", "[scenario][sweep]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"                                        // 1
      "[params]\n"                                             // 2
      "n = 10\n"                                               // 3
      "[model]\n"                                              // 4
      "sigma2 = 1.0\n"                                         // 5
      "[sweep]\n"                                              // 6
      "\"params.n\" = [100, 200, 400]\n"                       // 7
      "\"model.sigma2\" = [0.5, 2.0]\n",                       // 8
      kPath);
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].key == "params.n");
  CHECK(s.axes[1].key == "model.sigma2");
  const auto points = s.points();
  REQUIRE(points.size() == 6);
  CHECK(points[0].coordinates == std::vector<std::pair<std::string, std::string>>{{"params.n", "100"}, {"model.sigma2", "0.5"}});
  CHECK(points[1].coordinates == std::vector<std::pair<std::string, std::string>>{{"params.n", "100"}, {"model.sigma2", "2"}});
  CHECK(points[5].coordinates[0].second == "400");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ParamView v = points[i].view(s.path);
    CHECK(v.get_int("params.n") == std::vector<std::int64_t>{100, 100, 200, 200, 400, 400}[i]);
    CHECK(v.get_double("model.sigma2") == std::vector<double>{0.5, 2.0, 0.5, 2.0, 0.5, 2.0}[i]);
    // Swept values keep their line in [sweep]; the rest keep theirs.
    CHECK(v.line_of("params.n") == 7);
    CHECK(v.line_of("model.sigma2") == 8);
  }
  // The base is untouched.
  CHECK(s.base["params"]["n"].value<std::int64_t>() == 10);
}

TEST_CASE("an out-of-domain swept value is reported at its line in [sweep]", "[scenario][sweep][errors]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"
      "[model]\n"
      "sigma2 = 1.0\n"
      "[sweep]\n"
      "\"model.sigma2\" = [1.0,\n"
      "                  -1]\n",
      "x.toml");
  const auto points = s.points();
  REQUIRE(points.size() == 2);
  const ParamView ok = points[0].view(s.path);
  CHECK(ok.get_positive("model.sigma2") == 1.0);
  const ParamView bad = points[1].view(s.path);
  CHECK(what(expect_input_error([&] { bad.get_positive("model.sigma2"); })) ==
        "x.toml:6: key 'model.sigma2': must be > 0, got -1");
}

TEST_CASE("generated axes: linear, log and integer", "[scenario][sweep]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"
      "[sweep]\n"
      "\"model.sigma2\" = { from = 0.5, to = 4, steps = 4, spacing = \"log\" }\n"
      "\"params.ratio\" = { from = 0, to = 1, steps = 5 }\n"
      "\"params.n\" = { from = 1, to = 4, steps = 7, integer = true }\n",
      kPath);
  REQUIRE(s.axes.size() == 3);
  std::vector<double> log_values;
  for (const auto& n : s.axes[0].values) log_values.push_back(n->value<double>().value());
  REQUIRE(log_values.size() == 4);
  // log spacing from 0.5 to 4 in 4 steps: ratio 2; endpoints exact, inner points to rounding.
  CHECK(log_values[0] == 0.5);
  CHECK_THAT(log_values[1], Catch::Matchers::WithinRel(1.0, 1e-14));
  CHECK_THAT(log_values[2], Catch::Matchers::WithinRel(2.0, 1e-14));
  CHECK(log_values[3] == 4.0);
  std::vector<double> lin;
  for (const auto& n : s.axes[1].values) lin.push_back(n->value<double>().value());
  CHECK(lin == std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0});
  // 1, 1.5, 2, 2.5, 3, 3.5, 4 rounded half away from zero -> 1, 2, 2, 3, 3, 4, 4 -> deduplicated.
  std::vector<std::int64_t> ints;
  for (const auto& n : s.axes[2].values) {
    REQUIRE(n->is_integer());
    ints.push_back(n->value<std::int64_t>().value());
  }
  CHECK(ints == std::vector<std::int64_t>{1, 2, 3, 4});
  const auto points = s.points();
  CHECK(points.size() == 4 * 5 * 4);
  // Swept keys absent from the base are created, with their intermediate tables.
  const ParamView v = points.back().view(s.path);
  CHECK(v.get_int("params.n") == 4);
  CHECK(v.get_double("params.ratio") == 1.0);
  CHECK(v.line_of("params.n") == 5);
  CHECK(points.back().coordinates[2] == std::pair<std::string, std::string>{"params.n", "4"});
}

TEST_CASE("nested and unquoted sweep keys name the same axis as a quoted dotted key", "[scenario][sweep]") {
  const auto s = parse_scenario("study = \"s\"\n[sweep]\nparams.n = [1, 2]\n[sweep.model]\nsigma2 = [0.5]\n", kPath);
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].key == "params.n");
  CHECK(s.axes[1].key == "model.sigma2");
  CHECK(what(expect_input_error([] {
          parse_scenario("study = \"s\"\n[sweep]\nparams.n = [1]\n\"params.n\" = [2]\n", "x.toml");
        })) == "x.toml:4: key 'sweep.\"params.n\"': is swept twice");
}

TEST_CASE("malformed sweeps are rejected", "[scenario][sweep][errors]") {
  auto err = [](const std::string& sweep) {
    return what(expect_input_error([&] { parse_scenario("study = \"s\"\n[params]\nn = 1\n[sweep]\n" + sweep, "x.toml"); }));
  };
  CHECK(err("\"params.n\" = 5\n") ==
        "x.toml:5: key 'sweep.\"params.n\"': must be an array of values or a table {from, to, steps}, got 5");
  CHECK(err("\"params.n\" = []\n") == "x.toml:5: key 'sweep.\"params.n\"': must list at least one value, got []");
  CHECK(err("\"params.n\" = { from = 1, to = 2, steps = 1 }\n") ==
        "x.toml:5: key 'sweep.\"params.n\".steps': must be >= 2, got 1");
  CHECK(err("\"params.n\" = { from = 1, to = 2 }\n") ==
        "x.toml:5: key 'sweep.\"params.n\".steps': required key is missing");
  CHECK(err("\"params.n\" = { from = 0, to = 2, steps = 3, spacing = \"log\" }\n") ==
        "x.toml:5: key 'sweep.\"params.n\".from': must be > 0 with spacing = \"log\", got 0");
  CHECK(err("\"params.n\" = { from = 1, to = 2, steps = 3, spacing = \"geometric\" }\n") ==
        "x.toml:5: key 'sweep.\"params.n\".spacing': must be one of \"linear\", \"log\", got \"geometric\"");
  CHECK(err("\"params.n\" = { from = \"a\", to = 2, steps = 3 }\n") ==
        "x.toml:5: key 'sweep.\"params.n\".from': must be a number, got string \"a\"");
  CHECK(err("\"monte_carlo.trials\" = [1, 2]\n") ==
        "x.toml:5: key 'sweep.\"monte_carlo.trials\"': cannot sweep 'monte_carlo.trials': only study parameters "
        "(outside study, title, monte_carlo, output, sweep) can be swept");
  CHECK(err("\"params.n.x\" = [1]\n") ==
        "x.toml:5: key 'sweep.\"params.n.x\"': cannot set 'params.n.x': 'params.n' (line 3) is not a table");
  CHECK(err("\"params..n\" = [1]\n") ==
        "x.toml:5: key 'sweep.\"params..n\"': is not a valid dotted key (empty component)");
}

TEST_CASE("load_scenario reads a file and reports a missing one", "[scenario]") {
  const auto dir = std::filesystem::temp_directory_path() / "moelab_scenario_test";
  std::filesystem::create_directories(dir);
  const auto file = (dir / "fig3.toml").string();
  {
    std::ofstream out(file);
    out << "study = \"noisy.excess_risk\"\n[params]\nn = 7\n";
  }
  const auto s = moelab::load_scenario(file);
  CHECK(s.path == file);
  CHECK(s.name == "fig3");
  CHECK(s.output_csv == "results/fig3.csv");
  const auto missing = (dir / "nope.toml").string();
  const auto e = expect_input_error([&] { moelab::load_scenario(missing); });
  CHECK(what(e) == missing + ": cannot read file");
  std::filesystem::remove_all(dir);
}

}  // namespace scenario_test
