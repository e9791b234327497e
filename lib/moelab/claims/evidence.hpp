// The evidence toolkit: one policy for turning Monte-Carlo summaries and exact checks into tests,
// controls and power statements (DESIGN.md, "Verdicts must be statistically honest").
//   equality            equality_test / z_equality_test, or equality_evidence (test + control + power)
//   one-sided           upper_bound_test (H0: E X <= bound), lower_bound_test (H0: E X >= bound),
//                       upper_bound_evidence
//   asymptotic          intercept_test with an explicit FiniteSizeModel, extrapolation_evidence
//   exhaustive          exhaustive_test (every case enumerated; p = 0 on a counterexample)
//   deterministic       deterministic_test
//   several sub-tests   combine_bonferroni (one form rejected when any of its sub-tests is)
//   controls            Evidence::control(...): every control must be rejected (the judge checks all)
//   power               min_detectable(test, level): the smallest deviation of the reference the
//                       test detects with power 0.9 at `level`; the judge compares it with
//                       Evidence::relevance and says `inconclusive` when the budget is too small.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::claims {

/// Two-sided test of E[X] = reference from a Welford summary (Student t, n - 1 dof).
TestResult equality_test(std::string form, const Welford& w, double reference);
/// One-sided test of H0: E[X] <= bound (rejected when the mean is significantly above the bound).
TestResult upper_bound_test(std::string form, const Welford& w, double bound);
/// One-sided test of H0: E[X] >= bound (rejected when the mean is significantly below the bound):
/// the t test of upper_bound_test on -X, reported with X's mean and the bound (Student t, n - 1 dof).
TestResult lower_bound_test(std::string form, const Welford& w, double bound);
/// z test of an estimate with known standard error against a reference (two-sided).
TestResult z_equality_test(std::string form, double estimate, double std_error, double reference,
                           std::int64_t samples);
/// One-sided z test of H0: estimate <= bound, with a known standard error.
TestResult z_upper_bound_test(std::string form, double estimate, double std_error, double bound, std::int64_t samples);
/// An exhaustive check over `cases` enumerated cases of which `violations` break the statement:
/// p = 0 on any counterexample, 1 otherwise; no sampling error, so its power is exact.
TestResult exhaustive_test(std::string form, std::int64_t cases, std::int64_t violations);
/// A deterministic check (no sampling): p = 0 when `holds` is false, 1 otherwise.
TestResult deterministic_test(std::string form, double estimate, double reference, bool holds);
/// Bonferroni combination of several tests of one form: the smallest p times the count (capped at
/// 1), reporting the most significant sub-test's numbers.
TestResult combine_bonferroni(std::string form, std::span<const TestResult> tests);

}  // namespace moelab::claims

namespace moelab::claims {

/// Asymptotic test: fits mean(n) = L + sum_j a_j f_j(n) by weighted least squares (weights 1/SE^2
/// of each point's mean) and z-tests the intercept L against `limit`.
struct SizeSeries {
  std::vector<double> n;
  std::vector<Welford> value;
};
TestResult intercept_test(std::string form, const SizeSeries& s, const std::vector<double (*)(double)>& corrections,
                          double limit);

/// An explicit finite-size model for an asymptotic claim: mean(n) = L + sum_j a_j f_j(n).
struct FiniteSizeModel {
  std::string text;                          // e.g. "L + a/n + b/n^2"
  std::vector<double (*)(double)> corrections;
};

// ---- power ----

/// Power at which a claim's budget is judged (the probability of rejecting an alternative at the
/// stated relevance).
inline constexpr double kPower = 0.9;
/// The smallest |deviation| of the reference that `t` detects with power kPower at level `level`
/// (two-sided unless t.one_sided): (z_(1 - level/2) + z_power) * std_error, with Student-t
/// quantiles at t.dof degrees of freedom for t tests; 0 for exact checks. A Bonferroni combination
/// (t.bonferroni = B sub-tests) is judged at level / B, the level its sub-tests are rejected at.
double min_detectable(const TestResult& t, double level);
/// The half-width of the confidence interval of `t`'s deviation at `level` (two-sided unless
/// t.one_sided; Student t at t.dof, else normal; a Bonferroni combination at level / B): the judge
/// calls a rejected deviation "within the relevance" when |estimate - reference| plus this radius is
/// at most the relevance. 0 for exact checks.
double confidence_radius(const TestResult& t, double level);
/// The relevance of a Bonferroni-combined printed test (combine_bonferroni reports the numbers of
/// its most significant part) when part i must detect a deviation of relevance[i] of its own
/// reference: the weakest part's relevance in units of its own standard error, times the reported
/// standard error. Then min_detectable(combined) <= result iff every part detects its own relevance
/// at level / B (min_detectable applies the Bonferroni factor), whichever part happens to be reported, so the power
/// statement does not switch with the sample. Exact parts (std_error 0) detect any deviation.
double combined_relevance(const TestResult& combined, std::span<const TestResult> parts,
                          std::span<const double> relevance);
/// The relevance of `e` (Evidence::relevance, or the smallest distance to the printed reference of
/// a control that tests the same estimate); NaN when neither is there.
double resolved_relevance(const Evidence& e);

// ---- whole evidence in one call: a test, a control at the smallest deviation that matters, and
// the power statement ----

/// Equality E[X] = reference; control: reference * (1 + rel) (the closed form off by `rel`).
Evidence equality_evidence(std::string form, const Welford& w, double reference, double rel);
/// Asymptotic: extrapolated intercept = limit; control: limit * (1 + rel).
Evidence extrapolation_evidence(std::string form, const SizeSeries& s, const FiniteSizeModel& model, double limit,
                                double rel);

}  // namespace moelab::claims
