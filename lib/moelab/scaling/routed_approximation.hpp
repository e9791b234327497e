// A second computable instance of the approximation rate of Theorem 4.3 in the `scaling` paper (the
// authors' rebuttal in /work/shared/papers/scaling-laws-moe-transformers.review.txt: error
// O(E^(-beta/d)) in the number of experts E for C^beta targets), for smoothness beta != 1 and with a
// router, in d = 1, where the L2 error is a closed form (no quadrature).
//
// Target: the lacunary (Weierstrass-type) series f(x) = sum_{j=0}^{J-1} 2^(-j beta) cos(2 pi 2^j x + 0.7 j)
// on [0, 1], which is C^beta (Hoelder-Zygmund) for non-integer beta and no smoother (Zygmund 1959,
// Ch. II, 4.9). Router: top-1 linear gating x -> argmax_j (w_j x + b_j) (the routers of the paper's
// MoE layers, on a scalar input); with increasing slopes w_j every line wins exactly one interval, so
// the router partitions [0, 1] into E intervals, uniform or not. Experts: polynomials of degree q
// (0: constants, 1: affine), each fitted to f on its interval in L2 (the best such MoE for this router).
//
// L2 error, exactly: ||f - P f||^2 = ||f||^2 - ||P f||^2, ||f||^2 = sum_j 2^(-2 j beta) / 2 (distinct
// integer frequencies are orthogonal on [0, 1]); on a cell [a, b] of width h and midpoint m, with the
// Legendre basis {1, x - m} (norms h and h^3/12), ||P f||^2 = (int f)^2 / h + (int (x - m) f)^2 / (h^3/12)
// (the second term for q = 1 only), with int cos(w x + p) = [sin(w x + p)/w] and
// int (x - m) cos(w x + p) = [(x - m) sin(w x + p)/w + cos(w x + p)/w^2] between a and b.
// Theory (piecewise polynomial approximation, DeVore & Lorentz 1993, Ch. 7, and Thm 4.3): the error is
// Theta(E^(-beta)) when q + 1 >= beta (d = 1), and saturates at E^(-(q + 1)) when beta > q + 1.
#pragma once

#include <vector>

namespace moelab::scaling {

/// Top-1 linear router on a scalar input: expert j scores w[j] x + b[j].
struct LinearRouter1D {
  std::vector<double> w, b;
  /// The expert with the highest score at x (the first on ties).
  int route(double x) const;
};

/// The router whose cells on [0, 1] are [t_j, t_(j+1)] for 0 = t_0 < t_1 < ... < t_E = 1: slopes w_j = j
/// and b_(j+1) = b_j - t_(j+1) (lines j and j+1 cross at t_(j+1)). Throws unless t is increasing.
LinearRouter1D router_from_breakpoints(const std::vector<double>& t);
/// The cells the router gives on [0, 1] (0 = t_0 < ... < t_E = 1), from its crossing points; throws
/// when an expert wins no interval of [0, 1] (the construction above never does).
std::vector<double> router_cells(const LinearRouter1D& r);

/// Exact L2([0, 1]) error of the best MoE with experts of degree `degree` (0 or 1) on the router's
/// cells `t` for the target above with smoothness `beta` > 0 and `terms` = J terms.
double routed_lacunary_error(const std::vector<double>& t, double beta, int degree, int terms = 60);

}  // namespace moelab::scaling
