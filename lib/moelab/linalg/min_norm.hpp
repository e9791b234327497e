// Minimum-norm least squares beta = (X'X)^+ X'y, fast and stable on both sides of n = p.
#pragma once

#include <Eigen/Dense>

namespace moelab {

/// How a solve went (a numerical outcome, not an error: DESIGN.md, Errors).
enum class SolveStatus {
  cholesky,        // Gram matrix Cholesky (X'X when n >= p, XX' when n < p), well conditioned
  orthogonal,      // fell back to a complete orthogonal decomposition: Gram too ill-conditioned
};

struct MinNormSolution {
  Eigen::VectorXd beta;
  SolveStatus status = SolveStatus::cholesky;
  double rcond_estimate = 0.0;  // reciprocal condition estimate of the Gram matrix (Cholesky path)
};

/// Minimum-norm least-squares solution of X beta ~ y.
/// Path: Gram + Cholesky (cost n p min(n,p) + min(n,p)^3 / 3) when the Gram matrix's reciprocal
/// condition estimate exceeds `rcond_fallback`; otherwise a rank-revealing complete orthogonal
/// decomposition (COD), which is stable at and near n = p.
/// The default reciprocal-condition threshold of min_norm_solve.
inline constexpr double kMinNormRcondFallback = 1e-10;

MinNormSolution min_norm_solve(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& y,
                               double rcond_fallback = kMinNormRcondFallback);
/// The same solve with the Gram matrix formed in `gram` (resized; its storage is reused when the size
/// matches): a caller solving many problems of one size avoids fresh pages per solve. Same bytes.
MinNormSolution min_norm_solve(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& y,
                               double rcond_fallback, Eigen::MatrixXd& gram);

}  // namespace moelab
