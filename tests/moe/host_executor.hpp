// The CPU executor of the device layer's step sequence (lib/moelab/moe/detail/moe_layer_driver.hpp),
// built on the common harness's poison and loop (tests/device_harness.hpp): every device kernel is the same moe_layer_hd.hpp functor in a loop, cuBLAS is Eigen on the same
// pointers and leading dimensions, CUB's stable radix sort is std::stable_sort. Buffers are poisoned
// (NaN / -1) whenever they grow, so a step that reads what no step wrote shows up. Shared by the
// emulation tests (tests/moe) and the TF32 tolerance test (tests/gpu), which replaces the GEMM.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "device_harness.hpp"

namespace moelab::test {

/// The CPU executor: what each device step computes, element by element.
struct HostExec {
  template <class T>
  struct Buffer {
    mutable std::vector<T> v;
    void resize(std::size_t n) {
      if (n <= v.size() && !v.empty()) return;
      // Growing loses the contents (as DeviceBuffer); fill with poison instead of zeros.
      v.assign(std::max<std::size_t>(n, 1), poison_value<T>());  // device_harness.hpp
      ++growths();
    }
    T* get() const { return v.data(); }
  };
  /// Buffer growths so far (all executors): a recorded device step must allocate nothing.
  static std::int64_t& growths() {
    static std::int64_t count = 0;
    return count;
  }
  int gemms = 0;
  std::int64_t for_each_launches = 0;
  std::int64_t transfers = 0;  // upload + download calls (host round trips of the device)

  template <class F>
  void for_each(std::int64_t n, const F& f) {
    ++for_each_launches;
    // Reverse order (device_harness.hpp): a step whose result depended on the order of its indices
    // would differ from the device's (which runs them in any order); the functors write disjoint outputs.
    for_each_index(n, f);
  }
  template <class S>
  void gemm(bool ta, bool tb, int m, int n, int k, const S* A, int lda, const S* B, int ldb, S* C, int ldc) {
    using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
    using St = Eigen::OuterStride<>;
    REQUIRE(lda >= (ta ? k : m));
    REQUIRE(ldb >= (tb ? n : k));
    REQUIRE(ldc >= m);
    ++gemms;
    Eigen::Map<const M, 0, St> a(A, ta ? k : m, ta ? m : k, St(lda)), b(B, tb ? n : k, tb ? k : n, St(ldb));
    Eigen::Map<M, 0, St> c(C, m, n, St(ldc));
    if (!ta && !tb) c.noalias() = a * b;
    else if (ta && !tb) c.noalias() = a.transpose() * b;
    else if (!ta && tb) c.noalias() = a * b.transpose();
    else c.noalias() = a.transpose() * b.transpose();
  }
  /// The batched GEMM (cublasGemmBatchedEx): C[i] = op(A[i]) op(B[i]), one GEMM per entry.
  template <class S>
  void gemm_batched(bool ta, bool tb, int m, int n, int k, const S* const* A, int lda, const S* const* B, int ldb, S* const* C, int ldc,
                    int count) {
    for (int i = 0; i < count; ++i) gemm(ta, tb, m, n, k, A[i], lda, B[i], ldb, C[i], ldc);
  }
  template <class T>
  void zero(T* p, std::int64_t n) {
    std::fill(p, p + n, T(0));
  }
  void sort_pairs(const int* keys, int* keys_out, const int* vals, int* vals_out, std::int64_t n, int end_bit) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
    std::iota(idx.begin(), idx.end(), std::int64_t{0});
    for (std::int64_t i = 0; i < n; ++i) REQUIRE((keys[i] >= 0 && keys[i] < (1 << end_bit)));  // radix sort sees end_bit bits only
    std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] < keys[b]; });
    for (std::int64_t p = 0; p < n; ++p) keys_out[p] = keys[idx[static_cast<std::size_t>(p)]], vals_out[p] = vals[idx[static_cast<std::size_t>(p)]];
  }
  template <class T>
  void upload(T* dst, const T* host, std::int64_t n) {
    ++transfers;
    std::copy(host, host + n, dst);
  }
  template <class T>
  void download(T* host, const T* src, std::int64_t n) {
    ++transfers;
    std::copy(src, src + n, host);
  }
};

}  // namespace moelab::test
