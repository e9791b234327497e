// Helpers shared by the benchmark programs (bench/bench_*.cpp): wall-clock timing and medians.
// Command lines are parsed with CLI11 in each program.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include <Eigen/Dense>

namespace moelab::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Median of the repetitions (the reported time: robust to one slow repetition).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// GFLOP/s of Eigen's C = A B (A r x c, B c x n, scalar S), repeated until `min_seconds` have passed,
/// one thread: the rate of the library's own products, the benchmarks' hardware reference.
template <class S>
double gemm_rate(int r, int c, int n, double min_seconds) {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const M A = M::Random(r, c), B = M::Random(c, n);
  M C(r, n);
  C.noalias() = A * B;  // warm-up
  int reps = 0;
  const auto t0 = Clock::now();
  double s = 0.0;
  do {
    C.noalias() = A * B;
    ++reps;
    s = seconds_since(t0);
  } while (s < min_seconds);
  return 2.0 * r * c * n * reps / s / 1e9 + 0.0 * static_cast<double>(C(0, 0));
}

}  // namespace moelab::bench
