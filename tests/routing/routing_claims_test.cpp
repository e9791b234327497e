// The routing claims reach the verdicts docs/claims.md records, and every control is rejected. The
// three cheap ones (< 1 s together) run with the fast tests; all six run in [slow] (~7 s on one core).
// A changed verdict is a changed finding and must be re-documented, not re-pinned silently.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"

using namespace moelab::claims;

namespace {
void check_verdicts(const std::map<std::string, Verdict>& expected) {
  std::vector<const Claim*> selected;
  for (const auto& [id, v] : expected) {
    const auto found = registry().select(id);
    REQUIRE(found.size() == 1);
    selected.push_back(found[0]);
  }
  const auto r = run_suite(selected, CheckBudget{}, 0.01, false);
  for (const auto& o : r.outcomes) {
    INFO(o.claim->id << ": " << o.reason << " | " << o.evidence.note);
    CHECK(o.verdict == expected.at(o.claim->id));
    CHECK(o.control_rejected);
  }
}
}  // namespace

TEST_CASE("cheap routing claims reach their documented verdicts", "[routing][claims]") {
  check_verdicts({{"routing.lemmaA3.shift_bound", Verdict::holds},
                  {"routing.lemma33.packing", Verdict::holds},
                  {"routing.claimA9.counting", Verdict::holds}});
}

TEST_CASE("all routing claims reach their documented verdicts", "[routing][claims][slow]") {
  CHECK(registry().select("routing.*").size() == 6);
  check_verdicts({{"routing.lemma32.region_masses", Verdict::erratum},
                  {"routing.lemmaA3.shift_bound", Verdict::holds},
                  {"routing.lemma33.packing", Verdict::holds},
                  {"routing.claimA9.counting", Verdict::holds},
                  {"routing.lemma35.covariance", Verdict::holds},
                  {"routing.thm31.separation", Verdict::holds}});
}
