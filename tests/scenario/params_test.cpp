#include "moelab/scenario/params.hpp"

#include <catch2/catch.hpp>

#include "scenario/input_error_helpers.hpp"

using moelab::ParamView;
using moelab::test::expect_input_error;

namespace {
toml::table parse(const std::string& text) { return toml::parse(text, std::string_view("t.toml")); }
}  // namespace

TEST_CASE("typed getters read dotted keys and accept integers where doubles are asked for", "[scenario][params]") {
  const auto t = parse(
      "[params]\n"
      "n = 100\n"
      "ratio = 0.5\n"
      "name = \"abc\"\n"
      "flag = true\n"
      "xs = [1, 2.5]\n"
      "ns = [3, 4]\n"
      "m = [[1, 2], [3, 4]]\n");
  const ParamView v(t, "t.toml");
  CHECK(v.has("params.n"));
  CHECK_FALSE(v.has("params.missing"));
  CHECK(v.get_int("params.n") == 100);
  CHECK(v.get_double("params.n") == 100.0);
  CHECK(v.get_double("params.ratio") == 0.5);
  CHECK(v.get_string("params.name") == "abc");
  CHECK(v.get_bool("params.flag", false));
  CHECK(v.get_double_array("params.xs") == std::vector<double>{1.0, 2.5});
  CHECK(v.get_int_array("params.ns") == std::vector<std::int64_t>{3, 4});
  CHECK(v.get_double_matrix("params.m") == std::vector<std::vector<double>>{{1, 2}, {3, 4}});
  CHECK(v.get_double("params.missing", 7.0) == 7.0);
  CHECK(v.get_int("params.missing", 7) == 7);
  CHECK(v.get_string("params.missing", "x") == "x");
  CHECK(v.line_of("params.ratio") == 3);
  CHECK(v.line_of("params.missing") == 0);
  CHECK_NOTHROW(v.check_all_used());
}

TEST_CASE("wrong types are reported with file, line, key and the value found", "[scenario][params]") {
  const auto t = parse(
      "[model]\n"
      "sigma2 = \"big\"\n"
      "k = 2.0\n"
      "p = [0.5, \"x\"]\n"
      "flag = 1\n");
  const ParamView v(t, "t.toml");
  SECTION("string where a number is expected") {
    const auto e = expect_input_error([&] { v.get_double("model.sigma2"); });
    CHECK(std::string(e.what()) == "t.toml:2: key 'model.sigma2': must be a number, got string \"big\"");
    CHECK(e.line() == 2);
    CHECK(e.key() == "model.sigma2");
  }
  SECTION("float where an integer is expected") {
    const auto e = expect_input_error([&] { v.get_int("model.k"); });
    CHECK(std::string(e.what()) == "t.toml:3: key 'model.k': must be an integer, got float 2.0");
  }
  SECTION("a bad array entry is reported at the entry") {
    const auto e = expect_input_error([&] { v.get_double_array("model.p"); });
    CHECK(std::string(e.what()) == "t.toml:4: key 'model.p': entry [1] must be a number, got string \"x\"");
  }
  SECTION("an integer where a boolean is expected") {
    const auto e = expect_input_error([&] { v.get_bool("model.flag", false); });
    CHECK(std::string(e.what()) == "t.toml:5: key 'model.flag': must be true or false, got integer 1");
  }
  SECTION("a scalar where a table is expected on the way to a key") {
    const auto e = expect_input_error([&] { v.get_double("model.sigma2.x"); });
    CHECK(std::string(e.what()) == "t.toml:2: key 'model.sigma2': must be a table, got string \"big\"");
  }
}

TEST_CASE("a missing required key is reported at the line of its enclosing table", "[scenario][params]") {
  const auto t = parse("study = \"s\"\n\n[model]\nk = 2\n");
  const ParamView v(t, "t.toml");
  const auto e = expect_input_error([&] { v.get_positive("model.sigma2"); });
  CHECK(std::string(e.what()) == "t.toml:3: key 'model.sigma2': required key is missing");
}

