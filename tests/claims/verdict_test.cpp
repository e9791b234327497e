#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
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
  TestResult control;
  control.p_value = p_control;
  o.evidence.control(control);
  o.evidence.relevance = 1.0;  // exact tests (std_error 0): any relevance is detectable
  return o;
}
}  // namespace

TEST_CASE("verdicts follow the decision rule at alpha / registered claims", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b"), c = dummy("c"), d = dummy("d"), e = dummy("e");
  std::vector<Outcome> in{outcome(a, 0.5, std::nullopt, 1e-9),   // holds
                          outcome(b, 1e-9, 0.6, 1e-9),           // erratum
                          outcome(c, 1e-9, 1e-9, 1e-9),          // fails (both rejected)
                          outcome(d, 1e-9, std::nullopt, 1e-9),  // fails (no exact form)
                          outcome(e, 0.5, std::nullopt, 0.2)};   // inconclusive: control not rejected
  const auto r = judge(in, 0.01, 7);
  CHECK(r.family_size == 7);
  CHECK(r.outcomes[0].verdict == Verdict::holds);
  CHECK(r.outcomes[1].verdict == Verdict::erratum);
  CHECK(r.outcomes[2].verdict == Verdict::fails);
  CHECK(r.outcomes[3].verdict == Verdict::fails);
  CHECK(r.outcomes[4].verdict == Verdict::inconclusive);
  // A registered suite smaller than the judged selection is a programming error.
  CHECK_THROWS(judge(in, 0.01, 4));
}

TEST_CASE("the level is alpha / registered claims whichever claims are judged", "[claims]") {
  // 0.004 < alpha = 0.01, but over 10 registered claims the level is 0.001: not rejected, alone or
  // with the other nine (the old Holm-over-the-selection rule rejected it alone and kept it in the suite).
  std::vector<Claim> cs;
  for (int i = 0; i < 10; ++i) cs.push_back(dummy("c" + std::to_string(i)));
  std::vector<Outcome> in;
  for (int i = 0; i < 10; ++i) in.push_back(outcome(cs[static_cast<std::size_t>(i)], i == 0 ? 0.004 : 0.9, std::nullopt, 1e-12));
  const auto suite = judge(in, 0.01, 10);
  const auto alone = judge({in[0]}, 0.01, 10);
  CHECK(suite.outcomes[0].verdict == Verdict::holds);
  CHECK(alone.outcomes[0].verdict == Verdict::holds);
  CHECK(suite.outcomes[0].printed_p_adj == Approx(0.04).epsilon(1e-12));
  CHECK(alone.outcomes[0].printed_p_adj == Approx(0.04).epsilon(1e-12));
  // 0.0009 is below 0.001: rejected (fails, no exact form) alone and in the suite alike.
  in[0].evidence.printed.p_value = 0.0009;
  CHECK(judge(in, 0.01, 10).outcomes[0].verdict == Verdict::fails);
  CHECK(judge({in[0]}, 0.01, 10).outcomes[0].verdict == Verdict::fails);
}

TEST_CASE("every outcome's verdict is the same alone and in the suite (property over random evidence)", "[claims]") {
  // 200 random outcomes: p-values log-uniform in [1e-12, 1], with and without exact forms and
  // standard errors, random relevances and controls. Judged together and one at a time with the same
  // registered family, every field of the judgement must agree.
  std::vector<Claim> cs;
  for (int i = 0; i < 200; ++i) cs.push_back(dummy("r" + std::to_string(i)));
  std::uint64_t state = 12345;
  const auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  const auto logp = [&] { return std::pow(10.0, -12.0 * uniform()); };
  std::vector<Outcome> in;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    Outcome o = outcome(cs[i], logp(), uniform() < 0.4 ? std::optional<double>(logp()) : std::nullopt, logp());
    o.evidence.printed.std_error = uniform() < 0.8 ? 0.01 + uniform() : 0.0;
    o.evidence.printed.estimate = 4.0 * (uniform() - 0.5);
    o.evidence.relevance = uniform() < 0.1 ? std::numeric_limits<double>::quiet_NaN() : 3.0 * uniform();
    in.push_back(o);
  }
  const auto suite = judge(in, 0.01, 250);
  std::set<Verdict> seen;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto alone = judge({in[i]}, 0.01, 250);
    INFO(i << ": " << suite.outcomes[i].reason);
    CHECK(alone.outcomes[0].verdict == suite.outcomes[i].verdict);
    CHECK(alone.outcomes[0].reason == suite.outcomes[i].reason);
    CHECK(alone.outcomes[0].printed_p_adj == suite.outcomes[i].printed_p_adj);
    seen.insert(suite.outcomes[i].verdict);
  }
  CHECK(seen.size() == 4);  // the sample reaches every verdict: the property is not vacuous
}

