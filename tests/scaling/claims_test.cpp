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
#include "topic_test_support.hpp"

namespace moelab::scaling {
void register_claims(claims::Registry& reg);
}

using namespace moelab::claims;

TEST_CASE("scaling claims reach their documented verdicts", "[scaling][claims]") {
  const std::map<std::string, Verdict> expected{
      {"scaling.lemma37.routing_overhead", Verdict::holds}, {"scaling.compute_optimal", Verdict::holds},
      {"scaling.thm43.rate", Verdict::holds},
  };
  moelab::test::check_documented_verdicts(moelab::scaling::register_claims, "scaling.*", expected);
}
