// MoEfication on synthetic networks (noisy paper, Sec. 5, Figs. 1, 4, 5, 11; MoEfication: Zhang et
// al. 2021): a dense two-layer ReLU network trained on data with a planted modular structure
// (modular_task.hpp, classification) is split into experts by clustering its hidden neurons by
// co-activation, and each input is routed to the experts whose centroid is nearest; accuracy is then
// measured against input noise for the dense and the MoEfied model at several sparsity levels.
// Plus the block-discovery picture of Fig. 1 (App. B.1): cosine affinity of features, spectral
// clustering into blocks, activations as percentiles, reordered by block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/keys.hpp"
#include "moelab/moe/modular_task.hpp"

namespace moelab::moe {

/// Lloyd's k-means on the columns of X (dim x n) into `clusters` groups: k-means++ seeding from
/// Philox draws (RandomStream(seed, moe_shuffle, 0): uniform j for the j-th centre), then
/// `iterations` Lloyd steps (ties to the lower cluster; an emptied cluster keeps its centre).
/// Returns the label of each column; `centres` (dim x clusters) when not null. Deterministic.
std::vector<int> kmeans(const Eigen::MatrixXd& X, int clusters, std::uint64_t seed, int iterations = 50,
                        Eigen::MatrixXd* centres = nullptr);

/// Spectral clustering of the columns of A (n x F: rows = tokens, columns = features) into `blocks`
/// groups (noisy paper, App. B.1, Fig. 1): affinity W_ij = max(0, cos(a_i, a_j)) (zero diagonal),
/// normalized Laplacian I - D^-1/2 W D^-1/2, its `blocks` smallest eigenvectors
/// (Eigen::SelfAdjointEigenSolver), rows normalized, k-means (seed). Returns the block of each feature.
std::vector<int> spectral_blocks(const Eigen::MatrixXd& A, int blocks, std::uint64_t seed);

/// The Fig. 1 picture: features ordered by block, tokens by their dominant block (largest mean |a|
/// over the block's features), every entry replaced by its percentile of |A| (0..100), averaged onto
/// at most rows x cols cells. `diagonal_mass`: the share of sum |a| that falls in the (token block,
/// feature block) diagonal cells; `diagonal_share`: the share of entries there (the value a matrix
/// without block structure would give).
struct BlockPicture {
  Eigen::MatrixXd cells;  // rows x cols mean percentiles (row = token group, column = feature group)
  std::vector<int> feature_block, token_block;
  std::vector<int> feature_order, token_order;
  double diagonal_mass = 0, diagonal_share = 0;
};
BlockPicture block_picture(const Eigen::MatrixXd& A, int blocks, std::uint64_t seed, int max_rows, int max_cols);

/// The largest activation CSV read (a 3000 x 3000 matrix at ~25 characters a number).
inline constexpr std::uint64_t kMaxActivationBytes = std::uint64_t{256} << 20;

/// Reads an activation matrix CSV: one token per line, one feature per column, numbers only; '#'
/// lines are comments, a UTF-8 byte-order mark is skipped, and the first line is a header (skipped)
/// when every cell is a name (not a number and not starting like one). Read by read_input_file
/// (regular files only, at most kMaxActivationBytes). InputError naming the file, the line, the
/// column and the reason (not a regular file, ragged rows, a non-number, out of range, NaN/inf,
/// fewer than 2 rows or columns).
Eigen::MatrixXd read_activation_csv(const std::string& path);

/// A planted activation matrix (the default input of the picture): `tokens` rows, blocks x
/// block_features columns; token t belongs to block t mod blocks, its features in that block are
/// |N(0, 1)| + shift, the others |N(0, noise^2)|. Philox: RandomStream(seed, moe_test_data, 0).
Eigen::MatrixXd planted_activations(int tokens, int blocks, int block_features, double shift, double noise, std::uint64_t seed);

/// How a MoEfied model picks its s experts per input:
///   centroid    nearest centroid: expert e's centroid is the clean calibration inputs averaged with
///               weights = the expert's activation mass; the s nearest (Euclidean) are used;
///   similarity  MoEfication's similarity selection: the largest x' c_e + beta_e, c_e and beta_e the
///               mean first-layer weight row and bias of the expert's neurons;
///   activation  the s experts with the largest activation mass sum_{h in e} relu(w_h' x + b_h) (the
///               ideal selection MoEfication's trained router imitates; it costs the dense layer);
///   mlp         MoEfication's MLP selection (Zhang et al. 2021, Sec. 3.2): a two-layer ReLU net x -> R^E
///               trained (MSE, AdamW, fresh clean inputs) to predict every expert's clean activation
///               mass; the s largest predictions are used;
///   oracle      the ideal selection computed on the CLEAN input (not realizable: the router sees the
///               noise-free input), applied to the noisy activations: the noisy paper's correctly routed
///               estimator (Eq. 3; App. B.3 "MoE models had access to a correctly routed input"), the
///               control that separates routing errors from the effect of sparsity on feature noise.
enum class MoefiedRouter { centroid, similarity, activation, mlp, oracle };

/// How the hidden neurons are split into experts:
///   coactivation  k-means on the neurons' unit-normed activation vectors over the clean calibration
///                 inputs (MoEfication's co-activation split, as a clustering);
///   weights       k-means on the neurons' unit-normed first-layer rows [w_h, b_h] (MoEfication's
///                 parameter-clustering split; the noisy paper's App. B.2: "k-means clustering approach
///                 over feature dimensions").
enum class MoefiedSplit { coactivation, weights };

/// Where the test noise enters:
///   input   xbar = x + sigma z on every input coordinate (noisy Eq. 1 on the network's input, as the
///           paper's App. B.3 does; the router reads xbar);
///   hidden  the hidden pre-activations (the features the experts' output layer reads) get
///           sigma * s_h * z_h, s_h the standard deviation of neuron h's clean pre-activation over
///           the calibration inputs (noise relative to each feature's scale: noisy Eq. 1 on the
///           activations X_i, Sec. 3.2); the input, and so every input-reading router, stays clean
///           (the theory's correctly routed estimator, Eq. 3).
enum class NoiseSite { input, hidden };

struct MoeficationSpec {
  MoefiedRouter router = MoefiedRouter::centroid;
  MoefiedSplit split = MoefiedSplit::coactivation;
  NoiseSite noise_site = NoiseSite::input;
  ModularTask task;                 // classification (classes >= 2)
  int hidden = 64;                  // dense width H
  int experts = 8;                  // E: neuron clusters
  std::vector<int> active;          // sparsity levels: active experts s (1..E)
  std::vector<double> sigmas;       // test input-noise standard deviations
  double train_sigma = 0.0;         // input noise during the dense training
  std::int64_t steps = 2000, batch = 256;
  double lr = 1e-2;
  double weight_decay = 0.0;
  std::int64_t calibration = 4096;  // clean training inputs for the co-activation clustering and centroids
  std::int64_t test_size = 8192;
  int router_width = 64;            // mlp router: hidden width
  std::int64_t router_steps = 1000; // mlp router: AdamW steps of `batch` fresh clean inputs (lr = lr)
};

struct MoeficationRun {
  std::vector<double> dense;   // accuracy per sigma
  std::vector<double> moe;     // accuracy per (active level a, sigma): a * sigmas.size() + s
  double block_purity = 0.0;   // share of neurons whose cluster's majority block is their own dominant block
  // The selection's bookkeeping per (active level a, sigma), a * sigmas.size() + s, over the test inputs:
  std::vector<double> kept_mass;   // share of the clean activation mass sum relu(.) the selected experts hold
  std::vector<double> router_agreement;  // share of selected experts that the ideal (clean activation) selection also picks
};

/// Trial `trial`: teacher key.with("teacher", trial), data key.with("data", trial), dense init
/// key.with("dense", trial), clustering key.with("cluster", trial); hidden-site noise
/// key.with("hidden_noise", trial); the mlp router's initialisation key.with("router", trial) and data
/// key.with("router_data", trial).
MoeficationRun run_moefication_trial(const MoeficationSpec& spec, const RngKey& key, std::int64_t trial);

}  // namespace moelab::moe
