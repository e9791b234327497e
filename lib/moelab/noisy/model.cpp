#include "moelab/noisy/model.hpp"

#include "moelab/core/error.hpp"

namespace moelab::noisy {

int Model::d() const {
  int d = 0;
  for (const auto& s : sigma) d += static_cast<int>(s.rows());
  return d;
}

int Model::offset(int i) const {
  int o = 0;
  for (int j = 0; j < i; ++j) o += block_size(j);
  return o;
}

Eigen::VectorXd Model::beta_full() const {
  Eigen::VectorXd b(d());
  for (int i = 0; i < k(); ++i) b.segment(offset(i), block_size(i)) = beta_star[static_cast<std::size_t>(i)];
  return b;
}

void Model::check_consistent() const {
  MOELAB_EXPECT(!sigma.empty(), "model has no experts");
  MOELAB_EXPECT(p.size() == sigma.size() && beta_star.size() == sigma.size(), "model block counts differ");
  for (std::size_t i = 0; i < sigma.size(); ++i) {
    MOELAB_EXPECT(sigma[i].rows() == sigma[i].cols(), "Sigma_i not square");
    MOELAB_EXPECT(beta_star[i].size() == sigma[i].rows(), "beta_i* length differs from block size");
  }
  MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
}

}  // namespace moelab::noisy
