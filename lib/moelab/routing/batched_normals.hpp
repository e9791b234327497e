// Standard normals of a Philox stream in bulk for the routing-region Monte-Carlo (region_masses.cpp):
// the one CPU bulk generator of core/distributions.hpp (moelab::fill_normal_blocks: the same draws
// as RandomStream::normal to rounding, |difference| <= 2e-14, tests/routing/batched_normals_test.cpp),
// under the names the routing code and its tests use. (Until a review this folder had its
// own copy of the kernel; the arithmetic kept is this one's, so the routing CSVs keep their bytes.)
#pragma once

#include "moelab/core/distributions.hpp"

namespace moelab::routing {

using moelab::fill_normal_blocks;
using moelab::polynomial_log;
using moelab::polynomial_sincos_2pi;

}  // namespace moelab::routing
