// Shared by the sparsity claim files (claims_*.cpp): the checks the registry (claims.cpp) lists.
// Internal: not installed.
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

// Regimes (a)-(d) of Sec. 4.3.3 (claims_regimes.cpp)
Evidence regime_claim(Regime regime);
Evidence regime_d_claim(const CheckBudget& b, const RngKey& key);
// The trade-off itself: interior optimum, Remark 3, App. A.5 (claims_tradeoff.cpp)
Evidence interior_claim(const CheckBudget& b, const RngKey& key);
Evidence remark3_claim(const CheckBudget& b, const RngKey& key);
Evidence a5_claim(const CheckBudget& b, const RngKey& key);

}  // namespace moelab::sparsity::detail
