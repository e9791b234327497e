// Training a top-k MoE layer (moe/moe_model.hpp) on a FIXED data set with any per-sample loss, built
// on the moe topic's public API (forward, backward, mse_loss, adamw_update): the trainer of
// moe/teacher_student.hpp draws its own Gaussian data, while the trained topic needs labelled
// training sets of its own (a noisy teacher, a compositional task with cross-entropy heads).
//
// Minibatches: epoch e visits the n samples in the order of a Philox Fisher-Yates permutation drawn
// from RandomStream(shuffle_seed, moe_shuffle, e), batches of `batch` in that order (a partial last
// batch per epoch), until `steps` optimizer steps are taken. AdamW with cosine decay (moe/adamw.hpp).
// Double precision; every reduction in a fixed order, so a fit is byte-identical for any thread count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "moelab/moe/adamw.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::trained {

using Model = moe::MoeModel<double>;
using Mat = Eigen::MatrixXd;

/// The gate and routing of a trained study's MoE (moe_model.hpp's Gate / Routing; defaults: the
/// softmax over the selected logits, top-k). With top_p / threshold routing the shape's k is the most
/// experts an input may use (k = T: no cap).
struct Gating {
  moe::Gate gate = moe::Gate::softmax_selected;
  moe::Routing routing = moe::Routing::top_k;
  double top_p = 1.0, threshold = 0.0;
  void apply(moe::MoeShape& s) const { s.gate = gate, s.routing = routing, s.top_p = top_p, s.threshold = threshold; }
};

/// Training loops poll for SIGINT/SIGTERM (core/interrupt.hpp) every this many optimizer steps: a
/// step of the shipped sizes takes well under 10 ms, so a run stops within a second of the signal.
inline constexpr std::int64_t kPollSteps = 16;

struct FitConfig {
  std::int64_t steps = 1000;  // optimizer steps (the cosine runs over all of them)
  std::int64_t batch = 64;    // samples per step (capped at n)
  double lr = 1e-2;
  double weight_decay = 0.0;
  std::uint64_t shuffle_seed = 1;
};

/// Mean squared error over all entries (PyTorch's MSELoss): trains `model` on (X, Y), X d x n,
/// Y d_out x n. Returns the training-batch loss of every step.
std::vector<double> fit_regression(Model& model, const Mat& X, const Mat& Y, const FitConfig& cfg);

/// Softmax cross-entropy with `heads` independent heads of `classes` classes each (d_out = heads *
/// classes; head h reads output rows h classes .. h classes + classes - 1), averaged over samples and
/// heads. labels[i * heads + h] in [0, classes) is the class of head h of sample i.
std::vector<double> fit_classifier(Model& model, const Mat& X, std::span<const int> labels, int heads, int classes,
                                   const FitConfig& cfg);

/// Mean cross-entropy (natural log) of outputs Y (heads * classes x n) against labels; sets dY when
/// given (dL/dY = (softmax - one-hot) / (n heads)).
double cross_entropy(const Mat& Y, std::span<const int> labels, int heads, int classes, Mat* dY);

/// Fraction of samples whose every head's argmax (ties: lowest class) equals its label (the
/// compositional paper's exact-match accuracy: a panel is correct only if all its entries are), and
/// the fraction of (sample, head) pairs correct.
struct Accuracy {
  double exact = 0.0;
  double per_head = 0.0;
};
Accuracy accuracy(const Mat& Y, std::span<const int> labels, int heads, int classes);

/// The top-k mask of every column of X under the model's router, as a bit set over experts (rank
/// order ignored), T <= 64 (under top_p / threshold routing: the adaptive selection, from
/// moe::forward). Without a router (m = 1) every mask is 1.
std::vector<std::uint64_t> router_masks(const Model& model, const Mat& X);

/// The mean number of active experts per column of X (k under top-k routing; per-input under top_p /
/// threshold routing).
double mean_active_experts(const Model& model, const Mat& X);

/// Model outputs in chunks (evaluation of large sets without a large cache).
Mat predict(const Model& model, const Mat& X);

}  // namespace moelab::trained
