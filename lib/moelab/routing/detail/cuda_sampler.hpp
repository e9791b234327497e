// Internal: the CUDA sibling's constructor, defined in region_mass_sampler_cuda.cpp (the only file
// that includes the kernels' launcher header). Not installed.
#pragma once

#include <memory>

#include "moelab/routing/region_mass_sampler.hpp"

namespace moelab::routing::detail {
std::unique_ptr<RegionMassSampler> make_cuda_region_mass_sampler();
}
