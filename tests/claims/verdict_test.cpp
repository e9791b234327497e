#include <catch2/catch.hpp>

#include <set>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/claims/verdict.hpp"

using namespace moelab;
using namespace moelab::claims;

namespace {
Claim dummy(const std::string& id) { return Claim{id, "test", "statement", ClaimKind::equality, {}}; }

Outcome outcome(const Claim& c, double p_printed, std::optional<double> p_exact, double p_control) {
  Outcome o;
  o.claim = &c;
  o.evidence.printed.p_value = p_printed;
  if (p_exact) {
    o.evidence.exact = TestResult{};
    o.evidence.exact->p_value = *p_exact;
  }
  o.evidence.control.p_value = p_control;
  return o;
}
}  // namespace

TEST_CASE("verdicts follow the decision rule with Holm across the suite", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b"), c = dummy("c"), d = dummy("d"), e = dummy("e");
  std::vector<Outcome> in{outcome(a, 0.5, std::nullopt, 1e-9),   // holds
                          outcome(b, 1e-9, 0.6, 1e-9),           // erratum
                          outcome(c, 1e-9, 1e-9, 1e-9),          // fails (both rejected)
                          outcome(d, 1e-9, std::nullopt, 1e-9),  // fails (no exact form)
                          outcome(e, 0.5, std::nullopt, 0.2)};   // inconclusive: control not rejected
  const auto r = judge(in, 0.01);
  CHECK(r.family_size == 7);
  CHECK(r.outcomes[0].verdict == Verdict::holds);
  CHECK(r.outcomes[1].verdict == Verdict::erratum);
  CHECK(r.outcomes[2].verdict == Verdict::fails);
  CHECK(r.outcomes[3].verdict == Verdict::fails);
  CHECK(r.outcomes[4].verdict == Verdict::inconclusive);
}

TEST_CASE("a p-value significant alone is not significant after Holm over a large family", "[claims]") {
  // 0.004 < alpha = 0.01 alone, but with 10 tests Holm's first threshold is 0.001.
  std::vector<Claim> cs;
  for (int i = 0; i < 10; ++i) cs.push_back(dummy("c" + std::to_string(i)));
  std::vector<Outcome> in;
  for (int i = 0; i < 10; ++i) in.push_back(outcome(cs[static_cast<std::size_t>(i)], i == 0 ? 0.004 : 0.9, std::nullopt, 1e-12));
  const auto r = judge(in, 0.01);
  CHECK(r.outcomes[0].verdict == Verdict::holds);
  CHECK(r.outcomes[0].printed_p_holm == Approx(0.04).epsilon(1e-12));
}

TEST_CASE("a control must be rejected at the Bonferroni level of the whole family", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b");
  // Family of 2 tests: control level 0.005. A control at p = 0.008 is not enough.
  const auto r = judge({outcome(a, 0.5, std::nullopt, 0.008), outcome(b, 0.5, std::nullopt, 0.004)}, 0.01);
  CHECK(r.outcomes[0].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[1].verdict == Verdict::holds);
}

TEST_CASE("every registered claim has a unique id, a source and a check", "[claims]") {
  std::set<std::string> ids;
  for (const auto& c : registry().all()) {
    CHECK(ids.insert(c.id).second);
    CHECK_FALSE(c.source.empty());
    CHECK(static_cast<bool>(c.check));
  }
  CHECK(registry().all().size() >= 20);
}

TEST_CASE("claim seeds are stable and differ between claims", "[claims]") {
  CHECK(claim_seed(1, "noisy.thm2.dense_risk") == claim_seed(1, "noisy.thm2.dense_risk"));
  CHECK(claim_seed(1, "noisy.thm2.dense_risk") != claim_seed(1, "noisy.thm2.sparse_risk"));
  CHECK(claim_seed(1, "x") != claim_seed(2, "x"));
}

TEST_CASE("selection by substring and by glob", "[claims]") {
  CHECK(registry().select("thm2").size() == 3);
  CHECK(registry().select("noisy.thm?.dense_risk").size() == 2);
  CHECK(registry().select("no-such-claim").empty());
}

TEST_CASE("the quick suite's Thm 2 claims hold and their controls are rejected", "[claims][slow]") {
  const auto r = run_suite(registry().select("thm2"), CheckBudget{}, 0.01, false);
  for (const auto& o : r.outcomes) {
    CHECK(o.verdict == Verdict::holds);
    CHECK(o.control_rejected);
  }
}
