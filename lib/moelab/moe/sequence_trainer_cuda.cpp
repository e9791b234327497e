// The CUDA sibling of the sequence trainer (sequence_trainer.hpp): one training run on the device
// through kernels/moe_layer.cu's TransformerDevice (detail/transformer_driver.hpp's step with the CUDA
// executor). The host samples and encodes every batch as the CPU run does and uploads it; the losses
// stay on the device until read (in chunks of kLossChunk steps), so a step waits for the device only
// at its batch's upload and at the MoE's group sizes.
#include "moelab/config.hpp"

#include <algorithm>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/detail/cuda_sequence_trainer.hpp"
#include "moelab/moe/detail/transformer_host.hpp"

#if MOELAB_HAVE_CUDA
#include "kernels/transformer.cuh"
#endif

namespace moelab::moe {

namespace {

#if MOELAB_HAVE_CUDA

constexpr std::int64_t kLossChunk = 4096;  // losses kept on the device between downloads (32 KiB)

template <class S>
class CudaSequenceTrainer final : public SequenceTrainer<S> {
 public:
  using Mat = typename SequenceTrainer<S>::Mat;
  CudaSequenceTrainer(const SequenceClassifier<S>& initial, bool tf32) : B_(block_dims(initial)) {
    if (!cuda_backend_available()) throw RuntimeFailure("CudaSequenceTrainer: no usable CUDA device");
    dev_ = std::make_unique<cuda::TransformerDevice<S>>(B_, tf32);
    const std::vector<S> theta = pack_sequence_params(initial);
    dev_->upload(theta.data());
  }
  Backend backend() const override { return Backend::cuda; }
  void train_step(const SequenceBatch<S>& batch, const AdamWConfig& cfg) override {
    check_batch(batch);
    dev_->step(batch.X.data(), batch.labels.data(), batch.T, batch.sequences(), adamw_scalars<S>(cfg, steps_), steps_ % kLossChunk, kLossChunk);
    ++steps_;
    if (steps_ % kLossChunk == 0) read_losses();  // the chunk is full: read it before its slots are reused
  }
  std::int64_t steps() const override { return steps_; }
  const std::vector<double>& losses() override {
    read_losses();
    return losses_;
  }
  double evaluate(const SequenceBatch<S>& batch, Mat& logits) override {
    check_batch(batch);
    logits.resize(B_.C(), batch.sequences());
    return dev_->evaluate(batch.X.data(), batch.labels.data(), batch.T, batch.sequences(), logits.data());
  }
  void parameters(SequenceClassifier<S>& model) override {
    std::vector<S> theta(static_cast<std::size_t>(B_.total));
    dev_->download_params(theta.data(), nullptr);
    unpack_sequence_params(theta.data(), model);
  }

 private:
  void check_batch(const SequenceBatch<S>& b) const {
    MOELAB_EXPECT(b.X.rows() == B_.d && b.T >= 1 && b.X.cols() % b.T == 0 && b.sequences() >= 1, "CudaSequenceTrainer: X must be d x (T n)");
    MOELAB_EXPECT(static_cast<std::int64_t>(b.labels.size()) == static_cast<std::int64_t>(b.sequences()) * B_.out_heads,
                  "CudaSequenceTrainer: one label per sequence and head");
    for (int l : b.labels) MOELAB_EXPECT(l >= 0 && l < B_.classes, "CudaSequenceTrainer: label out of range");
  }
  /// Appends the losses of the steps not yet read (all in the current chunk).
  void read_losses() {
    const auto have = static_cast<std::int64_t>(losses_.size());
    if (have == steps_) return;
    const std::int64_t first = have % kLossChunk, count = steps_ - have;
    std::vector<double> chunk(static_cast<std::size_t>(first + count));
    dev_->download_losses(chunk.data(), first + count);
    losses_.insert(losses_.end(), chunk.begin() + first, chunk.end());
  }

  hd::BlockDims B_;
  std::unique_ptr<cuda::TransformerDevice<S>> dev_;
  std::int64_t steps_ = 0;
  std::vector<double> losses_;
};

#endif

}  // namespace

namespace detail {
template <class S>
std::unique_ptr<SequenceTrainer<S>> make_cuda_sequence_trainer(const SequenceClassifier<S>& initial, bool tf32) {
#if MOELAB_HAVE_CUDA
  return std::make_unique<CudaSequenceTrainer<S>>(initial, tf32);
#else
  (void)initial, (void)tf32;
  throw RuntimeFailure("CudaSequenceTrainer: moelab was built without the CUDA backend (configure with -DMOELAB_CUDA=ON)");
#endif
}
template std::unique_ptr<SequenceTrainer<float>> make_cuda_sequence_trainer<float>(const SequenceClassifier<float>&, bool);
template std::unique_ptr<SequenceTrainer<double>> make_cuda_sequence_trainer<double>(const SequenceClassifier<double>&, bool);
}  // namespace detail

}  // namespace moelab::moe
