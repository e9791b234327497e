// Helpers shared by the benchmark programs (bench/bench_*.cpp): wall-clock timing and medians.
// Command lines are parsed with CLI11 in each program.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

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

}  // namespace moelab::bench