TEST_CASE("fails needs a deviation that reaches the relevance", "[claims]") {
  // An erratum needs the exact form not rejected (its relevance is what the test must resolve between
  // the two forms); a `fails` needs the rejected deviation to matter.
  // Printed test rejected at p = 1e-9 with standard error 0.01; the relevance is 0.1. Level 0.01 / 5.
  const Claim a = dummy("a"), b = dummy("b"), c = dummy("c"), d = dummy("d"), e = dummy("e");
  const double level = 0.01 / 5.0, z = normal_quantile(1.0 - level / 2.0);
  const auto rejected = [&](const Claim& cl, double deviation, std::optional<double> p_exact) {
    Outcome o = outcome(cl, 1e-9, p_exact, 1e-12);
    o.evidence.printed.std_error = 0.01;
    o.evidence.printed.reference = 2.0;
    o.evidence.printed.estimate = 2.0 + deviation;
    o.evidence.relevance = 0.1;
    return o;
  };
  const auto r = judge({rejected(a, 0.1 - 1.01 * z * 0.01, std::nullopt),   // within the relevance, confidently
                        rejected(b, 0.1 - 0.99 * z * 0.01, std::nullopt),   // below it, but not confidently
                        rejected(c, -0.1, std::nullopt),                    // reaches it: fails
                        rejected(d, 0.05, 0.5),                             // an exact form not rejected: erratum
                        rejected(e, 0.3, 0.5)},                             // erratum
                       0.01, 5);
  CHECK(r.outcomes[0].verdict == Verdict::holds);
  CHECK(r.outcomes[1].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[2].verdict == Verdict::fails);
  CHECK(r.outcomes[3].verdict == Verdict::erratum);
  CHECK(r.outcomes[4].verdict == Verdict::erratum);
  CHECK(confidence_radius(r.outcomes[0].evidence.printed, level) == Approx(z * 0.01).epsilon(1e-12));
  // An exact check (no sampling error) is taken as it comes out: a rejected deterministic test fails
  // whatever its deviation.
  Outcome exact_only = outcome(a, 0.0, std::nullopt, 1e-12);
  exact_only.evidence.printed.estimate = 1.0 + 1e-6;
  exact_only.evidence.printed.reference = 1.0;
  CHECK(judge({exact_only}, 0.01, 5).outcomes[0].verdict == Verdict::fails);
}

TEST_CASE("a control must be rejected at alpha / registered claims", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b");
  // Two registered claims: control level 0.005. A control at p = 0.008 is not enough.
  const auto r = judge({outcome(a, 0.5, std::nullopt, 0.008), outcome(b, 0.5, std::nullopt, 0.004)}, 0.01, 2);
  CHECK(r.outcomes[0].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[1].verdict == Verdict::holds);
}

TEST_CASE("claim keys are stable and differ between claims, seeds and sub-experiments", "[claims]") {
  // Stable across builds and runs: pinned values (a changed hash would silently change every claim's
  // sample, hence every verdict table; change these only on purpose).
  CHECK(claim_key(1, "noisy.thm2.dense_risk").seed() == 6101913477104872756ull);
  CHECK(claim_key(7, "x").with("n", 3).seed() == 2277001742983612144ull);
  CHECK(claim_key(1, "noisy.thm2.dense_risk").seed() != claim_key(1, "noisy.thm2.sparse_risk").seed());
  CHECK(claim_key(1, "x").seed() != claim_key(2, "x").seed());
  // The collision `seed + n` had: (seed 1, n 2) and (seed 2, n 1) are different keys here.
  CHECK(claim_key(1, "x").with("n", 2).seed() != claim_key(2, "x").with("n", 1).seed());
  CHECK(claim_key(1, "x").with("n", 2).seed() != claim_key(1, "x").with("m", 2).seed());
}

