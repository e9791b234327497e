// One training run of the sequence classifier (moe/transformer.hpp: a transformer block with an MoE
// FFN and a last-token read-out, trained by AdamW) behind one interface, with the CPU reference and
// the CUDA sibling (STYLE.md, "CUDA beside host code"; docs/gpu.md, "One shape"). The caller owns
// the data: it hands every step's batch, so the task's sampling and encoding (SRAVEN's, on the
// host) are the same for both backends. make_sequence_trainer picks the implementation for a
// resolved Backend: Backend::cpu is train_step / sequence_loss of transformer.hpp, unchanged;
// Backend::cuda runs detail/transformer_driver.hpp's step on the device (kernels/moe_layer.cu,
// TransformerDevice), its per-index code shared with the CPU emulation test
// (tests/moe/transformer_device_emulation_test.cpp). Same initial parameters and batches, so the
// device run agrees with the CPU run to float rounding.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/moe/transformer.hpp"

namespace moelab::moe {

template <class S>
class SequenceTrainer {
 public:
  using Mat = typename TransformerBlock<S>::Mat;
  virtual ~SequenceTrainer() = default;
  virtual Backend backend() const = 0;
  /// One AdamW step on `batch` (step number steps(): cfg's cosine schedule; all three parameter
  /// vectors, as train_step).
  virtual void train_step(const SequenceBatch<S>& batch, const AdamWConfig& cfg) = 0;
  virtual std::int64_t steps() const = 0;
  /// The training loss (before the update) of every step taken, in order (the CUDA trainer
  /// downloads the ones not yet read: synchronises).
  virtual const std::vector<double>& losses() = 0;
  /// The mean cross-entropy of the model on `batch` (sequence_loss without a gradient) and its
  /// logits (outputs x sequences) in `logits`.
  virtual double evaluate(const SequenceBatch<S>& batch, Mat& logits) = 0;
  /// The current parameters into `model` (the shape the trainer was made from).
  virtual void parameters(SequenceClassifier<S>& model) = 0;
};

/// The trainer for a resolved backend, starting from `initial`'s parameters with zero AdamW moments.
/// `tf32`: the CUDA trainer's float32 GEMMs in TF32 (the CPU ignores it). Backend::cuda where the CUDA
/// backend cannot run throws RuntimeFailure naming the reason and `--backend`
/// (core/backend_factory.hpp); a model the device path does not compute (an MoE gate other than the
/// softmax over the selected logits, adaptive routing) is refused with std::invalid_argument.
template <class S>
std::unique_ptr<SequenceTrainer<S>> make_sequence_trainer(Backend backend, const SequenceClassifier<S>& initial, bool tf32 = false);

}  // namespace moelab::moe
