// The bounds claims at seed 1, quick budget, in a registry of their own: each reaches the verdict
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

namespace moelab::bounds {
void register_claims(claims::Registry& reg);
}

using namespace moelab::claims;

TEST_CASE("bounds claims reach their documented verdicts", "[bounds][claims]") {
  const std::map<std::string, Verdict> expected{
      {"bounds.lemma5.routed_class", Verdict::erratum},       {"bounds.lemma6.natarajan", Verdict::holds},
      {"bounds.lemma7.ghost_sample", Verdict::holds},         {"bounds.lemma8.symmetrisation", Verdict::holds},
      {"bounds.lemma9.contraction", Verdict::holds},          {"bounds.lemma10.convex_hull", Verdict::holds},
      {"bounds.lemma11.bounded_differences", Verdict::holds}, {"bounds.eq16.mcdiarmid", Verdict::erratum},
      {"bounds.eq13.pattern_counts", Verdict::holds},         {"bounds.thm1.eq17_eq18", Verdict::erratum},
      {"bounds.thm1.monotone", Verdict::holds},               {"bounds.rademacher.estimators", Verdict::holds},
  };
  moelab::test::check_documented_verdicts(moelab::bounds::register_claims, "bounds.*", expected);
}
