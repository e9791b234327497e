// Host-only launcher for the transformer block's training on the device (kernels/moe_layer.cu, where
// the CUDA executor lives). No device code here: included from plain C++
// (lib/moelab/moe/sequence_trainer_cuda.cpp, tests/gpu/transformer_gpu_main.cpp).
//
// What runs on the device is lib/moelab/moe/detail/transformer_driver.hpp's step with the CUDA
// executor: the attention's per-index pieces (attention_kernels.hpp, one thread per (sequence,
// token)), LayerNorm per token, the projections, read-out and their gradients as cuBLAS GEMMs, the
// MoE FFN by moe_layer_driver.hpp's LayerRunner (top-k, CUB grouping, one GEMM per active expert),
// the cross-entropy in double, AdamW per parameter. One training run at a time; each step is a
// sequence of launches on one stream with two host synchronisations (the batch's upload and the
// MoE's group sizes). float32 GEMMs in full float32 unless `tf32`.
#pragma once

#include <cstdint>
#include <memory>

#include "moelab/moe/detail/moe_layer_hd.hpp"
#include "moelab/moe/detail/transformer_hd.hpp"

namespace moelab::cuda {

/// One sequence classifier (block + read-out) trained by AdamW on the device. S = float or double.
template <class S>
class TransformerDevice {
 public:
  TransformerDevice(const moe::hd::BlockDims& B, bool tf32);
  ~TransformerDevice();
  TransformerDevice(const TransformerDevice&) = delete;
  TransformerDevice& operator=(const TransformerDevice&) = delete;

  /// Parameters in BlockDims's flat order (host array of B.total); AdamW moments zeroed.
  void upload(const S* params);
  /// One AdamW step on the batch X (d x T n, host), labels (n x out_heads, host); its loss (before
  /// the update) is kept on the device in slot `slot` of a buffer of `slots` losses.
  void step(const S* X, const int* labels, int T, std::int64_t n, const moe::hd::AdamWScalars<S>& a, std::int64_t slot, std::int64_t slots);
  /// Losses of slots 0 .. count - 1 (synchronises).
  void download_losses(double* host, std::int64_t count);
  /// Mean cross-entropy of the batch (no update) and its logits (C x n) into `logits` (host).
  double evaluate(const S* X, const int* labels, int T, std::int64_t n, S* logits);
  /// Parameters (B.total) and, when non-null, the gradient of the last step.
  void download_params(S* params, S* grad);
  void synchronize();

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace moelab::cuda
