// The CUDA sibling of the spectra engine (spectra_engine.hpp): Eigen types to and from the launcher
// (kernels/spectra_eigen.cuh), one device context per host thread (cuBLAS / cuSOLVER handles and
// buffers created once, kept across calls and engines). The only file that includes the kernels'
// launcher header; in a build without CUDA its constructor refuses.
#include "moelab/config.hpp"
#include <algorithm>
#include <cmath>

#include "moelab/core/error.hpp"
#include "moelab/spectra/detail/cuda_spectra_engine.hpp"
#include "moelab/spectra/detail/matrix_draws_hd.hpp"

#if MOELAB_HAVE_CUDA
#include "kernels/spectra_eigen.cuh"
#endif

namespace moelab::spectra {

static_assert(static_cast<int>(EntryLaw::gaussian) == static_cast<int>(device::Law::gaussian) &&
                  static_cast<int>(EntryLaw::rademacher) == static_cast<int>(device::Law::rademacher) &&
                  static_cast<int>(EntryLaw::uniform) == static_cast<int>(device::Law::uniform),
              "the device numbers the entry laws as EntryLaw does");

#if MOELAB_HAVE_CUDA
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

class CudaSpectraEngine final : public SpectraEngine {
 public:
  explicit CudaSpectraEngine(DeviceEigenMethod method) : method_(method) {}
  Backend backend() const override { return Backend::cuda; }

  std::vector<Eigen::VectorXd> sample_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                                             std::uint64_t seed, std::uint64_t first_trial, int count) override {
    MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
    cuda::SpectraBatch b = batch(M, N, ell, Eigen::VectorXd(), sigma2, law, seed, first_trial, count);
    b.method = to_device(method_);
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

  Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                              std::uint64_t seed, std::uint64_t trial) override {
    MOELAB_EXPECT(signal_sv2.size() <= std::min(M, N), "more signal singular values than min(M, N)");
    cuda::SpectraBatch b = batch(M, N, {}, signal_sv2, sigma2, law, seed, trial, 1);
    b.method = cuda::EigenMethod::syevd_loop;  // one large matrix: Xsyevd whatever the engine's method
    const int n = device::gram_order(M, N);
    Eigen::VectorXd w(n);
    cuda::gram_eigenvalues_batched(context(), b, w.data());
    return Eigen::VectorXd(w.cwiseMax(0.0).reverse());  // the CPU: gram_eigenvalues (clamped), reversed
  }

  std::vector<Eigen::MatrixXd> matrices(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law, std::uint64_t seed,
                                        std::uint64_t first_trial, int count) override {
    MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
    const cuda::SpectraBatch b = batch(M, N, ell, Eigen::VectorXd(), sigma2, law, seed, first_trial, count);
    std::vector<double> y(static_cast<std::size_t>(M) * static_cast<std::size_t>(N) * static_cast<std::size_t>(count));
    cuda::matrices_to_host(context(), b, y.data());
    std::vector<Eigen::MatrixXd> out;
    for (int t = 0; t < count; ++t)
      out.emplace_back(Eigen::Map<const Eigen::MatrixXd>(y.data() + static_cast<std::size_t>(t) * M * N, M, N));
    return out;
  }

  bool concurrent_calls() const override { return true; }

 private:
  DeviceEigenMethod method_;
};

}  // namespace

namespace detail {
std::unique_ptr<SpectraEngine> make_cuda_spectra_engine(DeviceEigenMethod method) { return std::make_unique<CudaSpectraEngine>(method); }
}  // namespace detail

#else

namespace detail {
std::unique_ptr<SpectraEngine> make_cuda_spectra_engine(DeviceEigenMethod) {
  MOELAB_EXPECT(false, "make_spectra_engine(cuda): this moelab was built without CUDA");
  return nullptr;
}
}  // namespace detail

#endif

}  // namespace moelab::spectra