TEST_CASE("every control must be rejected, not only the strongest", "[claims]") {
  const Claim a = dummy("a");
  Outcome o = outcome(a, 0.5, std::nullopt, 1e-12);
  TestResult weak;
  weak.p_value = 0.3;
  o.evidence.control(weak);
  const auto r = judge({o}, 0.01, 1);
  CHECK(r.outcomes[0].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[0].controls_rejected == 1);
  CHECK_FALSE(r.outcomes[0].control_rejected);
}

TEST_CASE("holds needs power against the relevance, otherwise inconclusive", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b"), c = dummy("c");
  // Three registered claims: level 0.01/3; min detectable = (z_(1-level/2) + z_0.9) * se.
  const double level = 0.01 / 3.0;
  const double k = normal_quantile(1.0 - level / 2.0) + normal_quantile(0.9);
  auto with_se = [&](const Claim& cl, double se, double relevance) {
    Outcome o = outcome(cl, 0.5, std::nullopt, 1e-12);
    o.evidence.printed.std_error = se;
    o.evidence.relevance = relevance;
    return o;
  };
  const auto r = judge({with_se(a, 0.01, 1.01 * k * 0.01), with_se(b, 0.01, 0.99 * k * 0.01),
                        with_se(c, 0.01, std::numeric_limits<double>::quiet_NaN())},
                       0.01, 3);
  CHECK(r.outcomes[0].verdict == Verdict::holds);
  CHECK(r.outcomes[0].min_detectable == Approx(k * 0.01).epsilon(1e-12));
  CHECK(r.outcomes[1].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[2].verdict == Verdict::inconclusive);  // no relevance, no control on the same estimate
}

TEST_CASE("the relevance defaults to the distance of a control on the same estimate", "[claims]") {
  Evidence e;
  e.printed = z_equality_test("printed", 1.0, 0.1, 1.0, 100);
  e.control(z_equality_test("wrong", 1.0, 0.1, 1.3, 100));
  e.control(z_equality_test("other estimate", 2.0, 0.1, 2.1, 100));  // not the same estimate: ignored
  CHECK(resolved_relevance(e) == Approx(0.3).epsilon(1e-12));
}

TEST_CASE("equality_evidence builds a control at the stated relative deviation", "[claims]") {
  Welford w;
  for (int i = 0; i < 1000; ++i) w.add(1.0 + 0.01 * ((i % 7) - 3));
  const Evidence e = equality_evidence("mean = 1", w, 1.0, 0.05);
  REQUIRE(e.controls.size() == 1);
  CHECK(e.controls[0].reference == Approx(1.05).epsilon(1e-15));
  CHECK(e.relevance == Approx(0.05).epsilon(1e-12));
  CHECK(e.controls[0].p_value < 1e-12);
  CHECK(e.printed.p_value > 0.5);
}


TEST_CASE("the stability table counts verdicts per claim over seeds and lists the seeds that differ", "[claims]") {
  const Claim a = dummy("a"), b = dummy("b");
  std::vector<SuiteResult> runs;
  for (double pb : {0.5, 0.5, 1e-12}) runs.push_back(judge({outcome(a, 0.5, std::nullopt, 1e-12), outcome(b, pb, std::nullopt, 1e-12)}, 0.01, 2));
  const auto st = verdict_stability(runs, {4, 5, 6}, CheckBudget{});
  CHECK(st.changes == 1);
  REQUIRE(st.table.rows.size() == 2);
  CHECK(std::get<std::string>(st.table.rows[0][6]) == "holds");
  CHECK(std::get<std::int64_t>(st.table.rows[0][7]) == 0);
  CHECK(std::get<std::int64_t>(st.table.rows[1][2]) == 2);  // holds twice
  CHECK(std::get<std::int64_t>(st.table.rows[1][4]) == 1);  // fails once
  CHECK(std::get<std::string>(st.table.rows[1][8]) == "6:fails");
}

TEST_CASE("the power statement of a t test uses its degrees of freedom", "[claims]") {
  Welford few, many;
  for (double x : {1.0, 1.2}) few.add(x);
  for (int i = 0; i < 10000; ++i) many.add(1.0 + 0.2 * ((i % 2) - 0.5));
  const TestResult a = equality_test("2 samples", few, 1.0), b = equality_test("1e4 samples", many, 1.0);
  const double level = 1e-4;
  // 1 dof: t_(1 - 5e-5) is about 6366, against z = 3.9; the z-based statement would be ~1000x optimistic.
  CHECK(min_detectable(a, level) > 1000.0 * (normal_quantile(1.0 - level / 2.0) + normal_quantile(0.9)) * a.std_error / 2.0);
  // Many dof: the t and normal statements agree to 1e-3.
  CHECK(min_detectable(b, level) ==
        Approx((normal_quantile(1.0 - level / 2.0) + normal_quantile(0.9)) * b.std_error).epsilon(1e-3));
}

