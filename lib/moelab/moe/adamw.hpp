// AdamW (Loshchilov & Hutter 2019: decoupled weight decay) with a cosine learning-rate schedule,
// written as torch.optim.AdamW computes it, elementwise (bit-identical for any thread count).
//   lr_t  = lr (f + (1 - f) (1 + cos(pi t / T)) / 2),  t = 0 .. T-1 (the step being taken), f = final fraction
//   theta <- theta (1 - lr_t wd)
//   m <- b1 m + (1 - b1) g,  v <- b2 v + (1 - b2) g^2
//   theta <- theta - (lr_t / (1 - b1^(t+1))) m / (sqrt(v) / sqrt(1 - b2^(t+1)) + eps)
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace moelab::moe {

struct AdamWConfig {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double final_lr_fraction = 0.0;  // the cosine ends at lr * final_lr_fraction
  std::int64_t total_steps = 1;    // T of the cosine
};

/// The learning rate of step t (0-based) under cosine decay over cfg.total_steps.
double cosine_lr(const AdamWConfig& cfg, std::int64_t t);

template <class S>
struct AdamWState {
  Eigen::Matrix<S, Eigen::Dynamic, 1> m, v;  // first and second moments
  std::int64_t step = 0;                     // steps taken
  void reset(Eigen::Index n) {
    m.setZero(n);
    v.setZero(n);
    step = 0;
  }
};

/// One AdamW step on theta with gradient g; advances state.step.
template <class S>
void adamw_update(Eigen::Matrix<S, Eigen::Dynamic, 1>& theta, const Eigen::Matrix<S, Eigen::Dynamic, 1>& g, AdamWState<S>& state,
                  const AdamWConfig& cfg);

}  // namespace moelab::moe
