// Internal: what the routing claim files (claims_*.cpp) share: each family's check, and the
// one-sided test the evidence toolkit has only in the other direction. Not installed.
#pragma once

#include <string>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/stats.hpp"

namespace moelab::routing::detail {

using claims::lower_bound_test;  // H0: E X >= bound (the evidence toolkit)

inline double inv(double n) { return 1.0 / n; }

// One check per claim family (claims.cpp registers them with their ids and statements).
claims::Evidence check_region_masses(const claims::CheckBudget& b, const RngKey& key);        // claims_region_masses.cpp
claims::Evidence check_shift_bound(const claims::CheckBudget& b, const RngKey& key);          // claims_shift_bound.cpp
claims::Evidence check_expert_packing(const claims::CheckBudget& b, const RngKey& key);       // claims_packing.cpp
claims::Evidence check_counting(const claims::CheckBudget& b, const RngKey& key);             // claims_counting.cpp
claims::Evidence check_conditional_covariance(const claims::CheckBudget& b, const RngKey& key);  // claims_covariance.cpp
claims::Evidence check_separation(const claims::CheckBudget& b, const RngKey& key);           // claims_separation.cpp

}  // namespace moelab::routing::detail

namespace moelab::routing {
/// The appendix lemmas' claims (claims_appendix.cpp, claims_appendix_mc.cpp).
void register_appendix_claims(claims::Registry& r);

}  // namespace moelab::routing
