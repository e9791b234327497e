// Host-only launcher for the Philox normal kernel (kernels/philox_normal.cu). No device code here:
// this header is included from plain C++ translation units (tests, library code).
//
// The kernel is the GPU sibling of moelab::RandomStream::normal (lib/moelab/core/distributions.hpp):
// the same (seed, tag, trial, draw index) address gives the same normal on host and device, up to
// a few ulps of difference between CUDA's and glibc's log/sin/cos.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace moelab::cuda {

/// True when the CUDA runtime reports at least one device. Never throws: a missing driver or
/// cudaGetDeviceCount failure means "no device".
bool device_available();

/// The kernel-image probe: cudaFuncGetAttributes on this file's kernel, which fails (e.g.
/// cudaErrorNoKernelImageForDevice) when the build holds no image the current device can run. Empty
/// when it succeeds; otherwise the CUDA error's name and text. Never throws. The GPU tests run it
/// after the decision of core/backend.hpp (cuda_device_usability), so a wrong decision shows.
std::string kernel_image_error();

/// Fills host_out[0..count) with RandomStream(seed, StreamTag{tag}, trial).normal(first + j),
/// j = 0..count-1, computed on the current CUDA device and copied back to the host.
/// Throws std::runtime_error (with cudaGetErrorString) on any CUDA failure.
void philox_normals_to_host(std::uint64_t seed, std::uint32_t tag, std::uint64_t trial, std::uint64_t first,
                            std::size_t count, double* host_out);

}  // namespace moelab::cuda
