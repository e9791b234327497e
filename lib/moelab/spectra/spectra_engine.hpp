// Batched random-matrix spectra behind one interface, with the CPU reference and the CUDA sibling
// (STYLE.md, "CUDA beside host code"; docs/gpu.md, "One shape"): sample covariance eigenvalues
// (Marchenko & Pastur 1967; Bai & Silverstein 2010, Thm 3.6) and information-plus-noise spectra
// (Dozier & Silverstein 2007) of matrices whose every entry is drawn at the addresses of
// Sampler::entries (ensembles.hpp), so the CPU engine is the point-by-point reference of the device's.
// make_spectra_engine picks the implementation for a resolved Backend; the CUDA one
// (spectra_engine_cuda.cpp, kernels/spectra_eigen.cu: device Philox, cuBLAS Gram, cuSOLVER
// eigenvalues) shares its per-entry draw with the CPU emulation through detail/matrix_draws_hd.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/backend.hpp"
#include "moelab/spectra/ensembles.hpp"

namespace moelab::spectra {

/// How the device computes the eigenvalues (kernels/spectra_eigen.cuh, EigenMethod); the CPU engine
/// ignores it (Eigen's self-adjoint solver, as ensembles.cpp).
enum class DeviceEigenMethod { automatic, jacobi_batched, syev_batched, syevd_loop };

class SpectraEngine {
 public:
  virtual ~SpectraEngine() = default;
  virtual Backend backend() const = 0;
  /// sample_covariance_eigenvalues(M, N, ell, sigma2, law, seed, t, Sampler::entries) for trials
  /// t = first_trial .. first_trial + count - 1: each the M eigenvalues ascending (M - N exact zeros
  /// first when M > N; negatives from rounding clamped to 0).
  virtual std::vector<Eigen::VectorXd> sample_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2,
                                                                     EntryLaw law, std::uint64_t seed, std::uint64_t first_trial,
                                                                     int count) = 0;
  /// info_plus_noise_eigenvalues(M, N, signal_sv2, sigma2, law, seed, trial, Sampler::entries): the
  /// min(M, N) eigenvalues of Sigma Sigma', descending.
  virtual Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                                      std::uint64_t seed, std::uint64_t trial) = 0;
  /// The matrices Y = sqrt(sigma2 / N) T^(1/2) X (M x N; T = diag(ell, 1, ..., 1), X = iid_matrix at
  /// StreamTag::design_noise) of trials first_trial .. first_trial + count - 1: what the two
  /// engines' eigenvalues are computed from, compared entry by entry in the GPU test.
  virtual std::vector<Eigen::MatrixXd> matrices(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                                std::uint64_t seed, std::uint64_t first_trial, int count) = 0;
  /// True when several host threads may call one engine at once. The CPU engine: yes; the CUDA
  /// engine: yes as well, each host thread on its own device context (thread_local).
  virtual bool concurrent_calls() const = 0;
};

/// The engine for a resolved backend; `method` chooses the device eigensolver (the CUDA engine only).
/// Backend::cuda where the CUDA backend cannot run (a build without CUDA, no usable device) throws
/// RuntimeFailure naming the reason and `--backend` (core/backend_factory.hpp).
std::unique_ptr<SpectraEngine> make_spectra_engine(Backend backend, DeviceEigenMethod method = DeviceEigenMethod::automatic);

}  // namespace moelab::spectra
