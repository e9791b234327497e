// Shared by the bounds claim files (claims_*.cpp): the families' registration functions (claims.cpp
// calls them) and the conversion of an InequalityCheck into a one-sided test. Internal: not installed.
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

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order (the paper's App. B order).
void register_routed_class_claims(claims::Registry& r);         // Lemma 5
void register_growth_claims(claims::Registry& r);               // Lemma 6
void register_symmetrisation_claims(claims::Registry& r);       // Lemmas 7-9
void register_convex_hull_claims(claims::Registry& r);          // Lemma 10
void register_bounded_differences_claims(claims::Registry& r);  // Lemma 11
void register_union_claims(claims::Registry& r);                // Eq. 9-12
void register_mcdiarmid_claims(claims::Registry& r);            // Eq. 16
void register_pattern_counts_claims(claims::Registry& r);       // Eq. 13
void register_theorem1_claims(claims::Registry& r);             // Theorem 1: Eq. 17-18, monotonicity
void register_rademacher_claims(claims::Registry& r);           // Definition 2

}  // namespace moelab::bounds::detail
