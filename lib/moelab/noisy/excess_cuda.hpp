// The noisy Fig. 3 sweep (noisy.excess_risk) on the CUDA device: an experimental path
// (core/backend.hpp; docs/gpu.md, "W1 noisy sweep"). The model is packed into flat arrays
// (PackedModel, also what the CPU emulation test walks), the allocations of every trial are drawn on
// the host (allocate_samples), and kernels/noisy_excess.cu runs the batched design / Gram / Cholesky /
// risk pipeline; problems whose Cholesky the CPU's rule rejects are solved here on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/noisy/model.hpp"
#include "moelab/noisy/simulate.hpp"

namespace moelab::noisy {

/// The model as flat arrays in the device layout (detail/sample_hd.hpp): block offsets and sizes, the
/// Cholesky factors L_e and covariances Sigma_e (column-major, block e at block_offset[e]),
/// w = L_e' beta_e* stacked, the Bayes estimators (Eq. 3) stacked, p and sigma2.
struct PackedModel {
  int k = 0, d = 0, dmax = 0;
  std::vector<int> offset, size;
  std::vector<std::uint64_t> block_offset;  // k + 1
  std::vector<double> chol, sigma, w, bayes_dense, bayes_sparse, p;
  double sigma2 = 1.0;
};
PackedModel pack_model(const Model& m);

/// Allocations of trials first .. first + count - 1 (allocate_samples), as count x k.
std::vector<int> allocation_counts(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count);

/// The reciprocal-condition threshold of the CPU's min-norm solve (linalg/min_norm.hpp default).
inline constexpr double kExcessRcondFallback = 1e-10;

/// The CPU fallback of the device path: the minimum-norm least-squares solution by a complete
/// orthogonal decomposition, as min_norm_solve's fallback (X column-major rows x cols).
void cod_min_norm(const double* X, int rows, int cols, const double* y, double* beta);

/// excess_trial(m, n, a, seed, t) for t = first .. first + count - 1, on the CUDA device: the same
/// draws (device Philox at the CPU's addresses), Gram + Cholesky by cuBLAS / cuSOLVER, the same
/// fallback rule. Differs from the CPU rows by rounding (docs/gpu.md, "W1 noisy sweep").
/// `budget_bytes`: device memory one batch of trials may use. Throws std::logic_error (MOELAB_EXPECT)
/// in a build without CUDA, std::runtime_error on a device failure.
std::vector<ExcessTrial> excess_trials_cuda(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first,
                                            std::int64_t count, double budget_bytes = 2.0 * 1024 * 1024 * 1024);

/// The device training sets of trials first .. first + count - 1 (designs and responses only),
/// X column-major n x d per trial, for the GPU test. Throws as excess_trials_cuda.
void training_sets_cuda(const Model& m, int n, Allocation a, std::uint64_t seed, std::uint64_t first, std::int64_t count,
                        std::vector<double>& X, std::vector<double>& y);

}  // namespace moelab::noisy
