// The linear pieces of the granularity paper's separations for linear and ReLU experts (Theorems 3.4
// and 3.6): the random expert constructions of Lemma B.9 and Lemma C.6, the quantities their
// properties (B.2)-(B.3) and (C.4)-(C.5) bound, and the general-routing linear students of
// Definition B.12 that Lemma B.13 compares the teacher (B.7) with.
//
//   Lemma B.9 (proof, line ~1015 of papers/granularity-expressivity.txt): A_i, B_i ~ N(0,1)^(d x w)
//     iid, M_i = A_i B_i', normalised at the end of the proof by sqrt(2 k w d) ("after normalizing by
//     a factor of sqrt(2kwd)"), so M_i = A_i B_i' / sqrt(2 k w d) has rank <= w.
//   Lemma C.6 (proof, line ~1495): w' = floor(w/2) coordinates p_ij ~ Unif[d] (j <= w'),
//     M_i = sum_j e_{p_ij} e_{p_ij}', scaled at the end by sqrt(d / (k w)) (rank <= w/2, diagonal).
// Both are stored factored, M_i = scale A_i B_i' (for C.6, A_i = B_i = [e_{p_i1} .. e_{p_iw'}]), so a
// difference of a few experts keeps its low rank and its singular values cost O(n^3), n the summed
// width, instead of O(d^3).
//
// Eckart-Young-Mirsky: min_{rank U <= r} |D - U|_F^2 = sum_{i > r} sigma_i^2(D). For D = A B'
// (A, B d x n, n <= d) the nonzero sigma_i^2 are the eigenvalues of L' (B'B) L with A'A = L L'.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/keys.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/routing/region_masses.hpp"

