// Eqs. 8-12 of the compositional paper (arXiv 2410.13964, App. B, proof of Theorem 1) checked by
// simulation: the union bound over the Gamma masks realised on the double sample (Eq. 9-11) and the
// split of |L_S - L_S'| into two signs (Eq. 12). docs/bounds.md, findings 3 and 6.
//
// Setting: a finite domain {0, ..., n-1} with point probabilities p; a routed class with top-1 masks
// (k = 1): router r sends x to expert routers(r, x) in [0, T); each expert j picks h_j from a finite
// class H whose losses l(h(x), y(x)) (labels folded in) are the K x n matrix `losses`, values in [0, 1].
// f = (r, h_0, ..., h_{T-1}), f(x) = h_{r(x)}(x). For a fixed router, L_S(f) - L_S'(f) separates
// over experts, so sup_h (L_S - L_S') = sum_j max_h D_j(h) is exact without enumerating H^T.
//
// Swap conditioning (the standard repair of Eq. 10: Vapnik & Chervonenkis 1971; Devroye, Gyorfi & Lugosi
// 1996, Ch. 12): a pooled sample z of 2m iid points; swap sigma in {+1, -1}^m exchanges
// z_i and z_{m+i} where sigma_i = -1; (S, S') = sigma(z) has the law of two iid samples for every sigma,
// so P(E) = E_z [2^-m #{sigma : E holds at sigma(z)}]. All 2^m swaps are enumerated (Gray code),
// the pooled samples are Monte-Carlo (trial t draws z from RandomStream(seed, kBoundsStreamTag, t),
// uniforms [0, 2m)). The masks realised on z do not move under a swap, which is what makes the union
// bound over them valid; with the mask fixed in advance and (S, S') fresh (the reading the paper's
// Eq. 14-16 use for "P(. | mu = mu_t)") the union bound over Gamma masks can undercount.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "moelab/bounds/lemma_checks.hpp"

namespace moelab::bounds {

/// A routed class with top-1 masks on {0, ..., n-1}: R x n `routers` (expert index per point, in
/// [0, T)), K x n `losses` of the expert class (values in [0, 1]).
struct RoutedClass {
  Eigen::MatrixXi routers;
  Eigen::MatrixXd losses;
  int T = 2;
};

/// Threshold routers r_theta(x) = 1[x >= theta], theta = 0..n (n + 1 routers, T = 2); growth on 2m
/// points: min(2m, n) + 1.
Eigen::MatrixXi threshold_routers(int n);
/// Point routers r_c(x) = 1[x = c], c = 0..n-1 (n routers, T = 2; VC dimension 1, like thresholds);
/// growth on 2m points: min(2m + 1, n) (the 2m singletons of the pool and the empty pattern).
Eigen::MatrixXi point_routers(int n);
/// Losses of the constant experts {0, 1} with labels y = 0 and l = |f - y|: rows (0...0), (1...1).
Eigen::MatrixXd constant_expert_losses(int n);
/// Growth functions of the two router classes on 2m points (max over pools of distinct patterns).
int threshold_router_growth(int n, int m);
int point_router_growth(int n, int m);

/// The swap counts of one pooled sample z (size 2m; S = z[0, m), S' = z[m, 2m)) at threshold t
/// (= eps / 2): over the 2^m swaps, how many give sup_h |D| >= t, sup_h D >= t, sup_h (-D) >= t,
/// D = L_S - L_S', for each distinct pattern (restriction of a router to the 2m points) and for the
/// class (sup over routers). Comparisons at m t - 1e-9 on the unnormalised sums (sums of at most 2m
/// losses in [0, 1], Gray-code updates round at < 1e-12; ties at the threshold count as reached).
struct SwapCounts {
  std::uint64_t swaps = 0;              ///< 2^m
  std::vector<int> pattern_of_router;   ///< R: index of the router's pattern on z
  std::vector<std::uint64_t> abs, plus, minus;  ///< per pattern
  std::uint64_t class_abs = 0, class_plus = 0, class_minus = 0;
  int patterns() const { return static_cast<int>(abs.size()); }
};
SwapCounts swap_counts(const RoutedClass& c, std::span<const int> pool, double t);

/// Exact probabilities by enumeration of every pooled sample (n^{2m} of them, weighted by p) with all
/// swaps: the class's P(sup |D| >= t), P(sup D >= t), P(sup (-D) >= t) and the same with each router's
/// mask fixed in advance. For tests and tiny cases (n^{2m} <= 10^7).
struct UnionProbabilities {
  double class_abs = 0, class_plus = 0, class_minus = 0;
  std::vector<double> router_abs, router_plus, router_minus;
};
UnionProbabilities exact_union_probabilities(const Eigen::VectorXd& p, const RoutedClass& c, int m, double t);

/// Monte-Carlo over pooled samples, all swaps exact per pool. `growth` is Gamma = the growth function
/// of the router class on 2m points (the number of masks the paper's Eq. 9 unions over).
struct UnionBoundCheck {
  std::uint64_t pools = 0, swaps = 0;
  int growth = 0;
  int max_patterns = 0;  ///< most distinct patterns seen on one pool (<= growth)
  // P over fresh (S, S'): the class (sup over routers), and each router's mask fixed in advance.
  double class_abs = 0, class_plus = 0, class_minus = 0;
  std::vector<double> router_abs, router_plus;
  double max_router_abs = 0, max_router_plus = 0;
  double mean_router_plus = 0;  ///< average over the routers (all equal by symmetry for point routers, uniform p)

  // Eq. 12 (two signs), exact per pool for every pattern and for the class (counts of swaps):
  std::int64_t sign_cases = 0;           ///< (pool, pattern or class) pairs checked
  std::int64_t sign_violations = 0;      ///< #abs > 2 #plus
  std::int64_t sign_asymmetric = 0;      ///< #plus != #minus (exchangeability says never)
  std::int64_t factor1_violations = 0;   ///< #abs > #plus (the factor 1 instead of 2)
  double worst_sign_excess = 0;          ///< max(0, largest (#abs - 2 #plus) / 2^m)
  double worst_factor1_excess = 0;       ///< max(0, largest (#abs - #plus) / 2^m)
  double largest_fixed_ratio = 0;        ///< max over routers of P_abs / P_plus (fixed mask, mean over pools)

  // Eq. 9-12 as printed: P_class(|D| >= t) <= Gamma max_r P_r(|D| >= t) (Eq. 11) and
  // <= 2 Gamma max_r P_r(D >= t) (Eq. 12), P_r with router r's mask fixed in advance and (S, S') fresh.
  // Paired per pool; intersection-union test over the routers (p = the largest per-router p).
  InequalityCheck eq11_fixed_mask;
  InequalityCheck eq12_fixed_mask;
  // Repaired (swap-conditioned), exact per pool: P_swap(class) <= sum over the patterns on z of
  // P_swap(pattern), and <= 2 Gamma max_q P_swap(q, D >= t); each reported as the largest excess
  // over the pools (lhs) against 0.
  InequalityCheck repaired_union;
  InequalityCheck repaired;
  double repaired_bound = 0;  ///< mean over pools of 2 Gamma max_q P_swap(q, D >= t)
  // The repaired Eq. 11 without the union factor (Gamma -> 1): mean over pools of
  // P_swap(class, |D| >= t) - max_q P_swap(q, |D| >= t) <= 0 (paired t test).
  InequalityCheck no_union;
};
UnionBoundCheck check_union_bound(const Eigen::VectorXd& p, const RoutedClass& c, int growth, int m, double t,
                                  std::uint64_t pools, std::uint64_t seed);

}  // namespace moelab::bounds
