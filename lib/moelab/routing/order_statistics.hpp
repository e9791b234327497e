// Gaussian order statistics behind the routing lemmas of the granularity paper, by one-dimensional
// quadrature (Boost adaptive Gauss-Kronrod), and the closed forms built on them:
//   * Lemma A.3: f(delta) = P[X_i > X_j, i in [k], j not in [k]] with X_1..X_k ~ N(delta, 1) and
//     X_{k+1}..X_m ~ N(0, 1), exactly, and the printed bound exp(delta k sqrt(2 log m)) / C(m, k);
//   * Lemma A.5: the second moment E mu(U_S)^2 of a region mass, through its Mehler expansion
//     (docs/routing.md, "second moment"): C^2 E mu(U_S)^2 = 1 + c2(m, k) / d + O(d^-2) and
//     C^2 E mu(U_S)^2 >= 1 + c2(m, k) / d for every d (all terms of the expansion are >= 0).
#pragma once

namespace moelab::routing {

/// Moments of the top k of m iid N(0, 1) (order statistics Z_(1) >= ... >= Z_(m)).
struct TopKMoments {
  double sum_mean = 0.0;         // s_k = E[Z_(1) + ... + Z_(k)]
  double square_sum_mean = 0.0;  // q = E[Z_(1)^2 + ... + Z_(k)^2]
  double sum_second = 0.0;       // v2 = E[(Z_(1) + ... + Z_(k))^2]
};
/// 1 <= k <= m. s_k = m int z phi(z) P[Bin(m-1, Phibar(z)) <= k-1] dz (z is among the top k iff at
/// most k-1 of the others exceed it); q likewise with z^2; v2 = q + 2 m (m-1) int w phi(w)^2
/// P[Bin(m-2, Phibar(w)) <= k-2] dw (a pair is in the top k iff at most k-2 others exceed the
/// smaller of the two, whose partner integrates to int_w^inf z phi(z) dz = phi(w)).
TopKMoments top_k_moments(int m, int k);

/// E[max of m iid N(0, 1)] <= sqrt(2 log m): the maximal inequality used in Lemma A.3, step (c).
double maximal_inequality_bound(int m);

/// Lemma A.3, exact: f(delta) = int (1 - Phi(t - delta))^k d[Phi(t)^(m-k)] (the k shifted variables
/// all exceed the maximum of the m - k others). f(0) = 1 / C(m, k).
double top_set_probability(int m, int k, double delta);
/// Lemma A.3 as printed: f(delta) <= exp(delta k sqrt(2 log m)) / C(m, k).
double lemma_a3_bound_printed(int m, int k, double delta);
/// The same Gronwall argument with the exact rate s_k = E[sum of the top k] in place of its bound
/// k sqrt(2 log m): f(delta) <= exp(delta s_k) / C(m, k) (d log f / d delta <= s_k: Lemma A.3's proof).
double lemma_a3_bound_sharp(int m, int k, double delta);

/// Coefficients of C * P[top-k(a) = top-k(b)] = 1 + c1 rho + c2 rho^2 + O(rho^3), (a_j, b_j) iid
/// standard bivariate normal pairs with correlation rho (Mehler's formula, docs/routing.md).
struct SecondMomentExpansion {
  double c1 = 0.0;
  double c2 = 0.0;
};
SecondMomentExpansion second_moment_expansion(int m, int k);
/// C^2 E mu(U_S)^2 = 1 + c2 / d to first order in 1/d (E rho = 0, E rho^2 = 1/d for the cosine of two
/// independent uniform directions in R^d), a rigorous lower bound for every d.
/// Smallest d at which that lower bound allows Lemma A.5's 3 / C^2, i.e. ceil(c2 / 2): a
/// necessary condition for the lemma's conclusion (Lemma A.5 states d >= C k (log m)^2 suffices).
double lemma_a5_necessary_dimension(int m, int k);

}  // namespace moelab::routing
