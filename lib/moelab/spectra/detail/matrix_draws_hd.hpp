// The per-entry draw of the spectra ensembles' matrices, shared by the CPU emulation of the device
// layout (tests/spectra/spectra_device_test.cpp) and the CUDA kernel (kernels/spectra_eigen.cu):
// header-only, C++17, no Eigen (MOELAB_HD, compiled by g++ and nvcc).
//
// Addressing (the CPU's Sampler::entries path, spectra/ensembles.cpp: iid_matrix, spiked_factor and
// info_plus_noise_eigenvalues): entry (i, j) of trial t's M x N matrix X is draw i + M j of
// RandomStream(seed, StreamTag::design_noise, t): normal(i + M j) for Gaussian entries, from the
// Philox block (i + M j) / 2 (Box-Muller pairs, so one block gives two consecutive entries in
// column-major order); uniform(i + M j) for Rademacher (sign of u - 1/2) and uniform
// (sqrt 3 (2 u - 1)) entries. The matrix the eigenvalues are taken of is then
//   Y_ij = sqrt(sigma2 / N) * (row_scale_i X_ij) + [i == j < signal_count] sqrt(signal_sv2_i),
// in that order of operations, as the CPU does: the spiked covariance (Johnstone 2001; row_scale =
// sqrt(ell), no signal) and the information-plus-noise matrix (Loubaton & Vallet; no row scale,
// signal singular values sqrt(signal_sv2) on the diagonal).
// The Philox block counter is 32 bits: a matrix needs M N <= 2^33 entries (kMaxMatrixEntries).
#pragma once

#include <cmath>
#include <cstdint>

#include "moelab/core/distributions.hpp"

namespace moelab::spectra::device {

/// The entry laws, numbered as spectra::EntryLaw (ensembles.hpp; a static_assert in spectra_engine_cuda.cpp).
enum class Law : int { gaussian = 0, rademacher = 1, uniform = 2 };

/// Entries one matrix may have (the 32-bit Philox block counter: blocks (M N - 1) / 2 < 2^32).
inline constexpr std::uint64_t kMaxMatrixEntries = std::uint64_t{1} << 33;

/// What determines every entry of a batch of matrices, all but the trial.
struct MatrixDraw {
  int M = 0, N = 0;
  Law law = Law::gaussian;
  std::uint64_t seed = 0;
  double scale = 1.0;                    // sqrt(sigma2 / N)
  const double* row_scale = nullptr;     // sqrt(ell_i), i < row_scale_count (device or host memory)
  int row_scale_count = 0;
  const double* signal_sv = nullptr;     // sqrt(signal_sv2_i), i < signal_count
  int signal_count = 0;
};

/// The raw draws (before scaling) of linear entries 2 block and 2 block + 1 of trial `trial`.
MOELAB_HD void raw_entry_pair(Law law, std::uint64_t seed, std::uint64_t trial, std::uint64_t block, double& x0, double& x1) {
  const RandomStream rs(seed, StreamTag::design_noise, trial);
  const Philox4x32 r = philox_block(rs.address(), static_cast<std::uint32_t>(block));
  if (law == Law::gaussian) {
    box_muller(r, x0, x1);
    return;
  }
  // uniform(2 block) and uniform(2 block + 1) of RandomStream: the block's two halves.
  const double u0 = uniform_open01(r.v[0], r.v[1]), u1 = uniform_open01(r.v[2], r.v[3]);
  if (law == Law::rademacher) {
    x0 = u0 < 0.5 ? -1.0 : 1.0;
    x1 = u1 < 0.5 ? -1.0 : 1.0;
  } else {
    const double half_width = sqrt(3.0);  // U(-sqrt 3, sqrt 3): variance 1
    x0 = half_width * (2.0 * u0 - 1.0);
    x1 = half_width * (2.0 * u1 - 1.0);
  }
}

/// Y at linear (column-major) index `lin` = i + M j from its raw draw x (the file comment's formula).
MOELAB_HD double entry_value(const MatrixDraw& d, std::uint64_t lin, double x) {
  const int i = static_cast<int>(lin % static_cast<std::uint64_t>(d.M));
  const int j = static_cast<int>(lin / static_cast<std::uint64_t>(d.M));
  double v = x;
  if (i < d.row_scale_count) v *= d.row_scale[i];
  v *= d.scale;
  if (i == j && i < d.signal_count) v += d.signal_sv[i];
  return v;
}

/// Gram side: the eigenvalues are those of the smaller Gram matrix, Y Y' (M x M) when M <= N, else
/// Y' Y (N x N), as gram_eigenvalues on the CPU.
MOELAB_HD int gram_order(int M, int N) { return M <= N ? M : N; }

/// Trials per device batch so that one batch's matrices (M N doubles) and Gram matrices (n^2) stay
/// within `budget_bytes` (at least 1 trial; at most `trials`).
MOELAB_HD int trials_per_batch(int M, int N, int trials, double budget_bytes) {
  const double n = gram_order(M, N);
  const double per = 8.0 * (static_cast<double>(M) * N + 2.0 * n * n + n);
  double fit = budget_bytes / per;
  if (fit < 1.0) fit = 1.0;
  return fit >= trials ? trials : static_cast<int>(fit);
}

}  // namespace moelab::spectra::device
