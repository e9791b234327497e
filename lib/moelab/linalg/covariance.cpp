#include "moelab/linalg/covariance.hpp"

#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

namespace moelab {

Eigen::MatrixXd identity_covariance(int d, double scale) {
  MOELAB_EXPECT(d > 0, "covariance dimension must be positive");
  MOELAB_EXPECT(scale > 0.0, "identity covariance scale must be positive");
  return scale * Eigen::MatrixXd::Identity(d, d);
}

Eigen::MatrixXd diagonal_covariance(const std::vector<double>& values) {
  MOELAB_EXPECT(!values.empty(), "diagonal covariance needs at least one value");
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    MOELAB_EXPECT(values[i] > 0.0, "diagonal covariance entries must be positive");
    v(static_cast<Eigen::Index>(i)) = values[i];
  }
  return v.asDiagonal();
}

Eigen::MatrixXd toeplitz_covariance(int d, double rho, double scale) {
  MOELAB_EXPECT(d > 0, "covariance dimension must be positive");
  MOELAB_EXPECT(std::abs(rho) < 1.0, "Toeplitz AR(1) covariance needs |rho| < 1");
  MOELAB_EXPECT(scale > 0.0, "Toeplitz covariance scale must be positive");
  // AR(1) autocovariance scale * rho^|i-j|.
  Eigen::MatrixXd m(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) m(i, j) = scale * std::pow(rho, std::abs(i - j));
  return m;
}

std::string spd_violation(const Eigen::MatrixXd& m, double rel_tol) {
  if (m.size() == 0) return "empty matrix";
  if (m.rows() != m.cols()) return fmt::format("not square: {} x {}", m.rows(), m.cols());
  if (!m.allFinite()) return "not finite: contains NaN or Inf";
  const double max_entry = m.cwiseAbs().maxCoeff();
  Eigen::Index worst_i = 0, worst_j = 0;
  const double asym = (m - m.transpose()).cwiseAbs().maxCoeff(&worst_i, &worst_j);
  if (asym > rel_tol * max_entry) {
    if (worst_i > worst_j) std::swap(worst_i, worst_j);
    return fmt::format("not symmetric: |A({},{}) - A({},{})| = {}", worst_i, worst_j, worst_j, worst_i, asym);
  }
  const Eigen::MatrixXd sym = 0.5 * (m + m.transpose());
  const Eigen::LLT<Eigen::MatrixXd> llt(sym);
  const double smallest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sym, Eigen::EigenvaluesOnly)
                              .eigenvalues()
                              .minCoeff();
  if (llt.info() != Eigen::Success || !(smallest > 0.0))
    return fmt::format("not positive definite: smallest eigenvalue {}", smallest);
  return {};
}

}  // namespace moelab
