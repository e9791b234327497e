// Lemma 3.5 / Lemma B.5 of the granularity paper: for mu = N(0, I_d / d) or Unif[B_d] and a set U of
// measure mu(U) > 0, the covariance Sigma_U of mu conditioned on U has
//     lambda_{d - kappa + 1}(Sigma_U) >= 1 / (30000 d)   for every kappa >= C (1 + log(1 / mu(U))),
// i.e. fewer than kappa eigenvalues below 1 / (30000 d). The proof (Chebyshev on each small-variance
// direction, a Markov bound, and tube volumes, Lemmas B.2 / B.3) gives the constant explicitly:
//   Gaussian: a contradiction as soon as 2 (2 (0.01 sqrt(2/pi))^(1/3))^kappa < mu(U),
//   ball:     as soon as 2 (2^(kappa - d/2) + (2 (0.08)^(1/3))^kappa) < mu(U).
// This file has the explicit kappa, the exact conditional spectra of halfspaces (caps for the ball),
// and a Monte-Carlo estimate of Sigma_U for routing regions U_S.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/routing/region_masses.hpp"

namespace moelab::routing {

/// The threshold of Lemma B.5: 1 / (30000 d).
double lemma_b5_threshold(int d);
/// Smallest kappa for which the proof of Lemma B.5 reaches its contradiction for a set of measure
/// `mass` (so at most kappa - 1 eigenvalues of Sigma_U lie below the threshold); for the ball it also
/// needs kappa < d/2 - log2(4 / mass); returns -1 when no kappa works at this d.
int lemma_b5_kappa(InputLaw law, double mass, int d);

/// Exact conditional spectrum of a halfspace U = {x : <x, v> > t} (|v| = 1): eigenvalue `along` in
/// the direction v, `across` (d - 1 times) in the others, and mu(U).
struct HalfspaceSpectrum {
  double mass = 0.0;
  double along = 0.0;
  double across = 0.0;
};
/// Gaussian N(0, I_d / d): with tau = t sqrt(d), along = Var(Z | Z > tau) / d (truncated normal:
/// 1 + tau h - h^2, h = phi(tau) / Phibar(tau)), across = 1 / d, mass = Phibar(tau).
/// Ball Unif[B_d]: x_1 has density proportional to (1 - s^2)^((d-1)/2) on [-1, 1]; along =
/// Var(x_1 | x_1 > t), across = E[1 - x_1^2 | x_1 > t] / (d + 1) (given x_1, the other coordinates are
/// uniform in a (d-1)-ball of radius sqrt(1 - x_1^2), whose coordinate variance is radius^2 / (d + 1)).
HalfspaceSpectrum halfspace_spectrum(InputLaw law, int d, double t);

/// Monte-Carlo conditional covariance of every routing region: draws `points` points of `law`
/// (draw_points, full score path), routes them with R and top-k, and accumulates per region the
/// count, the sum of x and the sum of x x'. Regions with fewer than d + 1 points get no spectrum.
struct RegionCovariance {
  std::uint64_t rank = 0;
  std::uint64_t count = 0;
  double mass = 0.0;             // count / points
  Eigen::VectorXd eigenvalues;   // of the sample covariance, ascending (empty when count <= d)
};
std::vector<RegionCovariance> region_covariances(const Eigen::MatrixXd& R, int k, InputLaw law, std::uint64_t points,
                                                 std::uint64_t seed, std::uint64_t draw);

/// Sample covariance eigenvalues (ascending) of the points of `law` that fall in the halfspace
/// {x_1 > t}: points first .. of draw `draw`, kept until `accepted` are in (rejection sampling).
Eigen::VectorXd halfspace_sample_eigenvalues(InputLaw law, int d, double t, std::uint64_t accepted, std::uint64_t seed,
                                             std::uint64_t draw);

}  // namespace moelab::routing
