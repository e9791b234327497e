// Philox normals on the device: the CUDA sibling of RandomStream::normal, used as a smoke test that
// the header-only RNG (lib/moelab/core/philox.hpp, distributions.hpp) compiles and agrees on device.
#include "philox_normal.cuh"

#include <stdexcept>

#include "device_memory.cuh"

#include "moelab/core/distributions.hpp"

namespace moelab::cuda {
namespace {

/// One thread per draw: out[j] = normal(first + j). Random access by counter, so no state is shared
/// between threads and the result does not depend on the launch configuration.
__global__ void philox_normal_kernel(RandomStream stream, std::uint64_t first, std::size_t count, double* out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride) {
    out[j] = stream.normal(first + j);
  }
}

}  // namespace

bool device_available() {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return false;
  }
  return n > 0;
}

std::string kernel_image_error() {
  cudaFuncAttributes attr{};
  const cudaError_t status = cudaFuncGetAttributes(&attr, philox_normal_kernel);
  if (status == cudaSuccess) return {};
  (void)cudaGetLastError();
  return std::string("cudaFuncGetAttributes(philox_normal_kernel): ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
}

void philox_normals_to_host(std::uint64_t seed, std::uint32_t tag, std::uint64_t trial, std::uint64_t first,
                            std::size_t count, double* host_out) {
  if (count == 0) return;
  if (host_out == nullptr) throw std::invalid_argument("moelab::cuda::philox_normals_to_host: host_out is null");
  DeviceBuffer<double> out(count);
  const RandomStream stream(seed, static_cast<StreamTag>(tag), trial);
  constexpr int kThreads = 256;
  // Grid capped so huge counts use the grid-stride loop rather than an oversized grid.
  const std::size_t blocks_needed = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < 65535 ? blocks_needed : 65535);
  philox_normal_kernel<<<blocks, kThreads>>>(stream, first, count, out.get());
  check(cudaGetLastError(), "philox_normal_kernel launch");
  check(cudaDeviceSynchronize(), "philox_normal_kernel execution");
  check(cudaMemcpy(host_out, out.get(), count * sizeof(double), cudaMemcpyDeviceToHost),
        "cudaMemcpy device->host");  // synchronous: also reports kernel execution errors
}

}  // namespace moelab::cuda
