// Sweep points as an overlay: the scenario's base table plus one override per axis, read through
// ParamView without copying the base. Lines are the sweep value's for swept keys, the base's otherwise.
#include <string>

#include <catch2/catch.hpp>

#include "moelab/scenario/params.hpp"
#include "moelab/scenario/scenario.hpp"
#include "scenario/input_error_helpers.hpp"

using moelab::ParamOverride;
using moelab::ParamView;
using moelab::parse_scenario;
using moelab::test::expect_input_error;

namespace {
std::string what(const moelab::InputError& e) { return e.what(); }
}  // namespace

TEST_CASE("an error in a swept value names the line of the sweep value", "[scenario][overlay][errors]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"                                              // 1
      "[model]\n"                                                    // 2
      "sigma2 = 1.0\n"                                               // 3
      "experts = 4\n"                                                // 4
      "[sweep]\n"                                                    // 5
      "\"model.experts\" = [2,\n"                                    // 6
      "                   0]\n"                                      // 7
      "\"model.sigma2\" = { from = -1, to = 1, steps = 3 }\n",       // 8
      "x.toml");
  const auto points = s.points();
  REQUIRE(points.size() == 6);
  // Listed values: the line of the value itself (the second entry is on line 7).
  const ParamView ok = points[0].view(s.path);
  CHECK(ok.get_int_at_least("model.experts", 1) == 2);
  CHECK(ok.line_of("model.experts") == 6);
  const ParamView bad = points[3].view(s.path);
  CHECK(what(expect_input_error([&] { bad.get_int_at_least("model.experts", 1); })) ==
        "x.toml:7: key 'model.experts': must be >= 1, got 0");
  // Generated values have no position of their own: the axis's line stands for them.
  CHECK(what(expect_input_error([&] { ok.get_positive("model.sigma2"); })) ==
        "x.toml:8: key 'model.sigma2': must be > 0, got -1");
  CHECK(what(expect_input_error([&] { bad.get_string("model.sigma2"); })) ==
        "x.toml:8: key 'model.sigma2': must be a string, got float -1.0");
  // The type of a listed value is reported at its line too.
  const auto s2 = parse_scenario("study = \"s\"\n[params]\nn = 5\n[sweep]\n\"params.n\" = [\"ten\"]\n", "x.toml");
  const ParamView v2 = s2.points()[0].view(s2.path);
  CHECK(what(expect_input_error([&] { v2.get_int("params.n"); })) ==
        "x.toml:5: key 'params.n': must be an integer, got string \"ten\"");
}

TEST_CASE("an override inside a base table leaves the table's other keys and lines alone", "[scenario][overlay]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"          // 1
      "[model]\n"                // 2
      "sigma2 = 1.0\n"           // 3
      "experts = 4\n"            // 4
      "sigam = 2\n"              // 5 (a typo)
      "[sweep]\n"                // 6
      "model.experts = [8]\n",   // 7
      "x.toml");
  const auto points = s.points();
  REQUIRE(points.size() == 1);
  const ParamView v = points[0].view(s.path);
  CHECK(v.get_int("model.experts") == 8);
  CHECK(v.line_of("model.experts") == 7);
  CHECK(v.get_double("model.sigma2") == 1.0);
  CHECK(v.line_of("model.sigma2") == 3);
  CHECK(v.line_of("model") == 2);
  REQUIRE(v.find("model") != nullptr);
  CHECK(v.find("model")->is_table());
  // A missing key in [model] is reported at [model]'s line.
  CHECK(what(expect_input_error([&] { v.get_double("model.rate"); })) == "x.toml:2: key 'model.rate': required key is missing");
  // The unknown key is found, with its hint, in the base part of the overlaid table.
  CHECK(what(expect_input_error([&] { v.check_all_used("model"); })) ==
        "x.toml:5: key 'model.sigam': unknown key (did you mean 'model.sigma2'?)");
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) ==
        "x.toml:5: key 'model.sigam': unknown key (did you mean 'model.sigma2'?)");
  // The base is not touched.
  CHECK(s.base["model"]["experts"].value<std::int64_t>() == 4);
}

