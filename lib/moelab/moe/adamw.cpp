#include "moelab/moe/adamw.hpp"

#include <cmath>

#include "moelab/core/error.hpp"

namespace moelab::moe {

double cosine_lr(const AdamWConfig& cfg, std::int64_t t) {
  const double T = static_cast<double>(cfg.total_steps);
  const double x = std::min(1.0, static_cast<double>(t) / T);
  constexpr double pi = 3.14159265358979323846;
  return cfg.lr * (cfg.final_lr_fraction + (1.0 - cfg.final_lr_fraction) * 0.5 * (1.0 + std::cos(pi * x)));
}

template <class S>
void adamw_update(Eigen::Matrix<S, Eigen::Dynamic, 1>& theta, const Eigen::Matrix<S, Eigen::Dynamic, 1>& g, AdamWState<S>& st,
                  const AdamWConfig& cfg) {
  MOELAB_EXPECT(theta.size() == g.size(), "adamw_update: gradient size differs");
  if (st.m.size() != theta.size()) st.reset(theta.size());
  const double lr = cosine_lr(cfg, st.step);
  const double t = static_cast<double>(st.step + 1);
  const S decay = static_cast<S>(1.0 - lr * cfg.weight_decay);
  const S b1 = static_cast<S>(cfg.beta1), b2 = static_cast<S>(cfg.beta2);
  const S step_size = static_cast<S>(lr / (1.0 - std::pow(cfg.beta1, t)));
  const S sqrt_bc2 = static_cast<S>(std::sqrt(1.0 - std::pow(cfg.beta2, t)));
  const S eps = static_cast<S>(cfg.eps);
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    theta[i] *= decay;
    st.m[i] = b1 * st.m[i] + (S(1) - b1) * g[i];
    st.v[i] = b2 * st.v[i] + (S(1) - b2) * g[i] * g[i];
    theta[i] -= step_size * st.m[i] / (std::sqrt(st.v[i]) / sqrt_bc2 + eps);
  }
  ++st.step;
}

template void adamw_update<float>(Eigen::VectorXf&, const Eigen::VectorXf&, AdamWState<float>&, const AdamWConfig&);
template void adamw_update<double>(Eigen::VectorXd&, const Eigen::VectorXd&, AdamWState<double>&, const AdamWConfig&);

}  // namespace moelab::moe
