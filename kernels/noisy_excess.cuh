// Host-only launcher for the noisy Fig. 3 sweep on the device (kernels/noisy_excess.cu). No device
// code here: included from plain C++ (lib/moelab/noisy/excess_engine_cuda.cpp, tests).
//
// The GPU sibling of noisy::excess_trial (lib/moelab/noisy/simulate.cpp) over a batch of trials:
//   1. design_kernel : noise and signal normals by device Philox at the CPU's addresses
//                      (noisy/detail/sample_hd.hpp: noise_step, signal_draw_step);
//   2. signal_kernel : x = L_e g added to the design, y = g' (L_e' beta_e*) (signal_add_step, response_step);
//   3. cuBLAS        : Gram X'X or X X' of every min-norm problem (strided batched DGEMM for the dense
//                      problems, pointer-array batched DGEMM for each shape of per-expert problem);
//   4. cuSOLVER      : potrfBatched, the CPU's fallback rule on each factor's diagonal
//                      (cholesky_usable), potrsBatched, X' z by batched DGEMM;
//   5. host          : the orthogonal (COD) fallback for the problems the rule rejects, near n = d
//                      (a callback: the caller's CPU code, as linalg/min_norm.cpp does);
//   6. risk_kernel   : the exact excess-risk quadratic forms per (trial, block) (block_excess_terms),
//                      combined per trial in block order on the host (combine_excess).
// The batch plan (which problems, where their data sit, how they are grouped) is
// noisy/detail/excess_plan.hpp, shared with the CPU emulation test.
#pragma once

#include <cstdint>
#include <memory>

namespace moelab::cuda {

/// The model, packed (all host pointers; see noisy::PackedModel in noisy/detail/excess_pack.hpp).
struct NoisyModelView {
  int k = 0, d = 0, dmax = 0;
  const int* offset = nullptr;              // k: first coordinate of block e
  const int* size = nullptr;                // k: d_e
  const std::uint64_t* block_offset = nullptr;  // k + 1: where block e's d_e x d_e matrices start in chol / sigma
  const double* chol = nullptr;             // L_e, column-major, Sigma_e = L_e L_e'
  const double* sigma = nullptr;            // Sigma_e, column-major
  const double* w = nullptr;                // d: L_e' beta_e* in block e
  const double* bayes_dense = nullptr;      // d: the dense Bayes estimator (noisy Eq. 3)
  const double* bayes_sparse = nullptr;     // d: the per-expert Bayes estimators, stacked
  const double* p = nullptr;                // k
  double sigma2 = 1.0;
};

/// One trial's result (the fields of noisy::ExcessTrial).
struct NoisyExcessRow {
  double dense = 0.0, sparse = 0.0;
  int dense_fallback = 0, sparse_fallbacks = 0;
};

/// The CPU fallback for a problem the Cholesky rule rejects: X (rows x cols, column-major, leading
/// dimension rows) and y (rows) -> the minimum-norm least-squares beta (cols).
using MinNormFallback = void (*)(const double* X, int rows, int cols, const double* y, double* beta, void* ctx);

/// Device state kept across batches and sweep points: the cuBLAS and cuSOLVER handles and every
/// buffer (grown, never shrunk). Not thread-safe: one context per host thread.
class NoisyDeviceContext {
 public:
  explicit NoisyDeviceContext(double budget_bytes = 2.0 * 1024 * 1024 * 1024);
  ~NoisyDeviceContext();
  NoisyDeviceContext(const NoisyDeviceContext&) = delete;
  NoisyDeviceContext& operator=(const NoisyDeviceContext&) = delete;
  struct State;
  State& state() { return *state_; }
  /// Device memory one batch may use (sets the trials per batch; results depend on it only through
  /// cuBLAS's choice of kernel for a batch count, see docs/gpu.md, "W1 noisy sweep").
  double budget_bytes() const { return budget_; }

 private:
  std::unique_ptr<State> state_;
  double budget_;
};

/// Creates the context's CUDA context use, cuBLAS and cuSOLVER handles and synchronises: the one-time
/// initialisation, so that a caller can time the compute without it (moelab's W1 timing line).
void noisy_device_warmup(NoisyDeviceContext& ctx);

/// Excess risks of trials first .. first + trials - 1 of a sweep point (seed), whose allocations are
/// counts[t k + e] (t relative to `first`). Writes out[0 .. trials). `on_batch(done, ctx)` after each
/// batch (may be null). Throws std::runtime_error on a CUDA / cuBLAS / cuSOLVER failure (naming the
/// step), std::invalid_argument on a bad problem.
void noisy_excess_trials(NoisyDeviceContext& ctx, const NoisyModelView& m, int n, const int* counts, std::uint64_t seed,
                         std::uint64_t first, std::int64_t trials, double rcond_fallback, MinNormFallback fallback,
                         void* fallback_ctx, NoisyExcessRow* out, void (*on_batch)(std::int64_t done, void* ctx) = nullptr,
                         void* on_batch_ctx = nullptr);

/// The device designs of trials first .. first + trials - 1 (steps 1-2 only), copied back: X as
/// trials x (n x d column-major), y as trials x n. For the GPU test against draw_training_set.
void noisy_designs_to_host(NoisyDeviceContext& ctx, const NoisyModelView& m, int n, const int* counts, std::uint64_t seed,
                           std::uint64_t first, std::int64_t trials, double* X, double* y);

}  // namespace moelab::cuda
