// Shared by the scaling claim files (claims_*.cpp): the checks the registry (claims.cpp) lists.
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

// Lemma 3.7: the routing term of the covering bound (claims_covering.cpp)
Evidence routing_overhead_claim(const CheckBudget& b, const RngKey& key);
Evidence active_parameters_claim(const CheckBudget& b, const RngKey& key);
// Sec. 5 and Theorem 4.3: compute-optimal allocation and the approximation rate (claims_scaling_laws.cpp)
Evidence compute_optimal_claim(const CheckBudget& b, const RngKey& key);
Evidence rate_claim(const CheckBudget& b, const RngKey& key);

// The brute-force grid over the loss of compute_optimal_claim (claims_scaling_laws.cpp): x = log N on G equally
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
// Shared by compute_optimal_claim and per_e_exponents_claim.
struct AllocationSweep {
  std::vector<GridOptimum> at;  // one per F
  std::int64_t cases = 0, outside = 0, swapped_cases = 0, swapped_outside = 0;
  double slope = 0.0, tol = 0.0;
};
AllocationSweep allocation_sweep(const LossModel& model, const std::vector<double>& flops, int G);

// The scaling paper's ERM generalization bound in an exactly computable routed class (claims_erm.cpp)
Evidence erm_fixed_routing_claim(const CheckBudget& b, const RngKey& key);
Evidence erm_routing_overhead_claim(const CheckBudget& b, const RngKey& key);
// Per-E exponents alpha_N(E) := mu(E), alpha_D(E) := nu(E) in the compute-optimal split (claims_per_e_exponents.cpp)
Evidence per_e_exponents_claim(const CheckBudget& b, const RngKey& key);

}  // namespace moelab::scaling::detail
