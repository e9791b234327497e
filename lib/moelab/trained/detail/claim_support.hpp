// Shared by the trained topic's claim files (claims_*.cpp): the check functions claims.cpp
// registers, and the one-sided test the moe topic also uses (H0: E X >= bound).
#pragma once

#include <string>
#include <utility>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::trained::detail {

using claims::CheckBudget;
using claims::Evidence;
using claims::TestResult;

using claims::lower_bound_test;  // H0: E X >= bound (the evidence toolkit)

Evidence gap_vs_bound(const CheckBudget& b, const RngKey& key);       // claims_gap.cpp
Evidence gap_growth_in_k(const CheckBudget& b, const RngKey& key);    // claims_gap.cpp
Evidence gap_growth_in_T(const CheckBudget& b, const RngKey& key);    // claims_gap.cpp
Evidence kstar_grows_with_M(const CheckBudget& b, const RngKey& key); // claims_kstar.cpp
Evidence inference_k_helps(const CheckBudget& b, const RngKey& key);  // claims_inference_k.cpp
Evidence scaling_active_rate(const CheckBudget& b, const RngKey& key);// claims_scaling.cpp
/// Registers trained.scaling.gap_below_bound, gap_rate, gap_experts (claims_scaling.cpp).
void register_scaling_gap_claims(claims::Registry& r);

}  // namespace moelab::trained::detail
