// Approximation rates and compute-optimal allocation of the `scaling` paper ("Generalization and Scaling
// Laws for Mixture-of-Experts Transformers", arXiv:2604.09175), as stated in
// /work/shared/papers/scaling-laws-moe-transformers.review.txt.
//
// Approximation (Theorem 4.3 as the authors' rebuttal states it): under a d-dimensional manifold model and
// C^beta targets, the approximation error decays as O(N^(-beta/d)) in the active parameter count N and as
// O(E^(-beta/d)) in the number of experts E. moelab evaluates C N^(-beta/d) and C E^(-beta/d).
//
// Compute-optimal allocation (Sec. 5 / appendix, training-FLOPs proxy F = 6 N_act D). The review's text is
// cut off before the loss model; it says the paper reads per-E exponents alpha_N(E) := mu(E),
// alpha_D(E) := nu(E) from a fitted scaling law. moelab therefore implements the standard separable form
//   L(N, D) = E0 + A N^(-alpha_N) + B D^(-alpha_D)            (Hoffmann et al. 2022, Eq. 2 form)
// with N = N_act, and its exact optimum under F = c N D (c = 6):
//   N_opt(F) = G (F/c)^(alpha_D/(alpha_N+alpha_D)),  D_opt(F) = G^(-1) (F/c)^(alpha_N/(alpha_N+alpha_D)),
//   G = (alpha_N A / (alpha_D B))^(1/(alpha_N+alpha_D))            (Hoffmann et al. 2022, Eq. 4).
// This is an assumption about the paper's loss model, stated as such in docs/sparsity.md.
#pragma once

#include <span>
#include <vector>

namespace moelab::scaling {

/// C N^(-beta/d): approximation rate in the active parameter count (N >= 1, beta > 0, d >= 1, C > 0).
double approximation_rate_active(double N_active, double beta, double d, double C = 1.0);
/// C E^(-beta/d): approximation rate in the number of experts (E >= 1).
double approximation_rate_experts(double E, double beta, double d, double C = 1.0);

/// L(N, D) = E0 + A N^(-alpha_N) + B D^(-alpha_D); A, B, alpha_N, alpha_D > 0, E0 >= 0.
struct LossModel {
  double E0 = 0.0;
  double A = 1.0;
  double alpha_N = 0.5;
  double B = 1.0;
  double alpha_D = 0.5;
};
void validate(const LossModel& model);
double loss(const LossModel& model, double N_active, double D);

/// One point of the compute-optimal curve.
struct ComputeOptimalPoint {
  double F = 0.0;       ///< training FLOPs
  double N_opt = 0.0;   ///< active parameters
  double D_opt = 0.0;   ///< tokens, F / (c N_opt)
  double loss = 0.0;    ///< L(N_opt, D_opt)
};
/// The closed form of the file comment. `flops_per_param_token` is c in F = c N D (6 by default).
ComputeOptimalPoint compute_optimal(const LossModel& model, double F, double flops_per_param_token = 6.0);
/// The same optimum found without the closed form: Brent minimisation of L(N, F/(c N)) over x = log N in
/// [0, log(F/c)] (N >= 1 and D >= 1; the objective A e^(-alpha_N x) + B (c/F)^alpha_D e^(alpha_D x) is
/// convex in x, so unimodal); accuracy ~ sqrt(eps) in x, i.e. ~1e-8 relative in N. Requires F > c.
ComputeOptimalPoint compute_optimal_numeric(const LossModel& model, double F, double flops_per_param_token = 6.0);
/// Exponents a = alpha_D/(alpha_N + alpha_D), b = alpha_N/(alpha_N + alpha_D): N_opt ~ F^a, D_opt ~ F^b.
struct AllocationExponents {
  double a = 0.0, b = 0.0;
};
AllocationExponents allocation_exponents(const LossModel& model);
/// compute_optimal at each F (closed form).
std::vector<ComputeOptimalPoint> compute_optimal_curve(const LossModel& model, std::span<const double> F,
                                                       double flops_per_param_token = 6.0);
/// compute_optimal_numeric at each F.
std::vector<ComputeOptimalPoint> compute_optimal_curve_numeric(const LossModel& model, std::span<const double> F,
                                                               double flops_per_param_token = 6.0);

}  // namespace moelab::scaling

namespace moelab::scaling {

/// A worked instance of the approximation rate E^(-beta/d) (scaling paper, Theorem 4.3) that can be
/// computed exactly enough to test the exponent: E = n^d constant experts, one per cell of the uniform
/// partition of [0, 1]^d (the router), approximating the smooth target f(x) = prod_i sin(2 pi x_i + i)
/// (beta = 1 is the most a constant per cell can reach for a C^1 target). Returns the L2([0,1]^d) error
/// of the best such MoE (the cell means), computed with an s^d midpoint sub-grid per cell (s = `sub`):
/// the cell mean and the error are midpoint-rule sums, accurate to O(1/(n s))^2 relative.
double partition_approximation_error(int n, int d, int sub = 8);

}  // namespace moelab::scaling
