#include "moelab/core/parallel.hpp"

#include <atomic>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace moelab {

namespace {
int g_threads = 0;
}

int num_threads() {
#if defined(_OPENMP)
  return g_threads > 0 ? g_threads : omp_get_max_threads();
#else
  return 1;
#endif
}

void set_num_threads(int n) { g_threads = n; }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body) {
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  const auto count = static_cast<long long>(n);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(num_threads())
#endif
  for (long long i = 0; i < count; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      body(static_cast<std::size_t>(i));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace moelab
