// Internal: the CUDA sibling's constructor, defined in excess_engine_cuda.cpp (the only file that
// includes the kernels' launcher header); make_excess_risk_engine calls it. Not installed.
#pragma once

#include <memory>

#include "moelab/noisy/excess_engine.hpp"

namespace moelab::noisy::detail {
/// Throws (MOELAB_EXPECT) in a build without CUDA.
std::unique_ptr<ExcessRiskEngine> make_cuda_excess_risk_engine(double device_budget_bytes);
}
