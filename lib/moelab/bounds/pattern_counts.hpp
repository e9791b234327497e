// Routing-pattern counts (compositional paper, Sec. 4.2, Eq. 13): how many distinct top-k mask
// patterns random linear routers realise on m fixed points — a Monte-Carlo lower estimate of the growth
// function of the mask class, set against the Natarajan bound (Lemma 6 / Eq. 13) for a stated d_N and
// against an exact upper bound from hyperplane arrangements.
//
// Setting: points x_1..x_m iid N(0, I_d) (fixed by the seed, stream StreamTag::routing_points,
// trial 0); routers W (T x d) iid N(0, 1) entries (StreamTag::routing_vectors, trial = router index);
// the mask of x is the set of the k largest scores (W x)_j (ties have probability 0). A pattern is the
// m-tuple (mask(x_1), ..., mask(x_m)). Routers are homogeneous (no bias), as the paper's router
// x -> top-k(W x) (Eq. 2).
//
// Upper bounds reported beside the count (all as natural logarithms):
//  - Eq. 13 / Lemma 6 with N = 1 and m points: d_N log m + 2 d_N log C(T, k), for the stated d_N;
//  - arrangements: a top-k mask is a function of the ordering of the T scores, and the ordering of all
//    points is the sign vector of the m C(T, 2) linear forms (w_a - w_b) . x_i on the parameter space of
//    W, whose differences span a space of dimension D = d (T - 1). An arrangement of n hyperplanes in
//    R^D has at most sum_{i <= D} C(n, i) cells (Zaslavsky / Buck 1943), so the pattern count is at most
//    sum_{i=0}^{D} C(m C(T, 2), i). This bound is proved; Eq. 13's d_N is an assumption (Assumption 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace moelab::bounds {

struct PatternCountParams {
  int m = 16;                    ///< points, >= 1
  int d = 2;                     ///< input dimension, >= 1
  int T = 4;                     ///< experts, 2 <= T <= 64
  int k = 1;                     ///< active experts, 1 <= k < T
  std::uint64_t routers = 10000; ///< random routers drawn, >= 1
  double d_N = 0.0;              ///< Natarajan dimension for the Eq. 13 bound; 0 means d T (the stated default)
};

struct PatternCount {
  std::uint64_t routers = 0;            ///< routers drawn
  std::uint64_t distinct_patterns = 0;  ///< distinct m-tuples of masks (a lower estimate of the growth function)
  std::uint64_t distinct_masks = 0;     ///< distinct single-point masks seen, <= C(T, k)
  double log_patterns = 0.0;            ///< log distinct_patterns
  double sample_limited = 0.0;          ///< distinct / routers: near 1, the estimate is limited by the sample
  double d_N = 0.0;                     ///< the Natarajan dimension used for log_eq13_bound
  double log_eq13_bound = 0.0;          ///< d_N log m + 2 d_N log C(T, k)
  double log_arrangement_bound = 0.0;   ///< log sum_{i <= d (T-1)} C(m C(T, 2), i)
  double log_all_patterns = 0.0;        ///< m log C(T, k): every tuple of masks
};

/// Draws the routers, counts distinct patterns exactly (128-bit fingerprints of the mask tuples, sorted;
/// a collision has probability < routers^2 / 2^128). Routers run in parallel; the result does not
/// depend on the thread count. Throws std::logic_error (MOELAB_EXPECT) on parameters outside their domain.
/// `routers_done(n)`, when given, is called (from any thread) after each block of n routers: progress.
/// The one implementation of the experiment: the study bounds.patterns and the claims
/// bounds.eq13.pattern_counts and scaling.lemma37.routing_overhead all call it.
PatternCount count_routing_patterns(const PatternCountParams& p, std::uint64_t seed,
                                    const std::function<void(std::size_t)>& routers_done = {});

/// log of the arrangement bound above: log sum_{i=0}^{d (T - 1)} C(m T (T - 1) / 2, i).
double log_arrangement_pattern_bound(double m, double d, double T);

}  // namespace moelab::bounds
