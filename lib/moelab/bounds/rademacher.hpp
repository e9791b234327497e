// Empirical Rademacher complexity (compositional paper, Definition 2, Eq. 4):
//   R(F, S) = E_sigma sup_{f in F} (1/m) sum_{i=1}^m sigma_i f(x_i),  sigma_i iid uniform on {-1, +1},
// without absolute value, normalised by m. Exact by enumeration of the 2^m sign vectors (m <= 20),
// or Monte-Carlo over sign draws with a Student-t confidence interval. Classes:
//   - finite: `values` is K x m, row f = (f(x_1), ..., f(x_m)) (rows = functions, columns = points);
//   - norm-bounded linear {x -> <w, x> : ||w||_2 <= B}: `points` is d x m (column i = x_i), and
//     sup_w sum_i sigma_i <w, x_i> = B ||sum_i sigma_i x_i||_2, so R = (B/m) E ||sum_i sigma_i x_i||_2;
//   - gated combinations x -> sum_j g_j(x) h_j(x), h_j in a finite class H (K x m values), g in a finite
//     family of gates (each T x m, column i = (g_1(x_i), ..., g_T(x_i))). Constant gates on the simplex
//     give the convex combinations of Lemma 10 (Eq. 42); x-dependent ones the routed class F|mu of
//     Lemma 5 (Eq. 20, 24).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/distributions.hpp"

namespace moelab::bounds {

/// Largest m for which the exact (2^m enumeration) functions run.
inline constexpr int kMaxExactPoints = 20;

/// sup_{f in F} sum_i sigma_i f(x_i) (not divided by m) for a sign vector sigma of length m.
using SignedSupremum = std::function<double(std::span<const double> sigma)>;

/// A Monte-Carlo estimate: mean over `draws` iid terms, its standard error, and a two-sided
/// Student-t confidence interval at `level`.
struct McEstimate {
  double mean;
  double standard_error;
  double lower;
  double upper;
  std::uint64_t draws;
};

/// R(F, S) = 2^-m sum_sigma sup(sigma) / m for any class given by its signed supremum (1 <= m <= 20).
double rademacher_exact(int m, const SignedSupremum& sup);
/// Monte-Carlo R(F, S): sign draw t uses uniforms t m .. t m + m - 1 of `signs` (sigma_i = -1 iff
/// u < 1/2). Draws run in parallel, reduced in index order (same result for any thread count).
McEstimate rademacher_mc(int m, const SignedSupremum& sup, std::uint64_t draws, const RandomStream& signs,
                         double level = 0.99);

/// Finite class, exact: Gray-code enumeration (one sign flip per step, O(K) per step; sums recomputed
/// every 1024 steps so that rounding does not accumulate). values is K x m, 1 <= m <= 20.
double finite_class_rademacher(const Eigen::MatrixXd& values);
/// Finite class, Monte-Carlo (see rademacher_mc).
McEstimate finite_class_rademacher_mc(const Eigen::MatrixXd& values, std::uint64_t draws, const RandomStream& signs,
                                      double level = 0.99);
/// The signed supremum of a finite class: max_f sum_i sigma_i f(x_i).
SignedSupremum finite_class_supremum(const Eigen::MatrixXd& values);
/// Massart's finite-class lemma (Massart 2000; Mohri et al. 2018, Thm 3.7):
/// R(F, S) <= max_f ||f||_2 sqrt(2 log K) / m, ||f||_2 = sqrt(sum_i f(x_i)^2). K = 1 gives 0.
double massart_bound(const Eigen::MatrixXd& values);

/// Norm-bounded linear class, exact: (B/m) 2^-m sum_sigma ||sum_i sigma_i x_i||_2 (Gray code on the
/// running sum). points is d x m, 1 <= m <= 20, B >= 0.
double linear_class_rademacher(const Eigen::MatrixXd& points, double B);
/// Norm-bounded linear class, Monte-Carlo.
McEstimate linear_class_rademacher_mc(const Eigen::MatrixXd& points, double B, std::uint64_t draws,
                                      const RandomStream& signs, double level = 0.99);
/// Jensen's bound (B/m) sqrt(sum_i ||x_i||^2) >= the linear-class R(F, S) (Mohri et al. 2018, Thm 5.10).
double linear_class_rademacher_bound(const Eigen::MatrixXd& points, double B);
/// The signed supremum of the linear class: B ||sum_i sigma_i x_i||_2.
SignedSupremum linear_class_supremum(const Eigen::MatrixXd& points, double B);

/// The signed supremum of the gated class: max_g sum_j max_{h in H} sum_i sigma_i g_j(x_i) h(x_i)
/// (for a fixed gate the supremum over (h_1, ..., h_T) in H^T separates over j).
/// experts is K x m; each gate T x m (the same T for all).
SignedSupremum gated_class_supremum(const Eigen::MatrixXd& experts, const std::vector<Eigen::MatrixXd>& gates);

}  // namespace moelab::bounds
