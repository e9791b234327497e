// The CPU reference of the spectra engine (spectra_engine.hpp) and the factory. The CUDA sibling
// lives in spectra_engine_cuda.cpp, the only file that includes the kernels' launcher header.
#include "moelab/spectra/spectra_engine.hpp"

#include <cmath>

#include "moelab/core/backend_factory.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/spectra/detail/cuda_spectra_engine.hpp"

namespace moelab::spectra {

namespace {

/// ensembles.hpp's Sampler::entries path trial by trial (every entry drawn, as the device draws it).
class CpuSpectraEngine final : public SpectraEngine {
 public:
  Backend backend() const override { return Backend::cpu; }
  std::vector<Eigen::VectorXd> sample_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                                             std::uint64_t seed, std::uint64_t first_trial, int count) override {
    MOELAB_EXPECT(count >= 0, "SpectraEngine: count >= 0");
    std::vector<Eigen::VectorXd> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int t = 0; t < count; ++t)
      out.push_back(spectra::sample_covariance_eigenvalues(M, N, ell, sigma2, law, seed, first_trial + static_cast<std::uint64_t>(t),
                                                           Sampler::entries));
    return out;
  }
  Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                              std::uint64_t seed, std::uint64_t trial) override {
    return spectra::info_plus_noise_eigenvalues(M, N, signal_sv2, sigma2, law, seed, trial, Sampler::entries);
  }
  std::vector<Eigen::MatrixXd> matrices(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law, std::uint64_t seed,
                                        std::uint64_t first_trial, int count) override {
    MOELAB_EXPECT(M > 0 && N > 0 && count >= 0, "SpectraEngine: M, N > 0 and count >= 0");
    MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
    MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
    std::vector<Eigen::MatrixXd> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int t = 0; t < count; ++t) {
      // ensembles.cpp's spiked factor: rows of the spikes scaled by sqrt(ell_k), then sqrt(sigma2 / N).
      Eigen::MatrixXd Y = iid_matrix(M, N, law, seed, StreamTag::design_noise, first_trial + static_cast<std::uint64_t>(t));
      for (std::size_t k = 0; k < ell.size(); ++k) {
        MOELAB_EXPECT(ell[k] > 0.0, "spiked population eigenvalues must be positive");
        Y.row(static_cast<Eigen::Index>(k)) *= std::sqrt(ell[k]);
      }
      Y *= std::sqrt(sigma2 / N);
      out.push_back(std::move(Y));
    }
    return out;
  }
  bool concurrent_calls() const override { return true; }
};

}  // namespace

std::unique_ptr<SpectraEngine> make_spectra_engine(Backend backend, DeviceEigenMethod method) {
  if (backend == Backend::cpu) return std::make_unique<CpuSpectraEngine>();
  require_cuda_backend("make_spectra_engine");
  return detail::make_cuda_spectra_engine(method);
}

}  // namespace moelab::spectra
