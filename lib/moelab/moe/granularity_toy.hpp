// The granularity paper's Fig. 1 as a trainable toy ("Granularity boosts MoE expressivity", Sec. 1,
// Fig. 1: experts with just enough parameters for one topic in one language; covering 3 topics x 3
// languages takes 9 experts at granularity 1 (one per combination) but only 6 at granularity 2 (3 topic
// experts + 3 language experts, two active), at the same number of active parameters).
//
// The task. An input is x = (e_t, e_l, z) in R^(T + L + p): e_t the one-hot of its topic t in 1..T, e_l
// of its language l in 1..L (each uniform, independent), z ~ N(0, I_p) its content. The target is a
// topic function plus a language function of the content,
//     y(x) = f_t(z) + g_l(z),   f_t(z) = sum_{j=1..h} c_{t,j} relu(u_{t,j} . z),   g_l likewise,
// u ~ N(0, I_p / p), c ~ N(0, 1 / h), drawn once per task seed: each f_t, g_l is a width-h ReLU net, so a
// (topic, language) combination needs width 2h.
//
// The MoEs (moe_model.hpp, two-layer ReLU experts without biases, d_out = 1, the softmax_all gate (the
// Switch gate: the router gets a gradient at k = 1), a linear router without bias):
//     (m = T L, k = 1, w = 2h)   granularity 1: one expert per combination;
//     (m = T + L, k = 2, w = h)  granularity 2: the same active parameters (k w = 2h), fewer experts;
//     (m = T + L, k = 1, w = 2h) the control: granularity 1 with only T + L experts.
// Both of the first two represent y exactly (constructive_toy_moe, below); the third cannot have one
// expert per combination, and an expert that serves two combinations needs width 3h (f_t, g_l, g_l').
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/keys.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::moe {

struct ToyTask {
  int topics = 3;     // T
  int languages = 3;  // L
  int p = 8;          // content dimension
  int h = 4;          // width of each topic / language function
  int d() const { return topics + languages + p; }
};

/// The drawn target: u (h x p) and c (h) for each topic and each language.
struct ToyTarget {
  ToyTask task;
  std::vector<Eigen::MatrixXd> u_topic, u_language;  // h x p each
  std::vector<Eigen::VectorXd> c_topic, c_language;  // h each
};

/// Draws the target of `task` from RandomStream(seed, moe_init, 0) (u, then c, topics then languages).
ToyTarget draw_toy_target(const ToyTask& task, std::uint64_t seed);

/// n inputs (d x n, columns) and their targets (1 x n) from RandomStream(seed, moe_train_data, batch): the
/// cells from uniforms, the content from normals. `cells` (optional) receives t L + l per input.
void draw_toy_batch(const ToyTarget& target, int n, std::uint64_t seed, std::uint64_t batch, Eigen::MatrixXd& X,
                    Eigen::MatrixXd& Y, std::vector<int>* cells = nullptr);

/// The MoE shape of an (m, k) configuration of the toy (file comment): w = 2h / k, softmax_all gate.
MoeShape toy_shape(const ToyTask& task, int m, int k);

/// The exact solution for (m = T L, k = 1) or (m = T + L, k = 2) (anything else: MOELAB_EXPECT): router
/// rows lambda e_t / lambda e_l (granularity 2) or lambda (e_t + e_l) (granularity 1), experts holding
/// f_t, g_l or f_t + g_l with the second layer divided by the gate weight, which is the same constant in
/// every cell (the logits take the same values up to a permutation). Its error is zero up to rounding.
MoeModel<double> constructive_toy_moe(const ToyTarget& target, int m, int k, double lambda = 4.0);

/// One trained configuration: AdamW (cosine decay) on fresh batches, then the test error.
struct ToyTraining {
  int steps = 3000;
  int batch = 256;
  double lr = 1e-2;
  int test_n = 8192;
};
struct ToyResult {
  double test_mse = 0.0;         // mean squared error on the test set
  double normalized_mse = 0.0;   // test_mse / variance of y on the test set
  double target_variance = 0.0;
  int distinct_masks = 0;        // routing masks used on the test set
};
/// Trains toy_shape(task, m, k) from init_pytorch(model, seed) on batches of `data_seed` (batch index =
/// step), tests on batch index 2^40 of `data_seed`. Deterministic for any thread count.
ToyResult train_toy(const ToyTarget& target, int m, int k, const ToyTraining& cfg, std::uint64_t seed,
                    std::uint64_t data_seed);
/// The error of a given model on the test set of `data_seed` (the one train_toy uses).
ToyResult evaluate_toy(const ToyTarget& target, const MoeModel<double>& model, int test_n, std::uint64_t data_seed);

/// The three configurations of the file comment: c = 0 (T L, 1), 1 (T + L, 2), 2 (T + L, 1) (the control).
inline constexpr int kToyConfigs = 3;
std::pair<int, int> toy_config(const ToyTask& task, int c);
const char* toy_config_name(int c);  // granularity1_all, granularity2, granularity1_few

/// One seed of the comparison: a target, then each configuration trained at every learning rate (the
/// best final test error kept) on the same batches, and the constructive error (NaN for the control).
struct ToyComparison {
  double normalized[kToyConfigs];
  double test_mse[kToyConfigs];
  double masks[kToyConfigs];
  double constructive[kToyConfigs];
};
/// Seeds: target key.with("trial", t).with("target"), data .with("data"), initialisation .with("init", c).
ToyComparison toy_comparison_trial(const ToyTask& task, const ToyTraining& training, const std::vector<double>& lrs,
                                   const RngKey& key, std::int64_t t);

}  // namespace moelab::moe