TEST_CASE("an override of a key absent from the base creates its tables", "[scenario][overlay]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"                                          // 1
      "[params]\n"                                               // 2
      "n = 3\n"                                                  // 3
      "[sweep]\n"                                                // 4
      "\"params.ratio\" = [0.5]\n"                               // 5
      "\"model.block.size\" = { from = 1, to = 3, steps = 3, integer = true }\n",  // 6
      "x.toml");
  const auto points = s.points();
  REQUIRE(points.size() == 3);
  const ParamView v = points[2].view(s.path);
  CHECK(v.get_double("params.ratio") == 0.5);
  CHECK(v.get_int("params.n") == 3);
  CHECK(v.get_int("model.block.size") == 3);
  CHECK(v.has("model"));
  CHECK(v.has("model.block"));
  REQUIRE(v.find("model.block") != nullptr);
  CHECK(v.find("model.block")->is_table());
  CHECK_FALSE(v.has("model.other"));
  // A table that exists only through an override is placed at that override's line.
  CHECK(v.line_of("model") == 6);
  CHECK(what(expect_input_error([&] { v.get_double("model.sigma2"); })) ==
        "x.toml:6: key 'model.sigma2': required key is missing");
  // A scalar on the way to a key is still "must be a table".
  CHECK(what(expect_input_error([&] { v.get_int("model.block.size.x"); })) ==
        "x.toml:6: key 'model.block.size': must be a table, got integer 3");
}

TEST_CASE("unknown keys are found in file order across the base and the overrides", "[scenario][overlay]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"                       // 1
      "[model]\n"                             // 2
      "sigma2 = 1.0\n"                        // 3
      "[params]\n"                            // 4
      "zeta = 1\n"                            // 5
      "[sweep]\n"                             // 6
      "\"model.sigam2\" = [1, 2]\n"           // 7 (a swept typo)
      "\"extra.knob\" = [true]\n",            // 8
      "x.toml");
  const ParamView v = s.points()[1].view(s.path);
  v.get_double("model.sigma2");
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) == "x.toml:5: key 'params.zeta': unknown key");
  v.mark_used("params");
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) ==
        "x.toml:7: key 'model.sigam2': unknown key (did you mean 'model.sigma2'?)");
  v.mark_used("model");  // a sub-table parsed elsewhere: covers the override inside it
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) == "x.toml:8: key 'extra.knob': unknown key");
  CHECK(what(expect_input_error([&] { v.check_all_used("extra"); })) == "x.toml:8: key 'extra.knob': unknown key");
  CHECK_NOTHROW(v.check_all_used("model"));
  v.mark_used("extra");
  CHECK_NOTHROW(v.check_all_used());
}

TEST_CASE("array and table sweep values keep the lines of their entries", "[scenario][overlay]") {
  const auto s = parse_scenario(
      "study = \"s\"\n"                                              // 1
      "[model]\n"                                                    // 2
      "p = [0.5, 0.5]\n"                                             // 3
      "[model.covariance]\n"                                         // 4
      "kind = \"diagonal\"\n"                                        // 5
      "[sweep]\n"                                                    // 6
      "\"model.p\" = [[0.25, 0.75],\n"                               // 7
      "               [0.5,\n"                                       // 8
      "                -0.5]]\n"                                     // 9
      "\"model.covariance\" = [{ kind = \"identity\" },\n"            // 10
      "                      { kind = \"toeplitz\", rhoo = 0.5 }]\n",  // 11
      "x.toml");
  const auto points = s.points();
  REQUIRE(points.size() == 4);
  const ParamView v = points[3].view(s.path);
  CHECK(v.get_double_array("model.p") == std::vector<double>{0.5, -0.5});
  CHECK(v.line_of("model.p") == 8);
  const auto e = expect_input_error([&] { v.fail_entry("model.p", 1, "entry [1] must be > 0"); });
  CHECK(e.line() == 9);
  CHECK(v.get_string("model.covariance.kind") == "toeplitz");
  CHECK(v.line_of("model.covariance.kind") == 11);
  (void)v.get_double("model.covariance.rho", 0.0);
  CHECK(what(expect_input_error([&] { v.check_all_used("model.covariance"); })) ==
        "x.toml:11: key 'model.covariance.rhoo': unknown key (did you mean 'model.covariance.rho'?)");
  // The base's [model.covariance] is hidden by the override, not merged with it.
  CHECK(s.base["model"]["covariance"]["kind"].value<std::string>() == "diagonal");
  CHECK(points[0].view(s.path).get_string("model.covariance.kind") == "identity");
}

