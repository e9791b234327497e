// Covariance builders for the feature blocks of the `noisy` model and an SPD check.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace moelab {

/// scale * I_d.
Eigen::MatrixXd identity_covariance(int d, double scale = 1.0);
/// diag(values).
Eigen::MatrixXd diagonal_covariance(const std::vector<double>& values);
/// Toeplitz AR(1) covariance: scale * rho^|i-j|, |rho| < 1 (SPD for |rho| < 1).
Eigen::MatrixXd toeplitz_covariance(int d, double rho, double scale = 1.0);

/// Empty string when `m` is symmetric (to `rel_tol` relative to its max entry) and positive definite
/// (Cholesky succeeds with a positive smallest eigenvalue); otherwise the reason, e.g.
/// "not symmetric: |A(0,1) - A(1,0)| = 0.5" or "not positive definite: smallest eigenvalue -0.2".
std::string spd_violation(const Eigen::MatrixXd& m, double rel_tol = 1e-12);

}  // namespace moelab