TEST_CASE("the relevance of a combined test requires every part to see its own deviation", "[claims]") {
  // Part 0: se 0.1, must see 1 (10 se); part 1: se 0.5, must see 2 (4 se). Whichever part is
  // reported, the combined relevance is 4 of its standard errors: the weakest part decides.
  const TestResult parts[] = {z_equality_test("a", 0.0, 0.1, 0.0, 100), z_equality_test("b", 0.0, 0.5, 0.0, 100)};
  const double rel[] = {1.0, -2.0};
  CHECK(combined_relevance(parts[0], parts, rel) == Approx(0.4).epsilon(1e-14));
  CHECK(combined_relevance(parts[1], parts, rel) == Approx(2.0).epsilon(1e-14));
  // An exact part (se 0) sees any deviation and does not weaken the statement.
  const TestResult with_exact[] = {parts[0], deterministic_test("c", 0.0, 0.0, true)};
  const double rel2[] = {1.0, 1e-9};
  CHECK(combined_relevance(parts[0], with_exact, rel2) == Approx(1.0).epsilon(1e-14));
}

TEST_CASE("a Bonferroni combination of B sub-tests states its power at level / B", "[claims]") {
  // Three z sub-tests of standard error 0.1; the combined result reports the most significant one and is
  // rejected only when that one has p < level / 3, so its power is that of one sub-test at level / 3.
  const TestResult parts[] = {z_equality_test("a", 0.0, 0.1, 0.0, 10), z_equality_test("b", 0.05, 0.1, 0.0, 10),
                              z_equality_test("c", -0.02, 0.1, 0.0, 10)};
  const TestResult combined = combine_bonferroni("three", parts);
  CHECK(combined.bonferroni == 3);
  const double level = 0.01 / 7.0;
  const double single = (normal_quantile(1.0 - level / 2.0) + normal_quantile(0.9)) * 0.1;
  const double three = (normal_quantile(1.0 - level / 6.0) + normal_quantile(0.9)) * 0.1;
  CHECK(min_detectable(parts[0], level) == Approx(single).epsilon(1e-12));
  CHECK(min_detectable(combined, level) == Approx(three).epsilon(1e-12));
  CHECK(min_detectable(combined, level) > single * 1.03);  // the factor 3 on the level matters (~5 %)
  // Nested combinations multiply their counts.
  const TestResult outer[] = {combined, parts[1]};
  CHECK(combine_bonferroni("nested", outer).bonferroni == 6);
  // The judge uses it: a relevance between the two detectable deviations is not enough for `holds`.
  const Claim a = dummy("a");
  Outcome o = outcome(a, 0.5, std::nullopt, 1e-12);
  o.evidence.printed = combined;
  o.evidence.printed.p_value = 0.5;
  o.evidence.relevance = 0.5 * (single + three);
  std::vector<Outcome> in{o};
  const auto r = judge(in, 0.01, 7);  // seven registered claims
  CHECK(r.outcomes[0].verdict == Verdict::inconclusive);
  CHECK(r.outcomes[0].min_detectable == Approx(three).epsilon(1e-12));
}

