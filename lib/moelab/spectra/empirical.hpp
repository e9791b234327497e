// Empirical spectra of random information-plus-noise matrices (Monte-Carlo side of spectra/).
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace moelab::spectra {

/// Eigenvalues, descending, of Sigma' Sigma (the min(M, N) possibly-nonzero ones) for
/// Sigma = B + W (M x N), W iid N(0, sigma2 / N) (Loubaton-Vallet convention, info_plus_noise.hpp),
/// B with squared singular values `signal_sv2` (at most min(M, N) of them). Because W is invariant
/// under B -> O1 B O2 for orthogonal O1, O2, B = sum_k sqrt(signal_sv2_k) e_k e_k' loses no
/// generality for the spectrum. Draws: RandomStream(seed, StreamTag::design_noise, trial).
Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                            std::uint64_t seed, std::uint64_t trial);

}  // namespace moelab::spectra
