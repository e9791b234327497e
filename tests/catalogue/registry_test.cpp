// The catalogue's claim registry: unique ids, selection, and the quick Thm 2 claims.
#include <set>

#include <catch2/catch.hpp>

#include "moelab/catalogue/catalogue.hpp"
#include "moelab/claims/verdict.hpp"

using namespace moelab;
using namespace moelab::claims;

TEST_CASE("every registered claim has a unique id, a source and a check", "[claims]") {
  std::set<std::string> ids;
  for (const auto& c : catalogue::claims().all()) {
    CHECK(ids.insert(c.id).second);
    CHECK_FALSE(c.source.empty());
    CHECK(static_cast<bool>(c.check));
  }
  CHECK(catalogue::claims().all().size() >= 20);
}

TEST_CASE("selection by substring and by glob", "[claims]") {
  CHECK(catalogue::claims().select("thm2").size() == 3);
  CHECK(catalogue::claims().select("noisy.thm?.dense_risk").size() == 2);
  CHECK(catalogue::claims().select("no-such-claim").empty());
}

TEST_CASE("the quick suite's Thm 2 claims hold and their controls are rejected", "[claims][slow]") {
  const auto r = run_suite(catalogue::claims().select("thm2"), CheckBudget{}, 0.01, false);
  for (const auto& o : r.outcomes) {
    CHECK(o.verdict == Verdict::holds);
    CHECK(o.control_rejected);
  }
}