TEST_CASE("judge: every branch on hand-built outcomes, with the reason naming the branch", "[claims]") {
  // 8 registered claims: level 0.01 / 8. Monte-Carlo tests (standard error 0.01, dof 0: normal
  // quantiles); relevance 0.1.
  const Claim a = dummy("a"), b = dummy("b"), c = dummy("c"), d = dummy("d"), e = dummy("e"), f = dummy("f"),
              g = dummy("g"), h = dummy("h");
  const double level = 0.01 / 8.0, z = normal_quantile(1.0 - level / 2.0);
  const double mdd = (z + normal_quantile(0.9)) * 0.01;  // detectable deviation at se 0.01
  const auto mc = [](double estimate, double reference, double se, double p) {
    TestResult t;
    t.estimate = estimate, t.reference = reference, t.std_error = se, t.p_value = p;
    return t;
  };
  const auto with = [&](const Claim& cl, TestResult printed, std::optional<TestResult> exact, bool controls = true) {
    Outcome o;
    o.claim = &cl;
    o.evidence.printed = printed;
    o.evidence.exact = exact;
    if (controls) o.evidence.control(mc(1.0, 0.0, 0.01, 1e-12));
    o.evidence.relevance = 0.1;
    return o;
  };
  const auto r = judge(
      {// no control at all: inconclusive, however clear the printed test
       with(a, mc(1.0, 1.0, 0.01, 0.9), std::nullopt, false),
       // printed rejected (deviation 0.5 >= 0.1); exact rejected but its deviation 0.1 - 1.01 z se is within
       // the relevance with confidence: erratum (the "within" reading)
       with(b, mc(1.5, 1.0, 0.01, 1e-12), mc(1.0 + 0.1 - 1.01 * z * 0.01, 1.0, 0.01, 1e-9)),
       // printed rejected; exact not rejected but its test too weak for the relevance (se 0.1: detectable
       // deviation ~0.4 > 0.1): inconclusive
       with(c, mc(1.5, 1.0, 0.01, 1e-12), mc(1.0, 1.0, 0.1, 0.9)),
       // printed rejected; exact rejected with a deviation below the relevance that its interval cannot
       // bound below it: inconclusive
       with(d, mc(1.5, 1.0, 0.01, 1e-12), mc(1.0 + 0.1 - 0.5 * z * 0.01, 1.0, 0.01, 1e-9)),
       // printed and exact both rejected with deviations >= relevance: fails
       with(e, mc(1.5, 1.0, 0.01, 1e-12), mc(1.3, 1.0, 0.01, 1e-12)),
       // printed rejected with a deviation just under the relevance (0.99): not fails (unclear: inconclusive)
       with(f, mc(1.099, 1.0, 0.01, 1e-12), std::nullopt),
       // ... and exactly at it: fails
       with(g, mc(1.1, 1.0, 0.01, 1e-12), std::nullopt),
       // printed accepted with power (se 0.01: detectable ~0.045 <= 0.1): holds; its p * 8 > 1 is capped at 1
       with(h, mc(1.0, 1.0, 0.01, 0.6), std::nullopt)},
      0.01, 8);
  const auto& o = r.outcomes;
  CHECK(o[0].verdict == Verdict::inconclusive);
  CHECK_THAT(o[0].reason, Catch::Matchers::Contains("no negative control"));
  CHECK(o[1].verdict == Verdict::erratum);
  CHECK_THAT(o[1].reason, Catch::Matchers::Contains("within the relevance"));
  CHECK(o[2].verdict == Verdict::inconclusive);
  CHECK_THAT(o[2].reason, Catch::Matchers::Contains("under-powered"));
  CHECK(o[3].verdict == Verdict::inconclusive);
  CHECK_THAT(o[3].reason, Catch::Matchers::Contains("cannot bound below"));
  CHECK(o[4].verdict == Verdict::fails);
  CHECK_THAT(o[4].reason, Catch::Matchers::Contains("both rejected"));
  CHECK(o[5].verdict == Verdict::inconclusive);
  CHECK(o[6].verdict == Verdict::fails);
  CHECK_THAT(o[6].reason, Catch::Matchers::Contains("deviation 0.1 >= relevance 0.1"));
  CHECK(o[7].verdict == Verdict::holds);
  CHECK(o[7].min_detectable == Approx(mdd).epsilon(1e-12));
  CHECK(o[7].printed_p_adj == 1.0);                          // 0.6 x 8 capped
  CHECK(o[6].printed_p_adj == Approx(8e-12).epsilon(1e-9));  // below the cap: p x family
  CHECK(o[1].exact_p_adj == Approx(8e-9).epsilon(1e-9));
  CHECK(o[0].exact_p_adj == 1.0);  // no exact form
  // The same printed rejection with the relevance raised past the deviation, confidently: holds, not fails.
  Outcome raised = with(g, mc(1.1, 1.0, 0.01, 1e-12), std::nullopt);
  raised.evidence.relevance = 0.1 + 1.01 * z * 0.01;
  CHECK(judge({raised}, 0.01, 8).outcomes[0].verdict == Verdict::holds);
}
