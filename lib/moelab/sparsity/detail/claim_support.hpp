// Shared by the sparsity claim files (claims_*.cpp): the families' registration functions (claims.cpp
// calls them). Internal: not installed.
#pragma once

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/sparsity/regime_checks.hpp"

namespace moelab::sparsity::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;
using claims::TestResult;

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_tradeoff_claims(claims::Registry& r);  // Remark 3, the interior optimum of Sec. 4.3.3
void register_regimes_claims(claims::Registry& r);   // regimes (a)-(d) of Sec. 4.3.3
void register_a5_claims(claims::Registry& r);        // App. A.5

}  // namespace moelab::sparsity::detail
