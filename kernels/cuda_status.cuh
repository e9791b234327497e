// Host-side status checks shared by the kernels' launchers (*.cu only): cuBLAS and cuSOLVER statuses
// by name, and the launch check that names the kernel whose launch or execution failed.
#pragma once

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "device_memory.cuh"

namespace moelab::cuda {

/// Throws with the step's name and cuBLAS's own name and text for the status.
inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("moelab::cuda: ") + what + ": " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
}

/// cuSOLVER has no name function: the statuses its dense routines return, by name.
inline const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cuSOLVER status (unnamed)";
  }
}

inline void check_cusolver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw std::runtime_error(std::string("moelab::cuda: ") + what + ": " + cusolver_status_name(status) + " (" +
                             std::to_string(static_cast<int>(status)) + ")");
}

/// True when every launch is to be synchronised, so that a fault is reported under its kernel: a build
/// without NDEBUG, or MOELAB_CUDA_SYNC=1 in the environment (read once).
inline bool sync_each_launch() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char* v = std::getenv("MOELAB_CUDA_SYNC");
    return v != nullptr && std::string(v) == "1";
  }();
  return on;
#endif
}

/// After a kernel launch: the launch error, and (sync_each_launch) its execution error, both named.
inline void after_launch(const char* kernel) {
  check(cudaGetLastError(), (std::string(kernel) + " launch").c_str());
  if (sync_each_launch()) check(cudaDeviceSynchronize(), (std::string(kernel) + " execution").c_str());
}

}  // namespace moelab::cuda
