// Shared by the trained topic's claim files (claims_*.cpp): the families' registration functions
// (claims.cpp calls them) and the one-sided test of the evidence toolkit (H0: E X >= bound).
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

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_gap_claims(claims::Registry& r);          // Theorem 1 against the generalization gap
void register_kstar_claims(claims::Registry& r);        // k* on a compositional task (SRAVEN)
void register_inference_k_claims(claims::Registry& r);  // experts per token at inference
void register_scaling_claims(claims::Registry& r);      // the scaling paper: rate in N_act, gap vs bound

}  // namespace moelab::trained::detail
