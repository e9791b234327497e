// Shared by the bounds claim files (claims_*.cpp): the checks the registry (claims.cpp) lists (named
// *_claim, apart from the maths' check_lemma* of lemma_checks.hpp) and the conversion of an
// InequalityCheck into a one-sided test. Internal: not installed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "moelab/bounds/lemma_checks.hpp"
#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"

namespace moelab::bounds::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::TestResult;

/// A Monte-Carlo (or exact per-trial) inequality lhs <= rhs as a one-sided test of H0 "the
/// inequality holds": estimate E lhs, reference the bound E rhs, standard error that of the paired
/// excess lhs - rhs (0 when exact: then p is 0 at a counterexample, 1 otherwise).
inline TestResult as_test(std::string form, const InequalityCheck& c) {
  TestResult t{std::move(form), c.lhs, c.excess_se, c.rhs, c.p_violation, static_cast<std::int64_t>(c.trials)};
  t.one_sided = true;
  return t;
}

// Lemma 5 and Lemma 10: Rademacher complexity of routed and convex classes (claims_routed_class.cpp)
Evidence lemma5_claim(const CheckBudget& b, const RngKey& key);
Evidence lemma10_claim(const CheckBudget& b, const RngKey& key);
// Lemmas 7-9: ghost sample, symmetrisation, contraction (claims_symmetrisation.cpp)
Evidence lemma7_claim(const CheckBudget& b, const RngKey& key);
Evidence lemma8_claim(const CheckBudget& b, const RngKey& key);
Evidence lemma9_claim(const CheckBudget& b, const RngKey& key);
// Lemma 11 and Eq. 16: bounded differences and McDiarmid (claims_mcdiarmid.cpp)
Evidence lemma11_claim(const CheckBudget& b, const RngKey& key);
Evidence eq16_claim(const CheckBudget& b, const RngKey& key);
// Lemma 6 and Eq. 13: growth functions and routing-pattern counts (claims_growth.cpp)
Evidence lemma6_claim(const CheckBudget& b, const RngKey& key);
Evidence pattern_counts_claim(const CheckBudget& b, const RngKey& key);
// Theorem 1: Eq. 17 vs 18, monotonicity (claims_theorem1.cpp)
Evidence eq17_eq18_claim(const CheckBudget& b, const RngKey& key);
Evidence theorem1_monotone_claim(const CheckBudget& b, const RngKey& key);
// Definition 2: Rademacher estimators, Massart (claims_rademacher.cpp)
Evidence rademacher_claim(const CheckBudget& b, const RngKey& key);

}  // namespace moelab::bounds::detail
