// The noisy paper's App. B.3 (Tables 2 and 3) on trained models: a dense model and a correctly
// routed MoE (oracle routing: expert z reads only its block of the noisy features, the sparse
// estimator of Eq. 3) trained on the same noisy data with a perfect modular structure
// (modular_task.hpp), then evaluated on fresh test inputs with feature noise sigma (as in training)
// and without (clean). Table 2: single-layer linear regression (MSE, robustness drop = MSE with
// noise - clean MSE); Table 3: two-layer ReLU classification (accuracy, drop = clean accuracy -
// accuracy with noise). Training: online (fresh samples every step), AdamW + cosine decay, MSE or
// softmax cross-entropy, float64; the dense and the MoE model see the same batches (paired).
//
// Linear case, closed form: with online training both linear models approach the Bayes estimators
// of Eq. 3, whose risks at test noise sigma_o^2 are Theorem 3's (noisy/theorems.hpp, exact for this
// model: docs/errata.md keeps only its sufficient condition); "with noise" is sigma_o^2 = sigma^2
// (Theorem 2), "clean" sigma_o^2 = 0, so the drop is sigma^2 times Theorem 3's slope in sigma_o^2.
#pragma once

#include <cstdint>

#include "moelab/core/keys.hpp"
#include "moelab/moe/modular_task.hpp"

namespace moelab::moe {

struct RobustnessSpec {
  ModularTask task;        // classes = 0: Table 2 (linear regression); >= 2: Table 3 (ReLU classification)
  int expert_width = 16;   // classification: width of each MoE expert (biases on); the dense MLP is iso-parameter
  double sigma = 0.1;      // feature-noise standard deviation (training and the noisy test)
  std::int64_t steps = 2000;
  std::int64_t batch = 256;
  double lr = 1e-2;
  std::int64_t test_size = 16384;
};

struct RobustnessRun {
  // Regression: test MSE; classification: test accuracy in [0, 1].
  double dense_noisy = 0, dense_clean = 0, moe_noisy = 0, moe_clean = 0;
  // Effective parameters (the MoE's experts read b inputs each; its masked weights are never used).
  std::int64_t dense_parameters = 0, moe_parameters = 0;
  int dense_width = 0;  // classification: the dense MLP's width
  // Regression: Theorem 3's risks of the Bayes estimators at sigma_o^2 = sigma^2 and 0 (this draw of beta*).
  double dense_bayes_noisy = 0, dense_bayes_clean = 0, moe_bayes_noisy = 0, moe_bayes_clean = 0;
  double signal = 0;  // E y^2 = lambda ||beta*||^2 / k (regression)
};

/// Trial `trial`: teacher seed key.with("teacher", trial), data key.with("data", trial), initial
/// parameters key.with("dense" | "moe", trial).
RobustnessRun run_robustness_trial(const RobustnessSpec& spec, const RngKey& key, std::int64_t trial);

/// The dense two-layer MLP width at the MoE's effective parameter count: the largest W with
/// W (d + 1 + C) + C <= k (w (b + 1 + C) + C) (noisy paper: iso-parameter dense counterpart).
int iso_parameter_dense_width(const ModularTask& task, int expert_width);

/// Softmax cross-entropy, mean over samples (PyTorch's CrossEntropyLoss), summed in double in column
/// order; sets dY = (softmax(Y) - onehot) / n.
double cross_entropy_loss(const Eigen::MatrixXd& Y, const std::vector<int>& label, Eigen::MatrixXd* dY);
/// Fraction of columns whose argmax (ties to the lower index) is the label.
double accuracy(const Eigen::MatrixXd& Y, const std::vector<int>& label);

}  // namespace moelab::moe
