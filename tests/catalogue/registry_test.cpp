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
  // The count itself is pinned by tests/catalogue/suite_verdicts_test.cpp (every registered claim has a
  // row in lib/moelab/catalogue/documented_verdicts.txt and every row a claim).
  CHECK_FALSE(ids.empty());
}

TEST_CASE("selection by substring and by glob", "[claims]") {
  CHECK(catalogue::claims().select("thm2").size() == 3);
  CHECK(catalogue::claims().select("noisy.thm?.dense_risk").size() == 2);
  CHECK(catalogue::claims().select("no-such-claim").empty());
}

// The quick Thm 2 verdicts (and every other claim's) are pinned in the whole suite's family by
// suite_verdicts_test.cpp.
