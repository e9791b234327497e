// A symbolic compositional task in the spirit of SRAVEN (compositional paper, Sec. 3.1 and App. A.1;
// Schug et al.'s symbolic Raven matrices), generated deterministically from a seed, and the k*
// experiment on it (the paper's Fig. 1-2: OOD and test accuracy of 8-expert SMoEs with top-k,
// k in {1, 2, 4, 8}, as the number M of composed rules grows).
//
// Task. R rules over the values Z_V, rule r: (a, b) -> (alpha_r a + beta_r b + gamma_r) mod V, with
// (alpha_r, beta_r, gamma_r) R distinct triples of Z_V^3 (a Philox Fisher-Yates over the V^3 triples,
// seed `rules_seed`). A problem is a grid of `rows` rows of 3 panels; each panel is a vector of M
// entries (features); feature j of the problem follows rule r_j in every row: panel 3 of a row is
// r_j(panel 1, panel 2). The rule tuple (r_1, ..., r_M) is the problem's combination. The model sees
// the first 3 rows - 1 panels and must give the last panel (all M entries): an entry is predicted
// right only by inferring r_j from the context rows and applying it to the last row's two panels.
// Accuracy is exact match over all M entries (SRAVEN: "correct only if the model predicts all the
// entries of the final vector").
//
// OOD split (the paper: "hold out 25% of all possible combinations as OOD"): a combination is OOD
// iff u(combination) < ood_fraction, u a Philox uniform addressed by (split_seed, the tuple's index in
// base R): disjoint from the in-distribution set by construction and stable under any sampling. For
// M = 1 the combinations are the single rules; holding one out would test an unseen rule, not a new
// composition, so the OOD set is empty for M = 1 (OOD accuracy reported as NaN).
//
// Samples: sample i of a stream (seed, tag) uses RandomStream(seed, tag, i): combination by
// rejection (uniform draws 0, 1, ... until an ID/OOD tuple as asked), then the 2 (rows) free panel
// values of every feature.
//
// Reduction for CPU (the paper trains decoder-only SMoE transformers): the grid is one-hot encoded
// (input dimension M (3 rows - 1) V) and fed to ONE top-k MoE layer of T = 8 two-layer ReLU experts
// (with biases, softmax gate over the selected logits, PyTorch init) whose output is M heads of V
// logits, trained by AdamW on the mean cross-entropy (fit_moe.hpp). No attention, no tokens.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/core/keys.hpp"
#include "moelab/core/stream_tags.hpp"
#include "moelab/trained/fit_moe.hpp"

namespace moelab::trained {

struct Rule {
  int alpha = 0, beta = 0, gamma = 0;
  int apply(int a, int b, int V) const { return (alpha * a + beta * b + gamma) % V; }
};

class CompositionalTask {
 public:
  /// R rules over Z_V (2 <= V, 1 <= R <= V^3), M features (1 <= M <= 16), `rows` rows (>= 2).
  CompositionalTask(int R, int V, int M, int rows, double ood_fraction, std::uint64_t rules_seed, std::uint64_t split_seed);

  int R() const { return R_; }
  int V() const { return V_; }
  int M() const { return M_; }
  int rows() const { return rows_; }
  int panels() const { return 3 * rows_ - 1; }  // panels shown
  int input_dim() const { return M_ * panels() * V_; }
  const std::vector<Rule>& rules() const { return rules_; }

  /// True when the rule tuple is held out (never for M = 1). When R^M is small the split is
  /// enumerated at construction and made two-sided: if the draw put every tuple on one side, the
  /// tuple whose uniform is nearest the threshold is moved to the other (ood_fraction > 0, M > 1).
  bool is_ood(const std::vector<int>& combination) const;
  /// Number of tuples on the OOD side (-1 when R^M is too large to enumerate, over 2^20).
  std::int64_t ood_count() const { return ood_count_; }