TEST_CASE("a ParamView overlay can be built directly on any table", "[scenario][overlay]") {
  const auto base = toml::parse("[a]\nx = 1\ny = 2\n", std::string_view("t.toml"));
  const toml::value<std::int64_t> seven(7);
  const toml::value<std::string> word("w");
  const ParamView v(base, {{"a.x", &seven, 9, 1}, {"b.c.d", &word, 10, 1}}, "t.toml");
  CHECK(v.get_int("a.x") == 7);
  CHECK(v.line_of("a.x") == 9);
  CHECK(v.line_of("a.y") == 3);  // read from the base (line_of does not mark it used)
  CHECK(v.get_string("b.c.d") == "w");
  CHECK(v.line_of("b") == 10);
  CHECK(what(expect_input_error([&] { v.check_all_used(); })) == "t.toml:3: key 'a.y': unknown key (did you mean 'a.x'?)");
  // Without overrides it is the plain view.
  const ParamView plain(base, std::vector<ParamOverride>{}, "t.toml");
  CHECK(plain.get_int("a.x") == 1);
}

TEST_CASE("axes that set a key inside another axis's key are rejected", "[scenario][overlay][errors]") {
  CHECK(what(expect_input_error([] {
          parse_scenario("study = \"s\"\n[sweep]\n\"model\" = [{ k = 1 }]\n\"model.k\" = [2]\n", "x.toml");
        })) == "x.toml:4: key 'sweep.\"model.k\"': overlaps the axis 'model' (line 3): sweep a key or a table "
               "inside it, not both");
}

TEST_CASE("a 1000-point sweep borrows the base instead of copying it", "[scenario][overlay]") {
  // A base of 2000 keys: a copy per point would be 2 million nodes.
  std::string text = "study = \"s\"\n[model]\n";
  for (int i = 0; i < 2000; ++i) text += "k" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  text += "[sweep]\n\"model.k7\" = { from = 1, to = 100, steps = 100, integer = true }\n\"params.n\" = [";
  for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + std::to_string(10 * (i + 1));
  text += "]\n";
  const auto s = parse_scenario(text, "big.toml");
  // Borrowing is checked by identity (every point's base is the scenario's base, every override the
  // axis's own node), not by timing points(): a clock bound flakes on a loaded machine and a copy would
  // fail these identities however fast it was.
  const auto points = s.points();
  REQUIRE(points.size() == 1000);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    REQUIRE(p.base == &s.base);
    REQUIRE(p.overrides.size() == 2);
    // The override values are the axes' own nodes, not copies.
    REQUIRE(p.overrides[0].value == s.axes[0].values[i / 10].get());
    REQUIRE(p.overrides[1].value == s.axes[1].values[i % 10].get());
  }
  const ParamView v = points[999].view(s.path);
  CHECK(v.get_int("model.k7") == 100);
  CHECK(v.get_int("model.k1999") == 1999);
  CHECK(v.get_int("params.n") == 100);
  CHECK(v.line_of("model.k1999") == 2002);
  CHECK(s.base["model"]["k7"].value<std::int64_t>() == 7);
}
