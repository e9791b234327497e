// gpu_bench_spectra: timings of the device spectra (W3; bench/gpu_run.sh runs it next to
// the PyTorch / CuPy baselines of bench/gpu_baselines.py, same shapes). Eigenvalues of T Gram matrices
// X X' / N (X M x N Gaussian, drawn on the device) by each cuSOLVER method that applies, and one large
// information-plus-noise spectrum; wall clock around each call (the call ends with the copy of the
// eigenvalues to the host, so the device has finished), median of 3 after a warm-up call that creates
// the handles and buffers. Without a usable device it prints why and exits 0 (nothing to time).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/backend_probe.hpp"
#include "moelab/spectra/spectra_engine.hpp"

namespace sp = moelab::spectra;

namespace {

template <class F>
double median_seconds(F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < 3; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

const char* name(sp::DeviceEigenMethod m) {
  switch (m) {
    case sp::DeviceEigenMethod::jacobi_batched: return "syevjBatched";
    case sp::DeviceEigenMethod::syev_batched: return "XsyevBatched";
    case sp::DeviceEigenMethod::syevd_loop: return "Xsyevd-loop";
    case sp::DeviceEigenMethod::automatic: return "auto";
  }
  return "?";
}

}  // namespace

int main() {
  bool usable = false;
  const std::string report = moelab::cuda_backend_report(&usable);
  std::printf("# %s\n", report.c_str());
  if (!usable) {  // (never usable in a build without CUDA)
    std::printf("gpu_bench_spectra: skipped (no usable CUDA device or no CUDA build)\n");
    return 0;
  }
  struct Shape {
    int M, N, T;
  };
  for (const Shape s : {Shape{32, 64, 10000}, Shape{200, 400, 500}}) {
    for (const auto m : {sp::DeviceEigenMethod::jacobi_batched, sp::DeviceEigenMethod::syev_batched, sp::DeviceEigenMethod::syevd_loop}) {
      if (m == sp::DeviceEigenMethod::jacobi_batched && std::min(s.M, s.N) > 32) continue;
      // The loop makes one cuSOLVER call per matrix: timed over at most 500 matrices (rate per matrix).
      const int T = m == sp::DeviceEigenMethod::syevd_loop ? std::min(s.T, 500) : s.T;
      try {
        const auto engine = sp::make_spectra_engine(moelab::Backend::cuda, m);
        const double t = median_seconds([&] { (void)engine->sample_covariance_eigenvalues(s.M, s.N, {}, 1.0, sp::EntryLaw::gaussian, 1, 0, T); });
        std::printf("gpu_bench spectra M %d N %d trials %d method %s seconds_median %.4f matrices_per_second %.4g\n", s.M, s.N, T, name(m),
                    t, T / t);
      } catch (const std::exception& e) {
        std::printf("gpu_bench spectra M %d N %d trials %d method %s FAILED: %s\n", s.M, s.N, s.T, name(m), e.what());
      }
    }
  }
  try {
    Eigen::VectorXd sv2(1);
    sv2 << 9.0;
    const auto engine = sp::make_spectra_engine(moelab::Backend::cuda);
    const double t = median_seconds([&] { (void)engine->info_plus_noise_eigenvalues(4000, 8000, sv2, 1.0, sp::EntryLaw::gaussian, 1, 0); });
    std::printf("gpu_bench spectra info_plus_noise M 4000 N 8000 trials 1 method Xsyevd seconds_median %.4f\n", t);
  } catch (const std::exception& e) {
    std::printf("gpu_bench spectra info_plus_noise FAILED: %s\n", e.what());
  }
  return 0;
}