  /// A sample: the rule tuple, the values of every panel (panels() + 1 per feature, the last is the
  /// answer), feature-major: values[j * (panels() + 1) + p].
  struct Problem {
    std::vector<int> combination;
    std::vector<int> values;
  };
  Problem sample(std::uint64_t seed, StreamTag tag, std::uint64_t index, bool ood) const;

  /// n samples as one-hot columns X (input_dim x n) and labels (n x M, sample-major).
  struct Data {
    Mat X;
    std::vector<int> labels;
    std::vector<Problem> problems;
  };
  Data draw(std::int64_t n, std::uint64_t seed, StreamTag tag, bool ood) const;

  /// Whether the Bayes-optimal predictor answers this problem right: per feature, the rules
  /// consistent with every context row (each equally likely a priori; the ID restriction on tuples
  /// ignored) vote for their answer on the last row and the predictor gives the most voted value,
  /// ties broken uniformly at random. Returns the probability (over the tie-break) that every
  /// feature's answer is the true one: the product over features of 1/ties when the truth is among
  /// the most voted values, else 0. Its mean over samples estimates the Bayes ceiling.
  double bayes_correct(const Problem& p) const;

 private:
  int R_, V_, M_, rows_;
  double ood_fraction_;
  std::uint64_t split_seed_;
  std::vector<Rule> rules_;
  std::uint64_t flipped_ = ~std::uint64_t{0};  // the tuple index moved across a one-sided split
  std::int64_t ood_count_ = -1;
  // The tuples of a side that rejection sampling would hit too rarely (under 1 in 10^4), by index.
  std::vector<std::uint64_t> rare_side_[2];
  bool natural_ood(std::uint64_t index) const;
  std::uint64_t index_of(const std::vector<int>& combination) const;
};

struct CompositionalSpec {
  int R = 4, V = 5, M = 2, rows = 3;
  double ood_fraction = 0.25;
  int T = 8, k = 2;                  // experts, active
  int width = 32;                    // hidden width of each expert
  std::int64_t train_size = 4096;    // in-distribution training problems
  std::int64_t test_size = 2048;     // ID and OOD test problems each
  std::int64_t steps = 2000;
  std::int64_t batch = 128;
  double lr = 3e-3;
  double weight_decay = 0.0;
  Gating gating;                     // gate and routing of the layer (default: softmax over the selected, top-k)
  void validate() const;
};

/// Accuracies of a trained model evaluated with another number of active experts (the inference-time
/// k of the compositional paper's Sec. 3.2, Tables 1-2: the trained router's k largest logits, the
/// trained gate over them; the parameters unchanged).
struct AtK {
  int k = 0;
  double id_accuracy = 0.0, ood_accuracy = 0.0, id_head_accuracy = 0.0, ood_head_accuracy = 0.0;
};

struct CompositionalRun {
  double id_accuracy = 0.0, ood_accuracy = 0.0;  // exact match (NaN OOD for M = 1)
  double id_head_accuracy = 0.0, ood_head_accuracy = 0.0;
  double train_accuracy = 0.0;
  double bayes_id = 0.0;        // Bayes ceiling on the ID test set
  double final_train_loss = 0.0;
  double mean_k = 0.0;          // mean active experts per ID test problem (k under top-k routing)
  std::vector<AtK> at_k;        // one per eval k asked for (top-k routing only)
};

/// One run: the task (rules, split) from key.with("task") (shared by every trial and every k of one
/// point, so the k compare on one task), the training and test data from key.with("data", trial), the
/// model from key.with("model", trial). `eval_ks`: after training at spec.k, the same model is also
/// evaluated at each of these k (1..T; top-k routing), on the same ID and OOD test problems.
/// `trained` (optional) receives the trained model (trained/utilisation.hpp reads its router).
CompositionalRun run_compositional_trial(const CompositionalSpec& spec, const RngKey& key, std::int64_t trial,
                                         const std::vector<int>& eval_ks = {}, Model* trained = nullptr);

/// The task the run uses.
CompositionalTask make_task(const CompositionalSpec& spec, const RngKey& key);

}  // namespace moelab::trained
