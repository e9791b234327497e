#include "moelab/linalg/min_norm.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/linalg/decompositions.hpp"
#include "moelab/linalg/lapack.hpp"

namespace moelab {

namespace {
// Reciprocal condition estimate of an SPD matrix from its Cholesky factor: (min L_ii / max L_ii)^2.
// Cheap (O(m)) and within a modest factor of the true 1-norm estimate for Gram matrices; it only
// chooses between two stable paths, so a rough estimate is enough.
double rcond_from_cholesky(const Eigen::MatrixXd& L) {
  const Eigen::VectorXd diag = L.diagonal();
  const double lo = diag.minCoeff(), hi = diag.maxCoeff();
  if (!(hi > 0.0) || !(lo > 0.0)) return 0.0;
  const double r = lo / hi;
  return r * r;
}
}  // namespace

MinNormSolution min_norm_solve(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& y,
                               double rcond_fallback) {
  Eigen::MatrixXd G;
  return min_norm_solve(X, y, rcond_fallback, G);
}

MinNormSolution min_norm_solve(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& y,
                               double rcond_fallback, Eigen::MatrixXd& G) {
  const Eigen::Index n = X.rows(), p = X.cols();
  MinNormSolution out;
  // Gram matrix (syrk) and its Cholesky factor (potrf) through lapack.hpp: OpenBLAS when built with
  // it, Eigen otherwise. Over-determined (n >= p): beta = (X'X)^-1 X'y; under-determined: the
  // minimum-norm interpolant beta = X'(XX')^-1 y.
  const bool over = n >= p;
  lapack::gram_lower(X, /*transpose=*/over, G);
  if (lapack::cholesky_lower(G)) {
    out.rcond_estimate = rcond_from_cholesky(G);
    if (out.rcond_estimate > rcond_fallback) {
      if (over) {
        out.beta = X.transpose() * y;
        lapack::cholesky_solve(G, out.beta);
      } else {
        Eigen::VectorXd z = y;
        lapack::cholesky_solve(G, z);
        out.beta = X.transpose() * z;
      }
      out.status = SolveStatus::cholesky;
      return out;
    }
  }
  // Near n = p (or rank deficient): complete orthogonal decomposition gives the minimum-norm
  // least-squares solution stably.
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(X);
  out.beta = cod.solve(y);
  out.status = SolveStatus::orthogonal;
  return out;
}

}  // namespace moelab
