// The spectra ensembles on the device (W3; experimental, docs/gpu.md): batched eigenvalues
// of sample covariance matrices and one large information-plus-noise spectrum, with the matrices
// drawn at the CPU's addresses, so that the CPU's Sampler::entries path (ensembles.hpp) is the
// point-by-point reference. Without a CUDA build every function throws a clear error.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/spectra/ensembles.hpp"

namespace moelab::spectra {

/// How the device computes the eigenvalues (kernels/spectra_eigen.cuh, EigenMethod).
enum class DeviceEigenMethod { automatic, jacobi_batched, syev_batched, syevd_loop };

/// True when this moelab was built with the CUDA spectra path.
bool spectra_cuda_built();

/// Device sibling of sample_covariance_eigenvalues(M, N, ell, sigma2, law, seed, trial,
/// Sampler::entries) for trials first_trial .. first_trial + count - 1: each result holds the M
/// eigenvalues ascending (M - N exact zeros first when M > N; negatives from rounding clamped to 0,
/// as the CPU does). One device context per calling thread (thread_local), kept across calls.
std::vector<Eigen::VectorXd> sample_covariance_eigenvalues_cuda(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                                                std::uint64_t seed, std::uint64_t first_trial, int count,
                                                                DeviceEigenMethod method = DeviceEigenMethod::automatic);

/// Device sibling of info_plus_noise_eigenvalues(M, N, signal_sv2, sigma2, law, seed, trial,
/// Sampler::entries): the min(M, N) eigenvalues of Sigma Sigma', descending (cusolverDnXsyevd).
Eigen::VectorXd info_plus_noise_eigenvalues_cuda(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                                 std::uint64_t seed, std::uint64_t trial);

/// The device's matrices Y (M x N) of trials first_trial .. first_trial + count - 1, for the GPU
/// test's entry-by-entry comparison (ell: spikes; signal_sv2: information-plus-noise signal).
std::vector<Eigen::MatrixXd> ensemble_matrices_cuda(int M, int N, const std::vector<double>& ell, const Eigen::VectorXd& signal_sv2,
                                                    double sigma2, EntryLaw law, std::uint64_t seed, std::uint64_t first_trial, int count);

}  // namespace moelab::spectra
