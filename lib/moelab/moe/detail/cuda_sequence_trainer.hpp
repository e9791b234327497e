// Internal: the CUDA sibling's constructor, defined in sequence_trainer_cuda.cpp (the file that
// includes the kernels' launcher header); make_sequence_trainer calls it. Not installed.
#pragma once

#include <memory>

#include "moelab/moe/sequence_trainer.hpp"

namespace moelab::moe::detail {
/// The device trainer; throws RuntimeFailure in a build without CUDA.
template <class S>
std::unique_ptr<SequenceTrainer<S>> make_cuda_sequence_trainer(const SequenceClassifier<S>& initial, bool tf32);
}
