// Synthetic data with a perfect modular structure (noisy paper, Sec. 3.2, Eq. 1; App. B.3 "a
// synthetic dataset designed with a perfect modular structure", whose sizes the paper does not give).
//   k blocks of b features, d = k b; a sample belongs to block z, uniform (p_i = 1/k); its clean
//   features are x = [0 .. 0, x_z, 0 .. 0] with x_z ~ N(0, lambda I_b) (Sigma_i = lambda I);
//   the observation is xbar = x + e, e ~ N(0, sigma^2 I_d) on all d coordinates (feature noise).
// Targets:
//   regression      y = x_z' beta_z*, beta_z* entries N(0, 1 / b) (noise-free response, as in Eq. 1);
//   classification  label = argmax_c T_z(x_z)_c, T_z a random two-layer ReLU net R^b -> R^C of width
//                   teacher_width (PyTorch-style init, biases on), one per block.
// Every draw is Philox-addressed: the teacher by its seed, sample i of a draw (seed, tag, trial) by
// three sub-streams (block: uniform i; features: normal i b + c; noise: normal i d + c) whose seeds
// are RngKey::root(seed).with("block" | "features" | "noise").
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/stream_tags.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::moe {

struct ModularTask {
  int blocks = 4;         // k
  int block_dim = 8;      // b
  int classes = 0;        // 0: regression; else the number of classes C >= 2
  int teacher_width = 16; // width of the per-block classification teachers
  double lambda = 1.0;    // Sigma_i = lambda I
  int d() const { return blocks * block_dim; }
  void validate() const;
};

/// n samples as columns: clean features (d x n), the observation with noise sigma (d x n; the same
/// noise draws for every sigma, scaled), the block of each sample, and the target (regression: 1 x n;
/// classification: `label`).
struct ModularSample {
  Eigen::MatrixXd clean, noisy;
  std::vector<int> block;
  Eigen::MatrixXd y;       // regression targets (1 x n)
  std::vector<int> label;  // class labels
};

class ModularTeacher {
 public:
  ModularTeacher(const ModularTask& task, std::uint64_t seed);
  const ModularTask& task() const { return task_; }
  /// beta* stacked (d), regression.
  const Eigen::VectorXd& beta() const { return beta_; }
  ModularSample draw(std::int64_t n, double sigma, std::uint64_t seed, StreamTag tag, std::uint64_t trial) const;
  /// Labels of clean features (classification).
  std::vector<int> labels(const Eigen::MatrixXd& clean, const std::vector<int>& block) const;

 private:
  ModularTask task_;
  Eigen::VectorXd beta_;
  std::vector<MoeModel<double>> class_teacher_;
};

/// The correctly routed MoE's input (noisy paper, Eq. 3, sparse estimator): expert z reads only its
/// block Xbar_z; the other coordinates are zeroed (they carry only noise for a sample of block z).
Eigen::MatrixXd block_masked(const Eigen::MatrixXd& x, const std::vector<int>& block, int block_dim);

}  // namespace moelab::moe
