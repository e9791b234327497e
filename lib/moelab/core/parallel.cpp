#include "moelab/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include <sys/resource.h>

#include "moelab/core/interrupt.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace moelab {

namespace {
int g_threads = 0;
}

int num_threads() {
#if defined(_OPENMP)
  return g_threads > 0 ? g_threads : std::min(omp_get_max_threads(), max_threads());
#else
  return 1;
#endif
}

void set_num_threads(int n) { g_threads = std::min(n, max_threads()); }

int max_threads() {
  static const int cap = [] {
    const long hw = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
    long m = std::min(4096L, 64 * hw);
#if defined(_OPENMP)
    m = std::min(m, static_cast<long>(omp_get_thread_limit()));
#endif
    std::ifstream f("/proc/sys/kernel/threads-max");
    long kernel = 0;
    if (f >> kernel && kernel > 0) m = std::min(m, kernel);
    rlimit r{};
    if (::getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      m = std::min(m, static_cast<long>(r.rlim_cur));
    return static_cast<int>(std::max(1L, m));
  }();
  return cap;
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body) {
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  const auto count = static_cast<long long>(n);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(num_threads())
#endif
  for (long long i = 0; i < count; ++i) {
    if (failed.load(std::memory_order_relaxed) || interrupted()) continue;
    try {
      body(static_cast<std::size_t>(i));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (error) std::rethrow_exception(error);
  check_interrupted();
}

}  // namespace moelab
