// The one parallel loop of moelab: OpenMP across Monte-Carlo trials, Eigen single-threaded inside.
// Results are stored per index and reduced by the caller in index order, so every output is
// bit-identical for any thread count (DESIGN.md, Conventions: RNG).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace moelab {

/// Number of threads parallel_for will use (OMP_NUM_THREADS or set_num_threads).
int num_threads();
/// Override the thread count for subsequent loops (0 = OpenMP default); n <= max_threads().
void set_num_threads(int n);
/// The most threads a loop may ask for: what this process can create, i.e. the smallest of 64 per
/// hardware thread, 4096, OMP_THREAD_LIMIT, the kernel's threads-max and RLIMIT_NPROC. Asking the
/// OpenMP runtime for more makes it abort the process when thread creation fails (65536
/// threads), so every thread count read from input is checked against this first.
int max_threads();

/// Runs body(i) for i in [0, n) in parallel (dynamic schedule). The first exception thrown by
/// any body is rethrown on the calling thread after the loop; the remaining iterations are skipped.
/// After SIGINT/SIGTERM the remaining iterations are skipped too and Interrupted is thrown.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body);

/// parallel_for that stores body(i) at out[i]; reduce the vector in order afterwards.
template <class T, class F>
std::vector<T> parallel_map(std::size_t n, F&& body) {
  std::vector<T> out(n);
  parallel_for(n, [&](std::size_t i) { out[i] = body(i); });
  return out;
}

}  // namespace moelab
