// The generalization gap of trained top-k MoEs set beside Theorem 1 of the compositional paper
// (arXiv 2410.13964, Sec. 4.2, Eq. 5; docs/bounds.md: as printed, Eq. 17 and the derived form).
//
// Task: a random teacher MoE (linear experts, no biases, top-k_t softmax, PyTorch init) on x ~ N(0, I_d)
// with scalar output, labels y = teacher(x) + noise * eps, eps ~ N(0, 1). A student top-k MoE with T
// linear experts (no biases, softmax over the k selected logits, trained router) is fitted by AdamW to
// the MSE on m training points (fit_moe.hpp) and evaluated on `test_size` fresh points of the same
// law. Losses:
//   bounded  l(f(x), y) = min(1, |f(x) - y|)   values in [0, 1], 1-Lipschitz (Assumption 2, C = 1):
//            the loss Theorem 1 is stated for; the gap is L_test - L_train of this loss;
//   mse      (f(x) - y)^2, the loss trained on, reported beside it.
// Rademacher complexities (Definition 2, Eq. 4) computable for the trained model's classes, on the m
// training points, by Monte-Carlo over sign vectors (bounds/rademacher.hpp; exact formula
// sup_{||w|| <= B} sum sigma_i <w, x_i> = B ||sum sigma_i x_i||):
//   expert class H = {x -> <w, x> : ||w||_2 <= B_E}, B_E = the largest trained expert norm (the class
//            containing every trained expert; R_m(H) of Theorem 1);
//   router   the logit class {x -> <r, x> : ||r||_2 <= B_R}, B_R = the largest trained router row norm.
// Theorem 1 is evaluated with C = 1, R_m(H) = the expert-class estimate, N = 1, d_N = d T (the
// number of router parameters, the convention of bounds/pattern_counts.hpp; Assumption 1 leaves the
// constant open), delta = 0.05, max_gate_weight = 1 (softmax weights can put weight ~1 on one expert).
#pragma once

#include <cstdint>

#include "moelab/bounds/generalization.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/trained/fit_moe.hpp"

namespace moelab::trained {

struct GapSpec {
  int d = 8;                        // input dimension
  int teacher_T = 4, teacher_k = 1; // teacher experts / active
  int T = 8, k = 2;                 // student experts / active
  std::int64_t m = 256;             // training points
  std::int64_t test_size = 8192;    // test points (the test loss's own error is ~ 1/sqrt(test_size))
  double noise = 0.5;               // label noise standard deviation
  std::int64_t steps = 1500;        // AdamW steps
  std::int64_t batch = 64;
  double lr = 1e-2;
  std::int64_t rademacher_draws = 200;  // sign vectors per Rademacher estimate
  Gating gating;                    // the student's gate and routing (the teacher keeps the defaults)
  void validate() const;
};

struct GapRun {
  double train_loss = 0.0, test_loss = 0.0;  // bounded loss min(1, |f - y|)
  double train_mse = 0.0, test_mse = 0.0;
  double expert_norm = 0.0, router_norm = 0.0;  // B_E, B_R
  double expert_rademacher = 0.0;               // R(H, S), S = the training inputs
  double router_rademacher = 0.0;               // R of the router's logit class on S
  double mean_k = 0.0;                          // mean active experts per test point (k under top-k)
  double gap() const { return test_loss - train_loss; }
  double mse_gap() const { return test_mse - train_mse; }
};

/// One training run: teacher, data, noise and student from key.with("teacher" | "data" | "noise" |
/// "student" | "signs", trial).
GapRun run_gap_trial(const GapSpec& spec, const RngKey& key, std::int64_t trial);

/// The bounded loss min(1, |f(x) - y|) and the MSE of `f` on (X, Y) (Y is 1 x n), means over the points.
struct LossPair {
  double bounded = 0.0, mse = 0.0;
};
LossPair evaluate_losses(const moe::MoeModel<double>& f, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y);

/// Theorem 1's parameters for the setting (file comment) with R_m(H) = `rademacher`.
bounds::Theorem1Params theorem1_params(const GapSpec& spec, double rademacher);

}  // namespace moelab::trained
