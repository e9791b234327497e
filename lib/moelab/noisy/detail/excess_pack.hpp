// The host side of the device layout of the noisy Fig. 3 sweep: the model packed into flat arrays
// (the layout detail/sample_hd.hpp indexes), the allocations of a batch of trials, and the CPU
// fallback solve of the device path. Used by the CUDA engine (excess_engine_cuda.cpp) and walked by
// the CPU emulation (tests/noisy/excess_device_test.cpp). Internal; not installed.
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

}  // namespace moelab::noisy
