// Internal: the CUDA sibling's constructor, defined in spectra_engine_cuda.cpp (the only file that
// includes the kernels' launcher header); make_spectra_engine calls it. Not installed.
#pragma once

#include <memory>

#include "moelab/spectra/spectra_engine.hpp"

namespace moelab::spectra::detail {
/// Throws (MOELAB_EXPECT) in a build without CUDA.
std::unique_ptr<SpectraEngine> make_cuda_spectra_engine(DeviceEigenMethod method);
}
