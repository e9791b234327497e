// Host-only launcher for batched random-matrix spectra on the device (kernels/spectra_eigen.cu). No
// device code here: included from plain C++ (lib/moelab/spectra/spectra_engine_cuda.cpp, tests).
//
// The GPU sibling of the spectra ensembles' Sampler::entries path (spectra/ensembles.cpp): matrices
// drawn by device Philox at the CPU's addresses (spectra/detail/matrix_draws_hd.hpp), their smaller Gram
// matrices by cuBLAS, eigenvalues by cuSOLVER. The CPU path is the reference: the matrices agree up
// to the Box-Muller rounding (CUDA's log/sin/cos against glibc's, a few ulps), the eigenvalues up to
// the two eigensolvers' backward errors (tests/gpu/spectra_gpu_main.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace moelab::cuda {

/// How the eigenvalues of a batch of n x n symmetric matrices are computed.
enum class EigenMethod {
  automatic,       // jacobi_batched for n <= 32, else syevd_loop
  jacobi_batched,  // cusolverDnDsyevjBatched (Jacobi; n <= 32 only)
  syev_batched,    // cusolverDnXsyevBatched (64-bit API, one call for the batch)
  syevd_loop,      // cusolverDnXsyevd, one call per matrix (divide and conquer)
};
const char* eigen_method_name(EigenMethod m);

/// A batch of trials first_trial .. first_trial + trials - 1 of one ensemble; all pointers on the host.
struct SpectraBatch {
  int M = 0, N = 0;
  int law = 0;  // spectra::EntryLaw as int (0 gaussian, 1 rademacher, 2 uniform)
  double sigma2 = 1.0;
  std::uint64_t seed = 0, first_trial = 0;
  int trials = 0;
  std::vector<double> row_scale;  // sqrt(ell_i) of a spiked covariance (may be empty)
  std::vector<double> signal_sv;  // sqrt(signal_sv2_i) of an information-plus-noise matrix (may be empty)
  EigenMethod method = EigenMethod::automatic;
};

/// Handles (cuBLAS, cuSOLVER, syevj parameters) and buffers kept across calls: one context per host
/// thread; creating it allocates nothing on the device. Host-only interface (state in the .cu).
class SpectraDeviceContext {
 public:
  SpectraDeviceContext();
  ~SpectraDeviceContext();
  SpectraDeviceContext(const SpectraDeviceContext&) = delete;
  SpectraDeviceContext& operator=(const SpectraDeviceContext&) = delete;
  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

/// Eigenvalues, ascending, of the Gram matrix (Y Y' if M <= N, else Y' Y; n = min(M, N)) of each
/// trial's matrix Y: host_out[t n + i], t < trials, i < n. Batches of trials are sized to keep the
/// device buffers within about 1 GiB. Throws std::invalid_argument on a bad batch, std::runtime_error
/// (naming the CUDA / cuBLAS / cuSOLVER call and status) on a device failure, and when cuSOLVER
/// reports a matrix it did not converge on (its info, with the trial).
void gram_eigenvalues_batched(SpectraDeviceContext& ctx, const SpectraBatch& b, double* host_out);

/// The matrices Y themselves (M x N, column-major, trial after trial) as the device draws them:
/// for the GPU test's entry-by-entry comparison with the CPU.
void matrices_to_host(SpectraDeviceContext& ctx, const SpectraBatch& b, double* host_out);

}  // namespace moelab::cuda
