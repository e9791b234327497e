// Host side of the device spectra (spectra_cuda.hpp): Eigen types to and from the launcher
// (kernels/spectra_eigen.cuh), one device context per thread.
#include "moelab/spectra/spectra_cuda.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/error.hpp"
#include "moelab/spectra/matrix_draws_cuda.hpp"

#ifdef MOELAB_HAVE_CUDA
#include "kernels/spectra_eigen.cuh"
#endif

namespace moelab::spectra {

static_assert(static_cast<int>(EntryLaw::gaussian) == static_cast<int>(device::Law::gaussian) &&
                  static_cast<int>(EntryLaw::rademacher) == static_cast<int>(device::Law::rademacher) &&
                  static_cast<int>(EntryLaw::uniform) == static_cast<int>(device::Law::uniform),
              "the device numbers the entry laws as EntryLaw does");

#ifdef MOELAB_HAVE_CUDA
namespace {

cuda::SpectraDeviceContext& context() {
  thread_local cuda::SpectraDeviceContext ctx;
  return ctx;
}

cuda::SpectraBatch batch(int M, int N, const std::vector<double>& ell, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                         std::uint64_t seed, std::uint64_t first, int count) {
  MOELAB_EXPECT(M > 0 && N > 0 && count >= 0, "device spectra: M, N > 0 and count >= 0");
  MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
  cuda::SpectraBatch b;
  b.M = M;
  b.N = N;
  b.law = static_cast<int>(law);
  b.sigma2 = sigma2;
  b.seed = seed;
  b.first_trial = first;
  b.trials = count;
  for (const double l : ell) {
    MOELAB_EXPECT(l > 0.0, "spiked population eigenvalues must be positive");
    b.row_scale.push_back(std::sqrt(l));  // spiked_factor: Y.row(k) *= sqrt(ell_k)
  }
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) b.signal_sv.push_back(std::sqrt(signal_sv2(k)));
  return b;
}

cuda::EigenMethod to_device(DeviceEigenMethod m) {
  switch (m) {
    case DeviceEigenMethod::jacobi_batched: return cuda::EigenMethod::jacobi_batched;
    case DeviceEigenMethod::syev_batched: return cuda::EigenMethod::syev_batched;
    case DeviceEigenMethod::syevd_loop: return cuda::EigenMethod::syevd_loop;
    case DeviceEigenMethod::automatic: break;
  }
  return cuda::EigenMethod::automatic;
}

}  // namespace

bool spectra_cuda_built() { return true; }

std::vector<Eigen::VectorXd> sample_covariance_eigenvalues_cuda(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                                                std::uint64_t seed, std::uint64_t first_trial, int count,
                                                                DeviceEigenMethod method) {
  MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
  cuda::SpectraBatch b = batch(M, N, ell, Eigen::VectorXd(), sigma2, law, seed, first_trial, count);
  b.method = to_device(method);
  const int n = device::gram_order(M, N);
  std::vector<double> w(static_cast<std::size_t>(n) * static_cast<std::size_t>(count));
  cuda::gram_eigenvalues_batched(context(), b, w.data());
  std::vector<Eigen::VectorXd> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int t = 0; t < count; ++t) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(M);  // gram_eigenvalues: M - n exact zeros first
    e.tail(n) = Eigen::Map<const Eigen::VectorXd>(w.data() + static_cast<std::size_t>(t) * n, n).cwiseMax(0.0);
    out.push_back(std::move(e));
  }
  return out;
}

Eigen::VectorXd info_plus_noise_eigenvalues_cuda(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                                 std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(signal_sv2.size() <= std::min(M, N), "more signal singular values than min(M, N)");
  cuda::SpectraBatch b = batch(M, N, {}, signal_sv2, sigma2, law, seed, trial, 1);
  b.method = cuda::EigenMethod::syevd_loop;
  const int n = device::gram_order(M, N);
  Eigen::VectorXd w(n);
  cuda::gram_eigenvalues_batched(context(), b, w.data());
  return Eigen::VectorXd(w.cwiseMax(0.0).reverse());  // the CPU: gram_eigenvalues (clamped), reversed
}

std::vector<Eigen::MatrixXd> ensemble_matrices_cuda(int M, int N, const std::vector<double>& ell, const Eigen::VectorXd& signal_sv2,
                                                    double sigma2, EntryLaw law, std::uint64_t seed, std::uint64_t first_trial, int count) {
  const cuda::SpectraBatch b = batch(M, N, ell, signal_sv2, sigma2, law, seed, first_trial, count);
  std::vector<double> y(static_cast<std::size_t>(M) * static_cast<std::size_t>(N) * static_cast<std::size_t>(count));
  cuda::matrices_to_host(context(), b, y.data());
  std::vector<Eigen::MatrixXd> out;
  for (int t = 0; t < count; ++t)
    out.emplace_back(Eigen::Map<const Eigen::MatrixXd>(y.data() + static_cast<std::size_t>(t) * M * N, M, N));
  return out;
}

#else

bool spectra_cuda_built() { return false; }

std::vector<Eigen::VectorXd> sample_covariance_eigenvalues_cuda(int, int, const std::vector<double>&, double, EntryLaw, std::uint64_t,
                                                                std::uint64_t, int, DeviceEigenMethod) {
  MOELAB_EXPECT(false, "sample_covariance_eigenvalues_cuda: this moelab was built without CUDA");
  return {};
}
Eigen::VectorXd info_plus_noise_eigenvalues_cuda(int, int, const Eigen::VectorXd&, double, EntryLaw, std::uint64_t, std::uint64_t) {
  MOELAB_EXPECT(false, "info_plus_noise_eigenvalues_cuda: this moelab was built without CUDA");
  return {};
}
std::vector<Eigen::MatrixXd> ensemble_matrices_cuda(int, int, const std::vector<double>&, const Eigen::VectorXd&, double, EntryLaw,
                                                    std::uint64_t, std::uint64_t, int) {
  MOELAB_EXPECT(false, "ensemble_matrices_cuda: this moelab was built without CUDA");
  return {};
}

#endif

}  // namespace moelab::spectra
