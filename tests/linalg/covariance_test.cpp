// Covariance builders and the SPD check.
#include "moelab/linalg/covariance.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "moelab/linalg/decompositions.hpp"

using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("identity and diagonal covariances have the requested entries", "[linalg][covariance]") {
  const Eigen::MatrixXd id = moelab::identity_covariance(3, 2.5);
  CHECK(id.isApprox(2.5 * Eigen::MatrixXd::Identity(3, 3), 0.0));
  const Eigen::MatrixXd diag = moelab::diagonal_covariance({1.0, 4.0, 0.5});
  CHECK(diag(1, 1) == 4.0);
  CHECK(diag(0, 2) == 0.0);
  CHECK(moelab::spd_violation(id).empty());
  CHECK(moelab::spd_violation(diag).empty());
  CHECK_THROWS_AS(moelab::identity_covariance(0), std::logic_error);
  CHECK_THROWS_AS(moelab::diagonal_covariance({1.0, 0.0}), std::logic_error);
}

TEST_CASE("the Toeplitz AR(1) covariance is SPD with eigenvalues inside the AR(1) spectral bounds",
          "[linalg][covariance]") {
  const double rho = GENERATE(-0.9, -0.3, 0.0, 0.5, 0.99);
  const int d = GENERATE(1, 5, 60);
  const double scale = 1.7;
  const Eigen::MatrixXd t = moelab::toeplitz_covariance(d, rho, scale);
  CHECK(t(0, 0) == scale);
  if (d > 2) CHECK_THAT(t(2, 0), WithinRel(scale * rho * rho, 1e-15));
  CHECK(moelab::spd_violation(t).empty());
  // Spectral density of AR(1): scale (1 - rho^2)/(1 - 2 rho cos w + rho^2), in
  // [scale (1 - |rho|)/(1 + |rho|), scale (1 + |rho|)/(1 - |rho|)]; 1e-12 relative slack for the eigensolver.
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t).eigenvalues();
  const double a = std::abs(rho);
  CHECK(ev.minCoeff() >= scale * (1 - a) / (1 + a) * (1 - 1e-12));
  CHECK(ev.maxCoeff() <= scale * (1 + a) / (1 - a) * (1 + 1e-12));
  CHECK_THROWS_AS(moelab::toeplitz_covariance(3, 1.0), std::logic_error);
}

TEST_CASE("spd_violation catches asymmetric, indefinite and malformed matrices", "[linalg][covariance]") {
  Eigen::MatrixXd asym(2, 2);
  asym << 2.0, 0.5, 0.0, 2.0;
  CHECK_THAT(moelab::spd_violation(asym), StartsWith("not symmetric"));
  CHECK_THAT(moelab::spd_violation(asym), Catch::Matchers::Contains("A(0,1)"));

  Eigen::MatrixXd indefinite(2, 2);
  indefinite << 1.0, 2.0, 2.0, 1.0;  // eigenvalues 3 and -1
  CHECK_THAT(moelab::spd_violation(indefinite), StartsWith("not positive definite: smallest eigenvalue -0.99999"));

  Eigen::MatrixXd singular(2, 2);
  singular << 1.0, 1.0, 1.0, 1.0;  // PSD but singular
  CHECK_THAT(moelab::spd_violation(singular), StartsWith("not positive definite"));

  CHECK_THAT(moelab::spd_violation(Eigen::MatrixXd::Identity(2, 3)), StartsWith("not square"));
  CHECK(moelab::spd_violation(Eigen::MatrixXd()) == "empty matrix");
  Eigen::MatrixXd nan = Eigen::MatrixXd::Identity(2, 2);
  nan(1, 1) = std::nan("");
  CHECK_THAT(moelab::spd_violation(nan), StartsWith("not finite"));

  // Asymmetry at the level of rounding (1e-14 relative) passes with the default rel_tol = 1e-12 ...
  Eigen::MatrixXd nearly = moelab::toeplitz_covariance(4, 0.3);
  nearly(0, 1) += 1e-14;
  CHECK(moelab::spd_violation(nearly).empty());
  // ... but not with a stricter tolerance.
  CHECK_THAT(moelab::spd_violation(nearly, 1e-15), StartsWith("not symmetric"));
}