TEST_CASE("domain-checked getters state the domain and the value", "[scenario][params]") {
  const auto t = parse(
      "[params]\n"
      "n = 0\n"
      "sigma2 = -1\n"
      "rate = -0.5\n"
      "nan = nan\n"
      "kind = \"gauss\"\n");
  const ParamView v(t, "t.toml");
  SECTION("n < 1 (a study parameter)") {
    const auto e = expect_input_error([&] { v.get_int_at_least("params.n", 1); });
    CHECK(std::string(e.what()) == "t.toml:2: key 'params.n': must be >= 1, got 0");
  }
  SECTION("n < 1 with a fallback still rejects the written value") {
    const auto e = expect_input_error([&] { v.get_int_at_least("params.n", 1, 10); });
    CHECK(e.line() == 2);
  }
  SECTION("not positive") {
    const auto e = expect_input_error([&] { v.get_positive("params.sigma2"); });
    CHECK(std::string(e.what()) == "t.toml:3: key 'params.sigma2': must be > 0, got -1");
  }
  SECTION("negative") {
    const auto e = expect_input_error([&] { v.get_nonnegative("params.rate", 0.0); });
    CHECK(std::string(e.what()) == "t.toml:4: key 'params.rate': must be >= 0, got -0.5");
  }
  SECTION("not finite") {
    const auto e = expect_input_error([&] { v.get_double("params.nan"); });
    CHECK(std::string(e.what()) == "t.toml:5: key 'params.nan': must be a finite number, got nan");
  }
  SECTION("not one of the choices") {
    const auto e = expect_input_error([&] { v.get_choice("params.kind", {"identity", "toeplitz"}, "identity"); });
    CHECK(std::string(e.what()) ==
          "t.toml:6: key 'params.kind': must be one of \"identity\", \"toeplitz\", got \"gauss\"");
  }
  CHECK(v.get_choice("params.other", {"identity", "toeplitz"}, "identity") == "identity");
}

TEST_CASE("check_all_used reports the first unread key in file order", "[scenario][params]") {
  const auto t = parse(
      "zeta = 1\n"        // line 1: top-level, unread
      "[params]\n"
      "n = 10\n"
      "alpha = 2\n");     // line 4: unread, but after zeta
  const ParamView v(t, "t.toml");
  v.get_int("params.n");
  const auto e = expect_input_error([&] { v.check_all_used(); });
  CHECK(std::string(e.what()) == "t.toml:1: key 'zeta': unknown key");

  const auto t2 = parse("[params]\nn = 10\nsigam2 = 1\n[model]\nk = 1\n");
  const ParamView v2(t2, "t.toml");
  v2.get_int("params.n");
  v2.get_double("params.sigma2", 1.0);  // asked for, absent: the typo gets a suggestion
  v2.mark_used("model");                // a sub-table parsed elsewhere
  const auto e2 = expect_input_error([&] { v2.check_all_used(); });
  CHECK(std::string(e2.what()) == "t.toml:3: key 'params.sigam2': unknown key (did you mean 'params.sigma2'?)");

  SECTION("restricted to a prefix") {
    const auto t3 = parse("other = 1\n[monte_carlo]\ntrials = 3\n");
    const ParamView v3(t3, "t.toml");
    CHECK_NOTHROW(v3.check_all_used("monte_carlo.nothing"));
    const auto e3 = expect_input_error([&] { v3.check_all_used("monte_carlo"); });
    CHECK(e3.key() == "monte_carlo.trials");
  }
  SECTION("an empty table nobody asked for is unknown too") {
    const auto t4 = parse("[params]\n[modle]\n");
    const ParamView v4(t4, "t.toml");
    v4.mark_used("params");
    const auto e4 = expect_input_error([&] { v4.check_all_used(); });
    CHECK(std::string(e4.what()) == "t.toml:2: key 'modle': unknown key");
  }
}

TEST_CASE("fail names the key at its line", "[scenario][params]") {
  const auto t = parse("[a]\nb = [1,\n 2]\n");
  const ParamView v(t, "t.toml");
  const auto e = expect_input_error([&] { v.fail("a.b", "is odd"); });
  CHECK(std::string(e.what()) == "t.toml:2: key 'a.b': is odd");
  const auto e2 = expect_input_error([&] { v.fail_entry("a.b", 1, "entry [1] is odd"); });
  CHECK(e2.line() == 3);
}

TEST_CASE("a ragged matrix is rejected at the offending row", "[scenario][params]") {
  const auto t = parse("m = [[1, 2],\n     [3]]\n");
  const ParamView v(t, "t.toml");
  const auto e = expect_input_error([&] { v.get_double_matrix("m"); });
  CHECK(std::string(e.what()) == "t.toml:2: key 'm': row [1] has 1 entries, but row [0] has 2");
}