namespace moelab::routing {

/// Experts M_i = scale A_i B_i' (d x d), A_i and B_i with d rows and the same number of columns.
struct FactoredExperts {
  int d = 0;
  double scale = 1.0;
  std::vector<Eigen::MatrixXd> A, B;
  int m() const { return static_cast<int>(A.size()); }
  /// M_i as a dense d x d matrix.
  Eigen::MatrixXd matrix(int i) const;
  /// sum_{i in S} M_i as a dense d x d matrix.
  Eigen::MatrixXd sum(std::span<const int> S) const;
};

/// Lemma B.9's construction (see above), drawn from RandomStream(seed, routing_experts, draw).
/// `shared_row_space` (a control, not the lemma's): B_i = B_1 for every i, so every M_i has the same
/// w-dimensional row space and any sum or difference of them has rank <= w.
FactoredExperts lemma_b9_experts(int m, int k, int w, int d, std::uint64_t seed, std::uint64_t draw, bool shared_row_space = false);

/// Lemma C.6's construction (see above), drawn from RandomStream(seed, routing_experts, draw).
FactoredExperts lemma_c6_experts(int m, int k, int w, int d, std::uint64_t seed, std::uint64_t draw);

/// sigma_i^2(A B'), descending (min(n, d) values; A, B d x n).
Eigen::VectorXd product_singular_values2(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

/// Eckart-Young: min_{rank U <= r} |A B' - U|_F^2 = sum_{i > r} sigma_i^2(A B') (0 when r >= rank).
double eckart_young_tail(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, int r);

/// (B.3)'s left side minimised over the pairs: min over S, S' in C([m], k) with |S cap S'| <= max_common
/// of min_{rank U <= r} |M_S - M_S' - U|_F^2. M_S - M_S' depends only on P = S \ S' and Q = S' \ S
/// (|P| = |Q| = t >= k - max_common, P, Q disjoint, m >= k + t), so the unordered pairs {P, Q} are
/// enumerated (every one is realised by some S, S').
struct PairTail {
  double min_tail = 0.0;      // the minimum (0 when no pair qualifies)
  std::vector<int> P, Q;      // an argmin
  std::uint64_t pairs = 0;    // distinct {P, Q} evaluated
};
/// `max_t` (if >= 1) stops at |P| = max_t: the minimum over fewer pairs, an upper bound on the full one.
PairTail min_pair_tail(const FactoredExperts& M, int k, int max_common, int r, int max_t = -1);

/// The teacher (B.7) / (C.10): routing vectors R (m x d) with top-k, f(x) = sum_{i in S(x)} M_i x on U_S.
struct LinearTeacher {
  int k = 0;
  Eigen::MatrixXd R;
  FactoredExperts M;
};
/// f on the columns of X (d x n).
Eigen::MatrixXd teacher_outputs(const LinearTeacher& t, const Eigen::MatrixXd& X);
/// (B.2) / (C.4) for one draw of the experts: the per-point values |f(x)|^2 summarised, x = points
/// 0 .. n-1 of draw_points(law, seed, draw) (their mean estimates E_x sum_S 1(x in U_S)|M_S x|^2).
Welford teacher_energy(const LinearTeacher& t, InputLaw law, std::uint64_t n, std::uint64_t seed, std::uint64_t draw);

/// Definition B.12 students on given regions. Per region j the best linear map is the least-squares
/// G_j = (sum f x')(sum x x')^+ over the region's points (the sample version of
/// E[f x' 1_V] E[x x' 1_V]^-1; the pseudo-inverse drops eigenvalues below 1e-12 of the largest).
/// Sufficient statistics per region: sum x x', sum f x', sum |f|^2, count.
struct RegionStats {
  std::vector<Eigen::MatrixXd> xx, fx;
  std::vector<double> ff, count;
};
RegionStats region_stats(const Eigen::MatrixXd& X, const Eigen::MatrixXd& F, std::span<const std::uint64_t> labels,
                         std::uint64_t regions);
/// In-sample error of the per-region least squares: sum_j min_G sum_{x in V_j} |f - G x|^2, divided by
/// sum |f|^2 (relative). For fixed regions its expectation is <= the population optimum's relative
/// error (the fit is chosen on the same points), so it is a conservative estimate for a lower bound.
double piecewise_linear_error(const RegionStats& s);
/// Holdout error: G_j fitted on `train`, sum |f - G_j x|^2 evaluated on `test` (relative to test's
/// sum |f|^2); its expectation is >= the population optimum's (an empty or rank-deficient training
/// region contributes the pseudo-inverse fit).
double piecewise_linear_holdout_error(const RegionStats& train, const RegionStats& test);

/// The search objective: the in-sample error with each region's residual scaled by n_j / (n_j - d)
/// (the degrees-of-freedom correction of a d-parameter least-squares fit per output coordinate), and a
/// region with n_j <= d + 1 points counted as unfitted (its whole sum |f|^2): the search must not
/// reward regions too small to fit.
double piecewise_linear_error_dof(const RegionStats& s);

/// A general-routing linear student found by hill climbing over (m', k') top-k routers (one routing
/// row perturbed at a time by 0.25 |r_j| N(0, I/d), kept when piecewise_linear_error_dof on X drops;
/// step halved after 8 rejections in a row), started from the best of three Gaussian routers and the teacher's first m'
/// routing vectors.
struct LinearStudentSearch {
  int m_student = 0, k_student = 0;
  std::uint64_t regions = 0;  // C(m', k')
  Eigen::MatrixXd routing;
  double initial_error = 0.0, final_error = 0.0;  // piecewise_linear_error_dof on X
  int accepted = 0, tried = 0;
};
/// Stream: key.with("linear_climb", 1000 m' + k').
LinearStudentSearch optimise_linear_router(const LinearTeacher& t, const Eigen::MatrixXd& X, int m_student, int k_student,
                                           int iterations, const RngKey& key);

/// (C.5) in miniature, certified: for diagonal experts (Lemma C.6), the minimum over U subset [m] with
/// |U| = T of sum_{i > r} lambda_i(sum_{l in U} M_l^2). For every R and every S_1..S_R in C([m], k) with
/// |S_1 u .. u S_R| >= T, sum_j |M_{S_j} Pi_perp|_F^2 over any rank-r projection Pi is at least this
/// (M_{S_j}^2 >= sum_{l in S_j} M_l^2 entrywise for nonnegative diagonals, the tail sum beyond the top r
/// entries is monotone in the entries, and it is the minimum over Pi for a diagonal sum).
struct UnionTail {
  double min_tail = 0.0;
  std::vector<int> U;          // an argmin
  std::uint64_t subsets = 0;   // C(m, T)
};
UnionTail min_union_tail_diagonal(const FactoredExperts& M, int T, int r);

}  // namespace moelab::routing
