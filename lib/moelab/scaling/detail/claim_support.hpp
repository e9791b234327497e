// Shared by the scaling claim files (claims_*.cpp): the families' registration functions (claims.cpp
// calls them) and the compute-optimal grid both claims_scaling_laws and claims_per_e_exponents use.
// Internal: not installed.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/scaling/scaling_laws.hpp"

namespace moelab::scaling::detail {

using claims::CheckBudget;
using claims::ClaimKind;
using claims::Evidence;

// One registration function per claim family (claims_<family>.cpp: its checks and their r.add
// entries); claims.cpp calls them in the suite's order.
void register_covering_claims(claims::Registry& r);         // Lemma 3.7: the terms of the covering bound
void register_scaling_laws_claims(claims::Registry& r);     // Theorem 4.3's rate, Sec. 5's compute-optimal split
void register_erm_claims(claims::Registry& r);              // the ERM generalization bound in a routed class
void register_per_e_exponents_claims(claims::Registry& r);  // per-E exponents in the compute-optimal split

// The brute-force grid over the loss of check_compute_optimal (claims_scaling_laws.cpp): x = log N on G equally
// spaced points of [0, log(F/6)], L(N, F/(6N)) at each; the minimiser of the (convex in x) objective lies in
// [x_lo, x_hi], the bracket around the grid argmin x_star (step h).
struct GridOptimum {
  double x_lo, x_hi;  // the bracket around the grid argmin (log N)
  double x_star;      // the grid argmin
  double h;           // grid step
};
GridOptimum grid_optimum(const LossModel& model, double F, int G);

// One loss model over the budgets `flops`: the grid optimum at each F, the closed form inside its bracket or not,
// the control with the N and D exponents swapped (with A, B; only when they differ), and the slope of the grid
// minimisers between the extreme budgets with its tolerance (each argmin within one step of the minimiser).
// Shared by check_compute_optimal and check_per_e_exponents.
struct AllocationSweep {
  std::vector<GridOptimum> at;  // one per F
  std::int64_t cases = 0, outside = 0, swapped_cases = 0, swapped_outside = 0;
  double slope = 0.0, tol = 0.0;
};
AllocationSweep allocation_sweep(const LossModel& model, const std::vector<double>& flops, int G);

}  // namespace moelab::scaling::detail
