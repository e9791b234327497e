// Host-side helpers shared by the kernels' launchers (*.cu only: includes the CUDA runtime header):
// error checks that throw with the runtime's message, and an RAII owner of device memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

// The host pass of every .cu unit must use the C++ units' instruction set (kernels/CMakeLists.txt).
#if defined(MOELAB_HOST_ARCH_CHECK) && !defined(__CUDA_ARCH__) && !defined(__FMA__)
#error "kernels: the .cu host pass lacks the C++ units' -march flags (MOELAB_ARCH_FLAGS): MOELAB_HD host code would differ"
#endif

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
  /// A destructor cannot throw: a failed cudaFree (a sticky error from an earlier fault, mostly) is
  /// printed to stderr with the runtime's message, so it is not lost.
  ~DeviceBuffer() {
    if (ptr_ == nullptr) return;
    const cudaError_t status = cudaFree(ptr_);
    if (status != cudaSuccess) std::fprintf(stderr, "moelab::cuda: cudaFree in ~DeviceBuffer: %s\n", cudaGetErrorString(status));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Reallocates (contents lost) when n exceeds the capacity. Always holds an allocation afterwards,
  /// even for n = 0 (a null pointer means "size query" to CUB's temporary-storage convention).
  void resize(std::size_t n) {
    if (ptr_ != nullptr && n <= capacity_) return;
    if (ptr_ != nullptr) {
      void* old = ptr_;
      ptr_ = nullptr;
      capacity_ = 0;
      check(cudaFree(old), "cudaFree (growing a device buffer)");
    }
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
