// Shared by the scaling claim files (claims_*.cpp): the checks the registry (claims.cpp) lists.
// Internal: not installed.
#pragma once

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"

namespace moelab::scaling::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;

// Lemma 3.7: the routing term of the covering bound (claims_covering.cpp)
Evidence routing_overhead_claim(const CheckBudget& b, const RngKey& key);
Evidence active_parameters_claim(const CheckBudget& b, const RngKey& key);
// Sec. 5 and Theorem 4.3: compute-optimal allocation and the approximation rate (claims_scaling_laws.cpp)
Evidence compute_optimal_claim(const CheckBudget& b, const RngKey& key);
Evidence rate_claim(const CheckBudget& b, const RngKey& key);

}  // namespace moelab::scaling::detail
