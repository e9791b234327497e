#include "moelab/spectra/empirical.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"

namespace moelab::spectra {

Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                            std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(signal_sv2.size() <= std::min(M, N), "more signal singular values than min(M, N)");
  Eigen::MatrixXd S(M, N);
  RandomStream(seed, StreamTag::design_noise, trial)
      .fill_normal(0, static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N), S.data());
  S *= std::sqrt(sigma2 / N);
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) S(k, k) += std::sqrt(signal_sv2(k));
  // The smaller Gram matrix carries all possibly-nonzero eigenvalues.
  const Eigen::MatrixXd G = M >= N ? Eigen::MatrixXd(S.transpose() * S) : Eigen::MatrixXd(S * S.transpose());
  Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G, Eigen::EigenvaluesOnly).eigenvalues();
  std::sort(ev.data(), ev.data() + ev.size(), std::greater<double>());
  return ev;
}

}  // namespace moelab::spectra
