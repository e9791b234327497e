// Shared by the moe topic's claim files (claims_*.cpp): the families' registration functions
// (claims.cpp calls them). Internal: not installed.
#pragma once

#include "moelab/claims/claim.hpp"

namespace moelab::moe::detail {

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_granularity_claims(claims::Registry& r);  // granularity paper, Thm 3.1 / Fig. 2 on trained students
void register_noisy_b3_claims(claims::Registry& r);     // noisy paper, App. B.3 (trained linear and ReLU models)
void register_moefication_claims(claims::Registry& r);  // noisy paper, Sec. 5 (MoEfication) on a synthetic network

}  // namespace moelab::moe::detail
