// The CPU reference of the sequence trainer interface (sequence_trainer.hpp: train_step and
// sequence_loss of transformer.cpp on one SequenceTrainState, as the SRAVEN run called them before
// the interface existed) and the factory. The CUDA sibling is in sequence_trainer_cuda.cpp (the only
// file of this trainer that includes kernels/transformer.cuh).
#include "moelab/moe/sequence_trainer.hpp"

#include "moelab/core/backend_factory.hpp"
#include "moelab/moe/detail/cuda_sequence_trainer.hpp"

namespace moelab::moe {

namespace {

template <class S>
class CpuSequenceTrainer final : public SequenceTrainer<S> {
 public:
  using Mat = typename SequenceTrainer<S>::Mat;
  explicit CpuSequenceTrainer(const SequenceClassifier<S>& initial) : model_(initial) {}
  Backend backend() const override { return Backend::cpu; }
  void train_step(const SequenceBatch<S>& batch, const AdamWConfig& cfg) override {
    losses_.push_back(moe::train_step(model_, batch, cfg, st_));
  }
  std::int64_t steps() const override { return static_cast<std::int64_t>(losses_.size()); }
  const std::vector<double>& losses() override { return losses_; }
  double evaluate(const SequenceBatch<S>& batch, Mat& logits) override {
    const double loss = sequence_loss<S>(model_, batch, st_, nullptr);
    logits = st_.logits;
    return loss;
  }
  void parameters(SequenceClassifier<S>& model) override {
    model.block().params() = model_.block().params();
    model.block().ffn().params() = model_.block().ffn().params();
    model.readout() = model_.readout();
  }

 private:
  SequenceClassifier<S> model_;
  SequenceTrainState<S> st_;
  std::vector<double> losses_;
};

}  // namespace

template <class S>
std::unique_ptr<SequenceTrainer<S>> make_sequence_trainer(Backend backend, const SequenceClassifier<S>& initial, bool tf32) {
  if (backend == Backend::cpu) return std::make_unique<CpuSequenceTrainer<S>>(initial);
  require_cuda_backend("make_sequence_trainer");
  return detail::make_cuda_sequence_trainer<S>(initial, tf32);
}

template std::unique_ptr<SequenceTrainer<float>> make_sequence_trainer<float>(Backend, const SequenceClassifier<float>&, bool);
template std::unique_ptr<SequenceTrainer<double>> make_sequence_trainer<double>(Backend, const SequenceClassifier<double>&, bool);

}  // namespace moelab::moe
