// Host-side helpers shared by the kernels' launchers (*.cu only: includes the CUDA runtime header):
// error checks that throw with the runtime's message, and an RAII owner of device memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace moelab::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("moelab::cuda: ") + what + ": " + cudaGetErrorString(status));
}

/// RAII owner of a device allocation of n objects of trivially copyable T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Reallocates (contents lost) when n exceeds the capacity. Always holds an allocation afterwards,
  /// even for n = 0 (a null pointer means "size query" to CUB's temporary-storage convention).
  void resize(std::size_t n) {
    if (ptr_ != nullptr && n <= capacity_) return;
    cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
    const std::size_t alloc = n > 0 ? n : 1;
    check(cudaMalloc(reinterpret_cast<void**>(&ptr_), alloc * sizeof(T)), "cudaMalloc");
    capacity_ = alloc;
  }
  T* get() const { return ptr_; }
  std::size_t capacity() const { return capacity_; }
  void upload(const T* host, std::size_t n) {
    resize(n);
    check(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy host->device");
  }

 private:
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace moelab::cuda
