// Internal: the CUDA implementation's constructor, defined in ensemble_cuda.cpp (the file that includes
// the kernels' launcher header); make_ensemble_trainer calls it. Not installed.
#pragma once

#include <memory>
#include <vector>

#include "moelab/moe/ensemble_trainer.hpp"

namespace moelab::moe::detail {
/// An adapter over EnsembleCuda<S>; throws RuntimeFailure in a build without CUDA (its constructor).
template <class S>
std::unique_ptr<EnsembleTrainer<S>> make_cuda_ensemble_trainer(const std::vector<TrainConfig>& runs, bool tf32);
}
