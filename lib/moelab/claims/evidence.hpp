// Building blocks for claim checks: turn Monte-Carlo summaries into TestResults.
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
/// z test of an estimate with known standard error against a reference (two-sided).
TestResult z_equality_test(std::string form, double estimate, double std_error, double reference,
                           std::int64_t samples);
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

}  // namespace moelab::claims
