// SRAVEN, the symbolic Raven matrices of Schug et al. ("Attention as a hypernetwork", arXiv:2406.05816,
// Sec. 4), the task of the compositional paper's training experiments (Zhao et al., arXiv:2410.13964,
// Sec. 3.1 and App. A.1: 3 x 3 grids, R = 8 rules, each of the M entries of a panel follows one rule,
// 25% of the rule combinations held out as OOD, exact match over the M entries of the final panel),
// and its training run through one transformer block with an MoE FFN (moe/transformer.hpp).
//
// The rules: the 8 of the public SRAVEN generator's definition (Schug et al.'s released code, the
// rule list of its symbolic-Raven data generator; the papers name only "R = 8 possible rules").
// Each rule produces one ROW of 3 values in Z_V, every row drawn independently:
//   0 constant          (c, c, c),                 c uniform;
//   1 progression +1    (s, s + 1, s + 2) mod V,   s uniform;
//   2 progression +2    (s, s + 2, s + 4) mod V;
//   3 progression -1    (s, s - 1, s - 2) mod V;
//   4 progression -2    (s, s - 2, s - 4) mod V;
//   5 addition          (a, b, a + b mod V),       a, b uniform;
//   6 subtraction       (a, b, a - b mod V);
//   7 distribute three  a permutation of {x, y, z}: three distinct values drawn once per problem
//                       (uniform over the 3-subsets), each row an independent uniform permutation.
// V >= 5 keeps the four progressions distinct (+2 = -2 mod 4); the public configuration uses V = 8.
// `R` < 8 uses the first R rules (tests and small studies).
//
// Combinations (the public generator's latents): the multisets of M rules out of R, each written as
// the non-decreasing tuple (r_1 <= ... <= r_M), feature j following rule r_j: C(R + M - 1, M) of them
// (M = 4, R = 8: 330), enumerated in lexicographic order. The OOD split (the paper's "hold out 25%
// of all possible combinations"): a Philox Fisher-Yates permutation of the combination indices
// (split seed); its first floor(count x ood_fraction) are OOD, the rest in distribution. So at M = 1
// two of the eight RULES are held out (the public generator does the same): OOD accuracy at M = 1
// measures unseen rules, not new compositions. The generator's optional per-row permutation of the
// features (`permute_features`) is not implemented: feature j always follows r_j.
//
// A problem: `rows` rows (the paper: 3) of 3 panels, each panel a vector of M values; the model sees
// the 3 rows - 1 first panels and must give the last panel's M values (exact match over all M).
// Sample i of (seed, tag) uses RandomStream(seed, tag, i): draw 0 picks the combination uniformly on
// its side (ID or OOD), then the rules' values feature by feature, row by row, in order.
//
// Non-uniform combination frequencies (the compositional paper's App. A.5, the trained counterpart of
// sparsity::with_difficulty): `set_combination_weights` gives every combination a weight w_c > 0;
// sample(..., weighted = true) then picks combination c of its side with probability w_c / sum of the
// side's w, by the same draw 0 (u in [0, 1): the first c in index order whose cumulative weight
// exceeds u x the side's total), so the draws after it are those of the uniform sampler. With every
// weight 1 the cumulative weights are the integers 1..n and the pick is floor(u n): the uniform
// sampler's, bit for bit. `powerlaw_combination_weights` is A.5's pairwise power law generalised to M
// rules: w_c = (D_{r_1} + ... + D_{r_M})^(-alpha) over the rules' inverse difficulties D (rule r's
// D_{r+1} of the profile; for M = 2, A.5's w_{i,i'} = (D_i + D_i')^(-alpha)). A combination is a
// multiset (one latent), so its weight is that of one tuple: the uniform sampler (every w = 1) is the
// same draw as before.
//
// Bayes ceiling (`bayes_correct`): the posterior over the side's combinations (uniform prior on that
// side: the ID prior for ID problems, the OOD one for OOD problems) given the context, with each
// rule's exact likelihood of the shown values (1/V per full row for constant and the progressions,
// 1/V^2 for addition and subtraction, 1/C(V, 3) x (1/6)^rows for distribute three); the predicted
// panel maximises the posterior mass of its answer vector (ties split uniformly). The mean over
// problems is the highest exact-match accuracy any model can reach on that side.
//
// Token encoding for the transformer (one token per panel; the public generator uses one token per
// entry): token t < panels() carries the one-hot values of its M entries (M blocks of V) and a
// one-hot position (3 rows columns), the query token (the last) only its position; the block's width
// d >= token_width(), the extra dimensions zero. The read-out of the last token gives M groups of V
// logits (moe::SequenceClassifier).
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/moe/transformer.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::trained {

enum class SravenRule : int {
  constant = 0,
  progression_plus1 = 1,
  progression_plus2 = 2,
  progression_minus1 = 3,
  progression_minus2 = 4,
  addition = 5,
  subtraction = 6,
  distribute_three = 7,
};
inline constexpr int kSravenRules = 8;
const char* to_string(SravenRule r);

class SravenTask {
 public:
  /// M features (1..16), V values (5..64), `rows` rows (2..16), the first R (1..8) rules,
  /// ood_fraction in [0, 1); the split from split_seed. Both sides must be non-empty when
  /// ood_fraction > 0 (MOELAB_EXPECT otherwise).
  SravenTask(int M, int V, int rows, int R, double ood_fraction, std::uint64_t split_seed);

  int M() const { return M_; }
  int V() const { return V_; }
  int R() const { return R_; }
  int rows() const { return rows_; }
  int panels() const { return 3 * rows_ - 1; }  // panels shown
  int tokens() const { return panels() + 1; }   // the shown panels and the query
  int token_width() const { return M_ * V_ + tokens(); }

  /// Every combination (non-decreasing rule tuples), lexicographic.
  const std::vector<std::vector<int>>& combinations() const { return combos_; }
  /// Indices into combinations() of each side.
  const std::vector<int>& id_indices() const { return side_[0]; }
  const std::vector<int>& ood_indices() const { return side_[1]; }
  bool is_ood(const std::vector<int>& combination) const;
  /// C(R + M - 1, M).
  static std::int64_t combination_count(int R, int M);

  /// values[j * 3 rows + p]: feature j, panel p = 3 row + column (the last, p = 3 rows - 1, is the
  /// answer).
  struct Problem {
    std::vector<int> combination;
    std::vector<int> values;
    int value(int j, int p) const { return values[static_cast<std::size_t>(j) * values.size() / combination.size() + p]; }
  };
  /// weighted: pick the combination with the weights of set_combination_weights (header comment);
  /// MOELAB_EXPECT that weights were set.
  Problem sample(std::uint64_t seed, StreamTag tag, std::uint64_t index, bool ood, bool weighted = false) const;

  /// One weight per combination (index order of combinations()), each finite and > 0.
  void set_combination_weights(std::vector<double> w);
  bool has_combination_weights() const { return !weights_.empty(); }
  /// The weights of set_combination_weights (empty when none were set).
  const std::vector<double>& combination_weights() const { return weights_; }
  /// Probability that a weighted draw on the side picks combination index c (0 for the other side);
  /// 1 / side size for every c of the side when no weights were set.
  double combination_probability(int c, bool ood) const;

  /// Whether rows 0 .. rows - 1 of feature j's values (3 rows values, the answer included) follow
  /// `rule` (distribute three: every row a permutation of one set of 3 distinct values).
  bool follows(int rule, const int* feature_values) const;
  /// The likelihood of the context of one feature (3 rows - 1 shown values) under `rule`, and the
  /// answer that rule gives (-1 when the likelihood is 0).
  double likelihood(int rule, const int* feature_values, int* answer) const;
  /// Probability that the Bayes-optimal predictor (header comment) gets every entry right.
  double bayes_correct(const Problem& p, bool ood) const;
  /// The same with the prior over the side's combinations proportional to the weights (the ceiling
  /// for problems drawn by sample(..., weighted = true)); equals bayes_correct without weights.
  double bayes_correct(const Problem& p, bool ood, bool weighted) const;

  /// Problems as a token batch: X (d x tokens() n), labels (n x M, problem-major).
  template <class S>
  void encode(const std::vector<Problem>& problems, int d, moe::SequenceBatch<S>& batch) const;

 private:
  int M_, V_, rows_, R_;
  std::vector<std::vector<int>> combos_;
  std::vector<int> side_[2];
  std::vector<signed char> ood_of_;  // per combination index
  std::vector<double> weights_;      // per combination index; empty: uniform
  std::vector<double> cumulative_[2];  // per side, cumulative weights in the side's index order
  int index_of(const std::vector<int>& combination) const;
};

/// App. A.5 generalised to M rules: w_c = (sum_j D_{r_j + 1})^(-alpha) for every combination c of the
/// task, D = sparsity::difficulty_values(spec, R) (profile index: D_i = i, rule r's D is r + 1).
/// Needs spec.kind == powerlaw and alpha > 0 (A.5 asks alpha > 1; the studies refuse alpha <= 1).
std::vector<double> powerlaw_combination_weights(const SravenTask& task, const sparsity::DifficultySpec& spec);

// ---- the training run ----

struct SravenSpec {
  int M = 1, V = 8, rows = 3, R = 8;
  double ood_fraction = 0.25;
  int d = 0;                 // residual width; 0: the token width M V + 3 rows
  int heads = 4, d_head = 8;
  moe::AttentionKind attention = moe::AttentionKind::softmax;
  moe::BlockNorm norm = moe::BlockNorm::none;
  int T = 8, k = 2, width = 32;  // experts, active, hidden width
  moe::Gate gate = moe::Gate::softmax_selected;
  std::int64_t steps = 1000, batch = 64;  // online: every step draws fresh ID problems
  double lr = 3e-3, weight_decay = 0.0;
  std::int64_t test_size = 1024;  // ID and OOD test problems each
  bool bayes = true;              // compute the Bayes ceilings
  Backend backend = Backend::cpu;  // where the block trains (moe/sequence_trainer.hpp); the data are the host's either way
  /// How the training problems' rule combinations are drawn: uniform on the ID side (Assumption 5, the
  /// default: the run is bit for bit what it was before this option), or with the App. A.5 power-law
  /// weights of powerlaw_combination_weights (the ID side renormalised).
  sparsity::DifficultySpec combination_weights;
  void validate() const;
  int width_d(int token_width) const { return d > 0 ? d : token_width; }
};

struct SravenRun {
  double id_accuracy = 0, ood_accuracy = 0;  // exact match
  double id_entry_accuracy = 0, ood_entry_accuracy = 0;  // fraction of entries right
  std::vector<double> id_feature_accuracy, ood_feature_accuracy;  // per feature j
  double bayes_id = 0, bayes_ood = 0;
  double initial_loss = 0, final_loss = 0;  // ID test cross-entropy before and after training
  // Test problems drawn with the training weights (the weighted error that A.5's E_approx averages):
  // equal to the uniform ones when combination_weights is uniform (the same problems).
  double id_weighted_accuracy = 0, ood_weighted_accuracy = 0;
  double id_weighted_entry_accuracy = 0, ood_weighted_entry_accuracy = 0;
  double bayes_id_weighted = 0, bayes_ood_weighted = 0;
  double final_train_loss = 0;              // mean over the last 5% of steps
};

/// One run: the split from key.with("split", trial), the model from key.with("model", trial) (the
/// same initial parameters for every k: the layout does not depend on k), the training batches and
/// the ID test set from key.with("data", trial), the OOD test set from key.with("ood_data", trial).
/// Under power-law combination weights the training batches use the same stream indices (only the
/// combination pick differs), the uniform test sets are the same problems, and the weighted test sets
/// come from key.with("weighted_data" | "weighted_ood_data", trial).
/// lr_scale multiplies the learning rate (0: the frozen control).
SravenRun run_sraven_trial(const SravenSpec& spec, const RngKey& key, std::int64_t trial, double lr_scale = 1.0);

SravenTask make_sraven_task(const SravenSpec& spec, const RngKey& key, std::int64_t trial);

}  // namespace moelab::trained
