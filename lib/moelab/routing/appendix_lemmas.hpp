// Exact quantities behind the appendix lemmas of the granularity paper ("Granularity boosts MoE
// expressivity", Appendices A-C), used by the claims of the appendix families (claims_tail_bounds,
// claims_tubes, claims_projection, claims_distinct_values, claims_appendix_mc, claims_c10) and
// claims_covariance.cpp:
//   - Lemma 3.5 = B.10 and Lemma B.5: second moments of N(0, I_d/d) and Unif[B_d] conditioned on thin
//     cylinders U = {x : |sqrt(d) x_{1..j}| < rho} (the adversarial "thin regions": j directions of
//     small variance at the largest mass), and the sharp constant of Lemma B.10 for a given spectrum;
//   - Proposition A.2 (Laurent-Massart chi-square tails), Lemma A.4 (E exp(t|Z|)), Lemmas B.2 / B.3
//     (tube volumes), Lemmas C.4 / C.5 (distinct values among n uniform draws), Claims C.11 / C.12.
// Every function is an exact evaluation (special functions, quadrature or an exact recursion), not a
// Monte-Carlo estimate, so the claims built on them are deterministic checks over parameter grids.
#pragma once

#include <span>
#include <vector>

#include "moelab/routing/region_masses.hpp"

namespace moelab::routing {

// ---- Lemma 3.5 = B.10, Lemma B.5 ----

/// Conditional second moments of a thin cylinder U = {x : |sqrt(d) (x_1..x_j)| < rho}, scaled by d:
/// `thin` = d E[x_1^2 | U] (j times), `bulk` = d E[x_d^2 | U] (d - j times); U is symmetric, so
/// E[x | U] = 0 and these are also the eigenvalues of d Sigma_U.
///   Gaussian N(0, I/d): R^2 = |sqrt(d) x_{1..j}|^2 ~ chi^2_j, mass = P(chi^2_j < rho^2),
///     thin = P(chi^2_{j+2} < rho^2) / P(chi^2_j < rho^2) (E[R^2 1(R^2 < a)] = j P(chi^2_{j+2} < a)), bulk = 1.
///   Ball Unif[B_d]: u = |x_{1..j}|^2 ~ Beta(j/2, (d-j)/2 + 1) (the marginal density of x_{1..j} is
///     proportional to (1 - |s|^2)^((d-j)/2)); with a = rho^2/d: mass = I_a(j/2, b), thin = d E[u | u < a]/j,
///     bulk = d E[1 - u | u < a] / (d - j + 2) (given x_{1..j}, the rest is uniform in a (d-j)-ball).
struct CylinderMoments {
  double mass = 0.0;
  double thin = 0.0;
  double bulk = 0.0;
};
CylinderMoments thin_cylinder(InputLaw law, int d, int j, double rho);

/// The sharp constant of Lemma B.10 for a set U whose scaled second-moment matrix d E[x x' | U] has
/// eigenvalues `ascending`: the largest c with
///     E_{mu|U} |(A1 - A2) x|^2 >= (c/d) min_{rank M <= kappa} |A1 - A2 - M|_F^2   for every A1 - A2,
/// which is min_{r > kappa} (lambda_1 + ... + lambda_r) / (r - kappa) (the left side is
/// tr(D'D E[xx'|U]); over D the ratio is a linear-fractional program whose extreme points put equal
/// singular values on the r smallest eigendirections). +infinity when kappa >= d (the right side is 0).
double lemma_b10_sharp_constant(std::span<const double> ascending, int kappa);
/// The same for a two-level spectrum (n_low eigenvalues `low`, n_high eigenvalues `high`, low <= high):
/// the ratio is monotone between the breakpoints, so only r = kappa + 1, n_low, n_low + 1 and d are tried.
double lemma_b10_sharp_constant(int n_low, double low, int n_high, double high, int kappa);

// ---- Proposition A.2 (Laurent & Massart 2000, Eqs. 4.3-4.4) ----

/// P[chi^2_d <= z] and P[chi^2_d >= z] (Boost regularized incomplete gamma).
double chi2_lower_tail(double d, double z);
double chi2_upper_tail(double d, double z);

// ---- Lemma A.4 ----

/// E exp(t |Z|), Z ~ N(0, sigma^2), by adaptive Gauss-Kronrod quadrature of the half-normal density
/// (independent of the closed form 2 exp(t^2 sigma^2 / 2) Phi(t sigma)).
double abs_normal_mgf(double t, double sigma);

// ---- Lemmas B.2, B.3 ----

/// P_{x ~ N(0, I_d)}[x in p + [-t, t]^n x R^(d-n)] = prod_i (Phi(p_i + t) - Phi(p_i - t)).
double gaussian_tube_probability(std::span<const double> p, double t);
/// P_{x ~ Unif[B_d]}[x in p + [-t/sqrt(d), t/sqrt(d)]^n x R^(d-n)] for n = 1 or 2 (the marginal of
/// x_{1..n} has density proportional to (1 - |s|^2)^((d-n)/2) on B_n; Gauss-Kronrod quadrature).
double ball_tube_probability(int d, std::span<const double> p, double t);

// ---- Lemmas C.4, C.5 ----

/// The exact law of X_n = |{p_1, ..., p_n}| for p_i iid Unif[d]: out[x] = P[X_n = x], x = 0..min(n, d)
/// (the occupancy recursion P_{i+1}(x) = P_i(x) x/d + P_i(x-1) (d - x + 1)/d).
std::vector<double> distinct_count_law(int n, int d);

}  // namespace moelab::routing
