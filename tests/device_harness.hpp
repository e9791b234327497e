// The one test harness of the CUDA siblings (docs/gpu.md, "One shape"): what every topic's device
// tests share, whether they run the kernels (tests/gpu/*_gpu_main.cpp, behind gpu_main.hpp's gate) or
// emulate them on the CPU (tests/<topic>/*_device_test.cpp, *emulation_test.cpp):
//   - backend_present / both_backends: the engines of a topic's factory for the CPU reference and
//     the device, skipping (with a WARN) where no device is usable;
//   - max_abs_difference / max_relative_difference: the CPU-vs-device comparisons, each test stating
//     its own tolerance next to the call (the harness computes the difference, never the bound);
//   - poisoned / kPoisonIndex and for_each_index: the emulation executor's buffers and loop (device
//     buffers start as NaN / -1, so a step that reads what no step wrote shows; indices run in
//     reverse, so a kernel whose result depended on thread order would differ from the device's).
// Header-only; no CUDA include, so the CPU tests compile it in every build.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "moelab/core/backend.hpp"

namespace moelab::test {

// ---- backends ----

/// True for the CPU, and for CUDA where a usable device exists (cuda_backend_available); otherwise a
/// WARN says the case is skipped (a CPU test's device branch; GPU executables are gated as a whole).
inline bool backend_present(Backend b) {
  if (b == Backend::cpu || cuda_backend_available()) return true;
  WARN("CUDA backend not available (no CUDA build or no device): the cuda case is skipped");
  return false;
}

/// The CPU reference and the device engine of one topic, both from its factory (make(Backend)).
template <class Engine>
struct BackendPair {
  std::unique_ptr<Engine> cpu, device;
};
template <class Make>
auto both_backends(const Make& make) {
  using Engine = typename decltype(make(Backend::cpu))::element_type;
  BackendPair<Engine> p{make(Backend::cpu), make(Backend::cuda)};
  REQUIRE(p.cpu->backend() == Backend::cpu);
  REQUIRE(p.device->backend() == Backend::cuda);
  return p;
}

// ---- comparisons (the tolerance is the caller's, stated beside the CHECK) ----

/// max |a_i - b_i| over two Eigen objects of one shape; NaN when either holds a NaN (so an unwritten
/// element fails every `<` bound).
template <class A, class B>
double max_abs_difference(const Eigen::DenseBase<A>& a, const Eigen::DenseBase<B>& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return static_cast<double>((a.derived() - b.derived()).cwiseAbs().maxCoeff());
}

/// max_i |a_i - b_i| / max(|b_i|, floor): the device value a against the reference b.
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b, double floor = 0.0) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double e = std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), floor);
    if (!(e <= worst)) worst = e;  // a NaN sticks
  }
  return worst;
}

// ---- the emulation executor ----

/// The value an emulated device buffer starts from: NaN for floating point, -1 for integers.
template <class T>
T poison_value() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(-1);
  else return T{};
}

/// n elements of poison_value<T>(): an emulated device allocation.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n, poison_value<T>());
}

/// One kernel launch of n independent threads, emulated: f(i) for i = n - 1 down to 0 (the device runs
/// them in any order; the kernels write disjoint outputs, so the order must not matter).
template <class F>
void for_each_index(std::int64_t n, const F& f) {
  for (std::int64_t i = n - 1; i >= 0; --i) f(i);
}

}  // namespace moelab::test
