// The scaling claims at seed 1, quick budget, in a registry of their own: each reaches the verdict
// docs/claims.md records, every control is rejected, every claim states its power (relevance).
// The Holm family is this topic's claims only (smaller than the whole suite's): a verdict here that
// differs from `moelab check` would be a finding to document, not to pin silently.
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"

namespace moelab::scaling {
void register_claims(claims::Registry& reg);
}

using namespace moelab::claims;

TEST_CASE("scaling claims reach their documented verdicts", "[scaling][claims]") {
  const std::map<std::string, Verdict> expected{
      {"scaling.lemma37.routing_overhead", Verdict::holds}, {"scaling.compute_optimal", Verdict::holds},
      {"scaling.thm43.rate", Verdict::holds},
  };
  Registry reg;
  moelab::scaling::register_claims(reg);
  REQUIRE(reg.all().size() == expected.size());
  const auto r = run_suite(reg.select("scaling.*"), CheckBudget{}, 0.01, false);
  for (const auto& o : r.outcomes) {
    std::cout << o.claim->id << " | " << to_string(o.verdict) << " | " << o.reason << "\n";
    INFO(o.claim->id << ": " << o.reason << " | " << o.evidence.note);
    REQUIRE(expected.count(o.claim->id) == 1);
    CHECK(o.verdict == expected.at(o.claim->id));
    CHECK(o.control_rejected);
    CHECK_FALSE(std::isnan(o.relevance));
  }
}
