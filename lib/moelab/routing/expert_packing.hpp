// Random constant experts (granularity paper, Lemma 3.3 = Lemma A.8): u_1..u_m iid N(0, I_d / (2 d k))
// in R^d, sums u_S = sum_{j in S} u_j over k-subsets S. The lemma: for d >= C k log m, with high
// probability
//   boundedness  ||u_S||^2 <= 1                           for every S, and
//   separation   ||u_S - u_S'||^2 >= |S delta S'| / (4 k)  for every pair S, S'.
// Its proof: u_S ~ N(0, I_d / (2d)) and u_S - u_S' ~ N(0, |S delta S'| I_d / (2 d k)), so
// P[||u_S||^2 > 1] = P[chi2_d > 2d] <= exp(-d/8) and P[separation fails for a pair] =
// P[chi2_d < d/2] <= exp(-d/16) (Laurent & Massart 2000, Eqs. 4.3-4.4), and a union bound over
// C(m, k) sets and C(m, k)^2 pairs.
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace moelab::routing {

/// m x d: row j is u_j, entries N(0, 1 / (2 d k)); normals of RandomStream(seed, routing_experts, draw)
/// in the layout of gaussian_routing_vectors.
Eigen::MatrixXd random_constant_experts(int m, int d, int k, std::uint64_t seed, std::uint64_t draw);

/// Both conditions checked over every S and every pair (S, S') with S != S', exhaustively, from the
/// Gram matrix G = U U' (||u_S - u_S'||^2 = q_S + q_S' - 2 1_S' G 1_S, O(k) per pair).
struct PackingCheck {
  double max_norm2 = 0.0;        // max_S ||u_S||^2 (boundedness holds iff <= 1)
  double min_separation = 0.0;   // min_{S != S'} ||u_S - u_S'||^2 * 4k / |S delta S'| (holds iff >= 1)
  double min_distance2 = 0.0;    // min_{S != S'} ||u_S - u_S'||^2 (the delta of the separation floor)
  std::uint64_t pairs = 0;       // unordered pairs checked
  std::uint64_t worst_s = 0, worst_t = 0;  // ranks of the pair attaining min_separation
  bool bounded() const { return max_norm2 <= 1.0; }
  bool separated() const { return min_separation >= 1.0; }
};
/// `max_pairs` caps the work: C(m, k)(C(m, k) - 1)/2 must not exceed it (MOELAB_EXPECT).
PackingCheck check_packing(const Eigen::MatrixXd& U, int k, std::uint64_t max_pairs = 200'000'000);

/// One trial of Lemma A.8 (the study routing.packing and the claim routing.lemma33.packing):
/// U = random_constant_experts(m, d, k, seed, draw), checked exhaustively.
PackingCheck packing_trial(int m, int d, int k, std::uint64_t seed, std::uint64_t draw,
                           std::uint64_t max_pairs = 200'000'000);

/// The per-event laws of the proof, measured on one U: the fraction of unordered pairs S != S' with
/// ||u_S - u_S'||^2 < |S delta S'| / (4k) (mean P[chi2_d < d/2]) and the fraction of sets S with
/// ||u_S||^2 > 1 (mean P[chi2_d > 2d]).
struct PackingEventFractions {
  double unseparated_pairs = 0.0;
  double unbounded_sets = 0.0;
};
PackingEventFractions packing_event_fractions(const Eigen::MatrixXd& U, int k);

/// Exact per-event probabilities of the proof: P[chi2_d > 2d] (one S unbounded) and P[chi2_d < d/2]
/// (one pair not separated), and their printed Laurent-Massart bounds exp(-d/8), exp(-d/16).
double packing_unbounded_probability(int d);
double packing_unseparated_probability(int d);
/// Union bounds on P[some condition fails]: exact per-event probabilities times C(m, k) and the
/// number of unordered pairs C(m, k)(C(m, k) - 1)/2; `printed` uses exp(-d/8), exp(-d/16) and the
/// paper's count C(m, k)^2 of pairs. Capped at 1.
double packing_failure_union_bound(int m, int k, int d, bool printed);
/// Smallest d at which the union bound is <= eta (a sufficient dimension for P[both hold] >= 1 - eta).
int packing_sufficient_dimension(int m, int k, double eta, bool printed);

}  // namespace moelab::routing
